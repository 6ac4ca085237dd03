"""What differs between PyMC 5 / PyTensor 2 and PyMC 6 / PyTensor 3, checked on the installed line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pymc as pm
import pymc.sampling.jax as pymc_jax
import pytensor.tensor as pt
import pytest
from pytensor.compile.builders import OpFromGraph
from pytensor.graph.traversal import ancestors
from zoo import ZOO, time_series

from pymc_aot import aot
from pymc_aot.aot.compat import is_inner_graph

ROOT = Path(__file__).resolve().parents[1]
SCHOOLS = str(ROOT / "examples" / "eight_schools.py")


def _ops_with_inner_graphs(model: pm.Model) -> list:
    ops = []
    for var in ancestors([*model.free_RVs, *model.deterministics]):
        op = getattr(var.owner, "op", None)
        if op is not None and hasattr(op, "fgraph") and op not in ops:
            ops.append(op)
    return ops


def test_every_inner_graph_is_recognised():
    """The AR's OpFromGraph and the user's Scan: their inner graphs are described, whatever
    class this PyTensor keeps them in (FrozenFunctionGraph since 3.0)."""
    ops = _ops_with_inner_graphs(time_series())
    assert {type(op).__name__ for op in ops} >= {"Scan", "AutoRegressiveRV"}
    for op in ops:
        assert is_inner_graph(op.fgraph), type(op.fgraph)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            n,
            marks=pytest.mark.xfail(
                strict=True,
                reason="PyMC constant-folds CholeskyCovPacked.diag_idxs in place when it compiles the logp",
            ),
        )
        if n == "lkj"
        else n
        for n in ZOO
    ],
)
def test_fingerprint_survives_using_the_model(name):
    """Compiling the model's logp and gradient (what every sampler does first) and building a
    second copy of the model leave the fingerprint unchanged."""
    model = ZOO[name]()
    before = aot.fingerprint_model(model).model_hash
    model.compile_logp()
    model.compile_dlogp()
    pymc_jax.get_jaxified_logp(model)
    assert aot.fingerprint_model(model).model_hash == before
    assert aot.fingerprint_model(ZOO[name]()).model_hash == before


def _with_op_from_graph(shift: float) -> tuple[pm.Model, OpFromGraph]:
    a, b = pt.dscalar("a"), pt.dscalar("b")
    op = OpFromGraph([a, b], [a * b + shift], lop_overrides=lambda i, o, g: [g[0] * i[1], g[0] * i[0]])
    with pm.Model() as model:
        x, y = pm.Normal("x"), pm.Normal("y")
        pm.Normal("obs", pm.Deterministic("d", op(x, y)), 1.0, observed=[0.3, 0.1])
    return model, op


def test_op_from_graph_state_filled_on_use_is_not_hashed():
    """PyTensor 3 fills an OpFromGraph's frozen gradient override when two such ops are
    compared (rewrites do this); the forward result, and so the key, is the same."""
    model, op = _with_op_from_graph(1.0)
    before = aot.fingerprint_model(model).model_hash
    _, other = _with_op_from_graph(1.0)
    _ = op == other  # PyTensor 3 fills the lazily frozen overrides here (2.x compares identity)
    assert aot.fingerprint_model(model).model_hash == before
    assert aot.fingerprint_model(_with_op_from_graph(2.0)[0]).model_hash != before, "the inner graph is hashed"


def _constants_model(shared: bool, value: float = 1.5) -> pm.Model:
    with pm.Model() as model:
        x = pm.Normal("x")
        c1 = pt.constant(value)
        c2 = c1 if shared else pt.constant(value)
        pm.Deterministic("d", x * c1 + c2)
    return model


def test_equal_constants_hash_alike_whether_one_object_or_two():
    """PyTensor 3 interns inner graphs, so whether equal constants are one object depends on
    what was built before; the fingerprint must not."""
    one = aot.fingerprint_model(_constants_model(shared=True)).model_hash
    assert aot.fingerprint_model(_constants_model(shared=False)).model_hash == one
    assert aot.fingerprint_model(_constants_model(shared=False, value=2.5)).model_hash != one


def test_a_hashed_frozendict_in_an_op_is_not_hashed_differently():
    """An Elemwise keeps its ``inplace_pattern`` in a frozendict that caches its own hash on
    first ``hash()``; PyTensor 3 interns ops, so whether that happened depends on what the
    process did before (importing ``pytensor.xtensor`` does it). The key must not."""
    model = ZOO["zerosum"]()
    before = aot.fingerprint_model(model).model_hash
    for var in ancestors([*model.free_RVs, *model.observed_RVs]):
        pattern = getattr(getattr(var.owner, "op", None), "inplace_pattern", None)
        if pattern is not None:
            hash(pattern)
    assert aot.fingerprint_model(model).model_hash == before


OTHER = os.environ.get("PYMC_AOT_OTHER_PYTHON")


def _cli(python: str, cache: Path, *args: str) -> dict:
    env = dict(os.environ, PYMC_AOT_CACHE_DIR=str(cache), PYTHONWARNINGS="ignore")
    done = subprocess.run([python, "-m", "pymc_aot", *args], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout) if "--json" in args else {"out": done.stdout, "err": done.stderr}


def _pymc_version(python: str) -> str:
    code = "from importlib.metadata import version; print(version('pymc'))"
    return subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120).stdout.strip()


@pytest.mark.slow
@pytest.mark.skipif(not OTHER, reason="PYMC_AOT_OTHER_PYTHON (an interpreter with the other PyMC line) not set")
def test_cache_from_another_pymc_line_is_never_loaded_and_is_stale(tmp_path):
    """One cache root, two interpreters: what the other PyMC line compiled is not loaded here,
    and ``clear --stale`` run here removes exactly that."""
    assert _pymc_version(OTHER).split(".")[0] != pm.__version__.split(".")[0], "needs the other major version"
    cache = tmp_path / "cache"
    shape = ("--chains", "2", "--draws", "20", "--strategy", "vmap", "--json")
    theirs = _cli(OTHER, cache, "precompile", SCHOOLS, *shape)["entries"][0]
    assert not theirs["cached"]
    ours = _cli(sys.executable, cache, "precompile", SCHOOLS, *shape)["entries"][0]
    assert not ours["cached"], "an entry compiled under the other PyMC line was loaded"
    assert ours["key"] != theirs["key"]
    listed = {e["key"] for e in _cli(sys.executable, cache, "inspect", "--json")["entries"]}
    assert listed == {ours["key"], theirs["key"]}
    _cli(sys.executable, cache, "clear", "--stale", "--yes")
    assert {e["key"] for e in _cli(sys.executable, cache, "inspect", "--json")["entries"]} == {ours["key"]}
    again = _cli(sys.executable, cache, "precompile", SCHOOLS, *shape)["entries"][0]
    assert again["cached"] and again["key"] == ours["key"]
