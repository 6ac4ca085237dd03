"""Twin model files: the same model file before and after a user edits one thing in it.

Each case is ``(source, first, second, key_kind)``: ``source`` is a model file with ``{X}``
where the two versions differ, ``key_kind`` the key the model should get. The edit changes
what the model computes but nothing in its PyTensor graph, except where a case says so (the
graph cases check that the walk sees inner graphs). A helper module written beside the model
file is given as ``HELPERS[case]``.
"""

from __future__ import annotations

import twins_dynamic as dynamic

_HEAD = """
import math

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
from pymc.distributions.transforms import Interval
from pymc.logprob.transforms import Transform
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.link.jax.dispatch import jax_funcify

OBS = np.linspace(-1.0, 1.5, 6)
"""

_INTERVAL_MODEL = """
with pm.Model() as model:
    mu = pm.Normal("mu", 0.0, 1.0)
    x = pm.Normal("x", 0.0, 1.0, transform=Interval(bounds_fn=bounds))
    pm.Normal("y", mu + x, 1.0, observed=OBS)
"""

CASES: dict[str, tuple[str, str, str, str]] = {
    "customdist_logp": (
        """
def logp(value, mu):
    return pm.logp(pm.Normal.dist(mu, {X}), value)

with pm.Model() as model:
    mu = pm.Normal("mu", 0.0, 1.0)
    pm.CustomDist("y", mu, logp=logp, observed=OBS)
""",
        "1.0",
        "3.0",
        "structural",
    ),
    "densitydist": (
        """
def logp(value, mu):
    return -0.5 * ((value - mu) / {X}) ** 2

with pm.Model() as model:
    mu = pm.Normal("mu", 0.0, 1.0)
    pm.DensityDist("y", mu, logp=logp, observed=OBS)
""",
        "1.0",
        "3.0",
        "structural",
    ),
    "customdist_symbolic": (
        """
def dist(mu, size):
    return pm.Normal.dist(mu, 1.0, size=size)

def logp(value, mu):
    return pm.logp(pm.Normal.dist(mu, {X}), value)

with pm.Model() as model:
    mu = pm.Normal("mu", 0.0, 1.0)
    pm.CustomDist("y", mu, dist=dist, logp=logp, observed=OBS)
""",
        "1.0",
        "3.0",
        "structural",
    ),
    "global_read": ("UPPER = {X}\n\ndef bounds(*rv_inputs):\n    return 0.0, UPPER\n" + _INTERVAL_MODEL, "2.0", "5.0", "structural"),
    "kwonly_default": (
        "def bounds(*rv_inputs, upper={X}):\n    return 0.0, upper\n" + _INTERVAL_MODEL,
        "2.0",
        "5.0",
        "structural",
    ),
    "module_attribute": ("def bounds(*rv_inputs):\n    return 0.0, math.{X}\n" + _INTERVAL_MODEL, "e", "pi", "structural"),
    "helper_module_value": (
        "import helper_consts\n\ndef bounds(*rv_inputs):\n    return 0.0, helper_consts.UPPER\n" + _INTERVAL_MODEL,
        "2.0",
        "5.0",
        "structural",
    ),
    "nested_lambda": (
        "def bounds(*rv_inputs):\n    top = lambda: {X}\n    return 0.0, top()\n" + _INTERVAL_MODEL,
        "2.0",
        "5.0",
        "structural",
    ),
    "transform_backward": (
        """
class Shift(Transform):
    name = "shift"

    def forward(self, value, *inputs):
        return value - 1.0

    def backward(self, value, *inputs):
        return value + {X}

    def log_jac_det(self, value, *inputs):
        return pt.zeros_like(value)

with pm.Model() as model:
    x = pm.Normal("x", 0.0, 1.0, transform=Shift())
    pm.Normal("y", x, 1.0, observed=OBS)
""",
        "1.0",
        "2.0",
        "structural",
    ),
    "transform_self_fn": (
        """
class FnTransform(Transform):
    name = "fn"

    def __init__(self, fn):
        self.fn = fn

    def forward(self, value, *inputs):
        return value

    def backward(self, value, *inputs):
        return self.fn(value)

    def log_jac_det(self, value, *inputs):
        return pt.zeros_like(value)

with pm.Model() as model:
    x = pm.Normal("x", 0.0, 1.0, transform=FnTransform(lambda v: v * {X}))
    pm.Normal("y", x, 1.0, observed=OBS)
""",
        "2.0",
        "3.0",
        "structural",
    ),
    "op_state_outside_props": (
        """
class Scale(Op):
    __props__ = ()

    def __init__(self, k):
        self.k = k

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * self.k

@jax_funcify.register(Scale)
def _scale_jax(op, **kwargs):
    k = op.k
    return lambda x: x * k

with pm.Model() as model:
    x = pm.Normal("x", 0.0, 1.0)
    pm.Deterministic("scaled", Scale({X})(x))
""",
        "2.0",
        "3.0",
        "structural",
    ),
    "potential_registration": (
        """
class Penalty(Op):
    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] ** 2

@jax_funcify.register(Penalty)
def _penalty_jax(op, **kwargs):
    return lambda x: x ** 2 * {X}

with pm.Model() as model:
    x = pm.Normal("x", 0.0, 1.0)
    penalty = Penalty()(x)
    pm.Potential("penalty", -penalty)
    pm.Deterministic("penalty_value", penalty)
""",
        "1.0",
        "4.0",
        "structural",
    ),
    "interval_bounds": (
        """
with pm.Model() as model:
    mu = pm.Normal("mu", 0.0, 1.0)
    x = pm.Normal("x", 0.0, 1.0, transform=Interval(lower=0.0, upper={X}))
    pm.Normal("y", mu + x, 1.0, observed=OBS)
""",
        "2.0",
        "5.0",
        "structural",
    ),
    "scan_user_fn": (
        """
DECAY = {X}

def step(x_t, acc):
    return DECAY * acc + x_t

with pm.Model() as model:
    z = pm.Normal("z", 0.0, 1.0, shape=4)
    smoothed, _ = pytensor.scan(step, sequences=[z], outputs_info=[pt.zeros(())])
    pm.Deterministic("smoothed", smoothed)
""",
        "0.5",
        "0.9",
        "structural",
    ),
    "opfromgraph": (
        """
from pytensor.compile.builders import OpFromGraph

a = pt.dscalar("a")
double = OpFromGraph([a], [a * {X} + 1.0])

with pm.Model() as model:
    x = pm.Normal("x", 0.0, 1.0)
    pm.Deterministic("doubled", double(x))
""",
        "2.0",
        "3.0",
        "structural",
    ),
    "wrap_jax": (
        """
import jax.numpy as jnp
from pytensor import wrap_jax

@wrap_jax
def softplus_scaled(x):
    return jnp.logaddexp(0.0, x) * {X}

with pm.Model() as model:
    x = pm.Normal("x", 0.0, 1.0, shape=3)
    pm.Deterministic("soft", softplus_scaled(x))
""",
        "1.0",
        "2.0",
        "structural",
    ),
    "contextvar_lowered": (
        """
import contextvars

SCALE = contextvars.ContextVar("scale", default={X})

def logp(value, mu):
    return pm.logp(pm.Normal.dist(mu, SCALE.get()), value)

with pm.Model() as model:
    mu = pm.Normal("mu", 0.0, 1.0)
    pm.CustomDist("y", mu, logp=logp, observed=OBS)
""",
        "1.0",
        "3.0",
        "lowered",
    ),
}

HELPERS: dict[str, tuple[str, str]] = {"helper_module_value": ("helper_consts.py", "UPPER = {X}\n")} | dynamic.HELPERS
CASES |= dynamic.DYNAMIC
GLOBAL_CASES = dynamic.GLOBAL
"""Cases that change process-wide state: each batch of them runs in child processes of its own."""


def write_case(directory, case: str, version: int) -> None:
    """Write the model file (and helper) of ``case`` in its ``version`` (0 or 1) into ``directory``."""
    source, *values, _ = (CASES | GLOBAL_CASES)[case]
    value = values[version]
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "model.py").write_text(_HEAD + source.replace("{X}", value))
    if case in HELPERS:
        name, text = HELPERS[case]
        (directory / name).write_text(text.replace("{X}", value))
