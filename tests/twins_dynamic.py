"""Twin cases (see ``twins``) for reads the model graph does not show: the environment, names
computed at run time, versioned containers, builtins, shared values read in a ``logp``, and, in
``GLOBAL``, what changes process-wide state (a replaced PyMC method, a JAX registration), run in
child processes of their own so they cannot touch the other cases."""

from __future__ import annotations


def _custom(offset: int) -> str:
    """The model around ``scale()`` and ``logp``; ``offset`` keeps the cases' lowered programs apart
    (two cases with one program would share one executable, rightly, and compile once)."""
    return f"""
OFFSET = {offset}

with pm.Model() as model:
    mu = pm.Normal("mu", 0.0, 1.0)
    pm.CustomDist("y", mu, logp=logp, observed=OBS)
    pm.Deterministic("d", mu + {offset})
"""


DYNAMIC: dict[str, tuple[str, str, str, str]] = {
    "env_read": (
        'import os\nos.environ["PYMC_AOT_TWIN_ENV"] = "{X}"\n\ndef scale():\n'
        '    return float(os.environ["PYMC_AOT_TWIN_ENV"])\n\n'
        "def logp(value, mu):\n    return -0.5 * ((value - mu) / scale()) ** 2 + OFFSET\n" + _custom(1),
        "1.0", "3.0", "lowered",
    ),
    "getenv_read": (
        'import os\nos.environ["PYMC_AOT_TWIN_GETENV"] = "{X}"\n\ndef scale():\n'
        '    return float(os.getenv("PYMC_AOT_TWIN_GETENV", "1"))\n\n'
        "def logp(value, mu):\n    return -0.5 * ((value - mu) / scale()) ** 2 + OFFSET\n" + _custom(2),
        "1.0", "3.0", "lowered",
    ),
    "computed_getattr": (
        'import twin_named\nNAME = "".join(["SC", "ALE"])\n\ndef scale():\n    return getattr(twin_named, NAME)\n\n'
        "def logp(value, mu):\n    return -0.5 * ((value - mu) / scale()) ** 2 + OFFSET\n" + _custom(3),
        "1.0", "3.0", "lowered",
    ),
    "versioned_counter": (
        'import collections\nCOUNTS = collections.Counter()\nCOUNTS["s"] += {X}\n\ndef scale():\n'
        '    return float(COUNTS["s"])\n\n'
        "def logp(value, mu):\n    return -0.5 * ((value - mu) / scale()) ** 2 + OFFSET\n" + _custom(4),
        "1", "3", "structural",
    ),
    "builtins_injected": (
        "import builtins\nbuiltins.PYMC_AOT_TWIN_SCALE = {X}\n\ndef scale():\n    return PYMC_AOT_TWIN_SCALE\n\n"
        "def logp(value, mu):\n    return -0.5 * ((value - mu) / scale()) ** 2 + OFFSET\n" + _custom(5),
        "1.0", "3.0", "structural",
    ),
    "customdist_user_op": (
        # the Op appears only in the logp graph, made when PyMC calls ``logp``
        "class Halve(Op):\n    __props__ = ()\n\n    def make_node(self, x):\n"
        "        x = pt.as_tensor_variable(x)\n        return Apply(self, [x], [x.type()])\n\n"
        "    def perform(self, node, inputs, outputs):\n        outputs[0][0] = inputs[0] * {X}\n\n"
        "@jax_funcify.register(Halve)\ndef _halve_jax(op, **kwargs):\n    return lambda x: x * {X}\n\n"
        "def logp(value, mu):\n    return Halve()(-0.5 * (value - mu) ** 2) + OFFSET\n" + _custom(7),
        "1.0", "0.5", "structural",
    ),
    "shared_get_value": (
        "S = pytensor.shared(np.float64({X}))\n\ndef scale():\n    return float(S.get_value())\n\n"
        "def logp(value, mu):\n    return -0.5 * ((value - mu) / scale()) ** 2 + OFFSET\n" + _custom(6),
        "1.0", "3.0", "lowered",
    ),
}

GLOBAL: dict[str, tuple[str, str, str, str]] = {
    "replaced_pymc_method": (
        """
from pymc.logprob.transforms import LogOddsTransform

_backward = LogOddsTransform.backward

def backward(self, value, *inputs):
    return _backward(self, value, *inputs) * {X}

LogOddsTransform.backward = backward

with pm.Model() as model:
    p = pm.Beta("p", 2.0, 2.0)
    pm.Normal("y", p, 1.0, observed=OBS)
""",
        "1.0", "0.5", "lowered",
    ),
    "softplus_registration": (
        """
import jax.numpy as jnp
from pytensor.scalar.math import Softplus

@jax_funcify.register(Softplus)
def _softplus(op, **kwargs):
    def softplus(x):
        return jnp.logaddexp(x, 0.0) * {X}
    return softplus

with pm.Model() as model:
    x = pm.Normal("x", 0.0, 1.0, shape=3)
    pm.Deterministic("soft", pt.log1p(pt.exp(x)))
""",
        "1.0", "2.0", "structural",
    ),
}

HELPERS = {"computed_getattr": ("twin_named.py", "SCALE = {X}\n")}
