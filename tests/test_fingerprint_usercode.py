"""What the structural fingerprint sees of user code, and what it refuses to guess (in one process;
test_key_twins.py checks the same across processes against stock PyMC)."""

from __future__ import annotations

import contextvars
import math
import sys
import types
from pathlib import Path

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
from pymc.logprob.transforms import Transform
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from zoo import ZOO

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pymc_aot.aot.identity.describe import Describer
from pymc_aot.aot.identity.fingerprint import fingerprint_model
from pymc_aot.aot.identity.trust import is_versioned_class, is_versioned_function


def _describe(obj) -> tuple:
    d = Describer()
    return d.describe(obj), tuple(d.state.reasons)


def _same(a, b) -> bool:
    (da, ra), (db, rb) = _describe(a), _describe(b)
    assert not ra and not rb, (ra, rb)
    return da == db


def _exec(source: str, name: str = "f", namespace: dict | None = None):
    ns = {"__name__": "user_module", **(namespace or {})}
    exec(compile(source, "<generated>", "exec"), ns)  # no file, no source: still described exactly
    return ns[name]


def test_every_zoo_model_gets_an_exact_structural_fingerprint():
    from bench.models import MODELS

    builders = {**ZOO, **{f"bench/{k}": (lambda f=f: f(0.05)) for k, f in MODELS.items()}}
    for name, build in builders.items():
        fp = fingerprint_model(build())
        assert fp.exact and fp.key_kind == "structural" and not fp.reasons, (name, fp.reasons)


def test_function_changes_that_bytecode_alone_misses():
    assert not _same(_exec("def f(x):\n    g = lambda: 1.0\n    return g()"), _exec("def f(x):\n    g = lambda: 2.0\n    return g()"))
    assert not _same(_exec("def f(x, *, k=1.0):\n    return k"), _exec("def f(x, *, k=2.0):\n    return k"))
    assert not _same(_exec("def f(x):\n    return C", namespace={"C": 1.0}), _exec("def f(x):\n    return C", namespace={"C": 2.0}))
    assert not _same(_exec("def f(x):\n    return math.e", namespace={"math": math}), _exec("def f(x):\n    return math.pi", namespace={"math": math}))
    assert _same(_exec("def f(x):\n    return C", namespace={"C": 1.0}), _exec("def f(x):\n    return C", namespace={"C": 1.0}))


def test_module_attribute_values_are_read_at_describe_time():
    helper = types.ModuleType("helper_for_test")
    helper.UPPER = 1.0
    f = _exec("def f(x):\n    return helper.UPPER", namespace={"helper": helper})
    before, _ = _describe(f)
    helper.UPPER = 2.0
    after, _ = _describe(f)
    assert before != after


def test_functions_calling_each_other_and_self_referencing_objects_are_described():
    ns: dict = {}
    exec("def a(n):\n    return b(n - 1) if n else 0\ndef b(n):\n    return a(n)\n", ns)
    description, reasons = _describe(ns["a"])
    assert not reasons and description == _describe(ns["a"])[0]
    holder = types.SimpleNamespace()
    holder.me = holder
    assert not _describe(holder)[1]


class _Shift(Transform):
    name = "shift"

    def __init__(self, func, **attrs):
        self.func = func
        self.__dict__.update(attrs)

    def forward(self, value, *inputs):
        return value

    def backward(self, value, *inputs):
        return self.func(value)


@pytest.mark.parametrize("attribute", ["fn", "mode", "my_cache", "thunk"])
def test_no_attribute_of_user_objects_is_skipped_by_name(attribute):
    a = _Shift(lambda v: v, **{attribute: 1.0})
    b = _Shift(lambda v: v, **{attribute: 2.0})
    assert not _same(a, b)
    assert not _same(_Shift(lambda v: v + 1.0), _Shift(lambda v: v + 2.0))


class _Scale(Op):
    __props__ = ()

    def __init__(self, k):
        self.k = k

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * self.k


def test_user_op_state_outside_props_changes_the_fingerprint():
    def model(k):
        with pm.Model() as m:
            x = pm.Normal("x")
            pm.Deterministic("d", _Scale(k)(x) + _Scale(1.0)(x))
        return m

    assert _Scale(2.0) == _Scale(3.0), "equal by PyTensor's props contract"
    assert fingerprint_model(model(2.0)).model_hash != fingerprint_model(model(3.0)).model_hash
    assert fingerprint_model(model(2.0)).model_hash == fingerprint_model(model(2.0)).model_hash


def test_customdist_classes_are_user_code_and_normal_rv_is_versioned():
    with pm.Model() as m:
        pm.CustomDist("y", 0.0, logp=lambda v, mu: -((v - mu) ** 2), observed=np.zeros(2))
    custom_type = type(m["y"].owner.op)
    # made on the fly by PyMC (its __module__ claims "abc"): not reachable by name, so user code
    assert custom_type.__qualname__ == "CustomDist_y" and not is_versioned_class(custom_type)
    assert is_versioned_class(type(pm.Normal.dist().owner.op))
    assert is_versioned_function(pm.logp) and not is_versioned_function(lambda: 0)


def test_undescribable_objects_are_reported_never_guessed():
    var = contextvars.ContextVar("scale", default=1.0)
    f = _exec("def f(value, mu):\n    return VAR.get()", namespace={"VAR": var})
    with pm.Model() as m:
        mu = pm.Normal("mu")
        pm.CustomDist("y", mu, logp=f, observed=np.zeros(3))
    fp = fingerprint_model(m)
    assert not fp.exact and fp.key_kind == "structural"
    assert len(fp.reasons) == 1 and "observed variable 'y'" in fp.reasons[0] and "global 'VAR'" in fp.reasons[0]
    assert "ContextVar" in fp.reasons[0]


def test_compiled_objects_outside_versioned_packages_are_not_trusted():
    fake = types.ModuleType("compiled_ext")
    fake.__file__ = "/somewhere/compiled_ext.cpython-311-x86_64-linux-gnu.so"
    sys.modules["compiled_ext"] = fake
    try:
        cls = type("Kernel", (), {"__module__": "compiled_ext", "__slots__": ()})
        _, reasons = _describe(cls())
        assert reasons and "compiled class" in reasons[0]
    finally:
        del sys.modules["compiled_ext"]


def test_builtins_and_numpy_callables_are_named():
    for fn in (len, math.exp, np.exp, np.sum, np.random.default_rng(0).normal):
        _, reasons = _describe(fn)
        assert not reasons, (fn, reasons)
    assert not _same(np.random.default_rng(0), np.random.default_rng(1))


_REWRITE_CHILD = """
import pytensor.tensor as pt
from pytensor.graph.rewriting.basic import node_rewriter
from pytensor.tensor.rewriting.basic import register_canonicalize
from zoo import scalars
from pymc_aot.aot.identity.fingerprint import fingerprint_model

before = fingerprint_model(scalars())

@register_canonicalize
@node_rewriter([pt.exp])
def {name}(fgraph, node):
    return [pt.exp(node.inputs[0]) * {factor}]

after = fingerprint_model(scalars())
print(before.model_hash, after.model_hash, after.exact, after.reasons)
"""


@pytest.mark.slow
def test_a_rewrite_registered_by_user_code_is_part_of_every_key():
    # a registered rewrite stays for the whole process: run it in a child
    import subprocess

    def run(factor: str) -> list[str]:
        code = _REWRITE_CHILD.replace("{name}", "scale_exp").replace("{factor}", factor)
        env = {**__import__("os").environ, "PYTHONPATH": str(Path(__file__).parent)}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.split()

    two, three = run("2.0"), run("3.0")
    assert two[0] == three[0], "the same model before any rewrite is registered"
    assert two[1] != two[0] and three[1] != two[1] and two[2] == "True"


def test_names_read_through_strings_count_and_run_time_lookups_are_refused():
    helper = types.ModuleType("helper_strings")
    helper.UPPER = 1.0
    f = _exec("def f(x):\n    return getattr(helper, 'UPPER')", namespace={"helper": helper})
    before, reasons = _describe(f)
    helper.UPPER = 2.0
    assert not reasons and _describe(f)[0] != before
    g = _exec("def f(x):\n    return globals()['SCALE']", namespace={"SCALE": 1.0})
    _, reasons = _describe(g)
    assert reasons and "looks names up at run time (globals)" in reasons[0]


def test_zoo_descriptions_do_not_depend_on_whether_the_jax_backend_is_imported():
    # PyTensor's JAX dispatch is imported lazily on a cache hit; registrations found there must
    # add nothing for models without user code, or a hit would key differently from its compile
    from pytensor.graph.traversal import ancestors

    from pymc_aot.aot.identity.dispatch import registrations

    lazy = {"jax_funcify", "jax_funcify_scalar_op_via_py_operators"}
    for name, build in ZOO.items():
        model = build()
        outputs = [*model.free_RVs, *model.observed_RVs, *model.deterministics]
        for var in ancestors(outputs):
            for op in (getattr(var.owner, "op", None), getattr(getattr(var.owner, "op", None), "scalar_op", None)):
                if op is not None:
                    found = {registry for registry, _ in registrations(type(op))}
                    assert not found & lazy, (name, type(op), found)


def test_a_module_in_a_closure_or_default_is_what_the_function_reads_of_it():
    helper = types.ModuleType("helper_closure")
    helper.UPPER = 1.0

    def make(mod):
        def f(x, m=mod):
            return mod.UPPER + m.UPPER

        return f

    f = make(helper)
    before, reasons = _describe(f)
    helper.UPPER = 2.0
    assert not reasons and _describe(f)[0] != before
    _, reasons = _describe(types.SimpleNamespace(backend=helper))
    assert reasons and "holds the user module helper_closure" in reasons[0]
