"""Twins that change process-wide state PyMC's and PyTensor's versioned code reads (issue 26):
a module-level function of PyTensor replaced, a user ``PatternNodeRewriter`` registered, a user
``EquilibriumGraphRewriter`` of versioned rewriters registered in ``optdb``, a rewrite's tags
removed. Each pair runs in processes of its own on a cache of its own: A fills it, B (fresh
process) must return what stock PyMC returns for B, never A's numbers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from children import run_child
from reference import assert_same
from twins import _HEAD

pytestmark = pytest.mark.slow  # fresh processes

_X = """
with pm.Model() as model:
    x = pm.Normal("x", 0.0, 1.0, shape=3)
    pm.Deterministic("d", {expr})
"""

CASES: dict[str, tuple[str, str, str, str]] = {
    # (source with {X}, A's value, B's value, the key B gets)
    "replaced_module_function": (
        "import pymc.logprob.transforms\n\n_exp = pytensor.tensor.exp\n\n"
        "def my_exp(x):\n    return _exp(x) * {X}\n\n"
        "pymc.logprob.transforms.pt.exp = my_exp  # the name PyMC's LogTransform.backward reads\n\n"
        "with pm.Model() as model:\n    s = pm.HalfNormal(\"s\", 1.0)\n    pm.Deterministic(\"s_out\", s + 0.0)\n",
        "1.0", "2.0", "lowered",
    ),
    "user_pattern_rewriter": (
        "from pytensor.graph.rewriting.basic import PatternNodeRewriter\n"
        "from pytensor.tensor.rewriting.basic import register_specialize\n\n"
        'register_specialize(PatternNodeRewriter((pt.sin, "x"), (pt.{X}, "x"), name="user_pattern"))\n'
        + _X.format(expr="pt.sin(x)"),
        "cos", "tanh", "structural",
    ),
    "user_equilibrium_rewriter": (
        "from pytensor.compile.mode import optdb\n"
        "from pytensor.graph.rewriting.basic import EquilibriumGraphRewriter, PatternNodeRewriter\n\n"
        'members = [PatternNodeRewriter((pt.sin, "x"), (pt.{X}, "x"))]\n'
        'optdb.register("user_equilibrium", EquilibriumGraphRewriter(members, max_use_ratio=10), "fast_run", "jax",'
        " position=0.5)\n" + _X.format(expr="pt.sin(x)"),
        "cos", "tanh", "structural",
    ),
    "removed_tags": (
        # B takes the stabilisation log1p(exp(.)) -> softplus out of fast_run: overflow to inf
        "from pytensor.compile.mode import optdb\n\n"
        'optdb["stabilize"].remove_tags("{X}", "fast_run")\n' + _X.format(expr="pt.log1p(pt.exp(x * 1000.0))"),
        "local_1msigmoid", "local_log1p_plusminus_exp", "structural",
    ),
}


def _write(directory: Path, case: str, version: int) -> Path:
    source, *values, _ = CASES[case]
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "model.py").write_text(_HEAD + source.replace("{X}", values[version]))
    return directory


def _arrays(out: Path, name: str) -> tuple[dict, dict]:
    data = np.load(out / f"{name}.npz")
    ours = {k.removeprefix("ours/"): data[k] for k in data.files if k.startswith("ours/")}
    stock = {k.removeprefix("stock/"): data[k] for k in data.files if k.startswith("stock/")}
    return ours, stock


@pytest.mark.parametrize("case", list(CASES))
def test_twin_b_on_a_cache_equals_stock_pymc(tmp_path, case):
    env = {"PYMC_AOT_CACHE_DIR": str(tmp_path / "cache"), "PYTHONDONTWRITEBYTECODE": "1"}
    first = run_child("child_twin.py", tmp_path / "a", _write(tmp_path / "m" / case, case, 0), env=env, timeout=900)
    second = run_child("child_twin.py", tmp_path / "b", _write(tmp_path / "m" / case, case, 1), env=env, timeout=900)
    a_ours, a_stock = _arrays(tmp_path / "a", case)
    b_ours, b_stock = _arrays(tmp_path / "b", case)
    assert_same(a_ours, a_stock)
    assert any(not np.allclose(a_stock[k], b_stock[k]) for k in a_stock), "the twins compute the same"
    assert_same(b_ours, b_stock)  # not A's numbers from the cache
    assert second[case]["compiles"] > 0, second
    assert second[case]["key_kinds"] == [CASES[case][3]], second
    assert first[case]["exact"] is (CASES[case][3] == "structural"), first
