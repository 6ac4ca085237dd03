"""A user edits one thing in a model file; the next run, in a fresh process on the first run's
cache, must return what stock PyMC returns for the edited model, never the old numbers.

Three fresh processes share one cache: the first runs every case's first version (compiles,
stores), the second runs the same files again (must load every entry from disk: keys of
models holding user code are stable across processes), the third runs the edited files.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from children import run_child
from reference import assert_same
from twins import CASES, GLOBAL_CASES, write_case

ALL = CASES | GLOBAL_CASES
BATCHES = (list(CASES), list(GLOBAL_CASES))

pytestmark = pytest.mark.slow  # fresh processes / benchmark smoke: `-m slow` runs them


def _run(tmp: Path, out: str, cases: list[Path]) -> dict:
    # a rewritten file of the same size in the same second would reuse a stale .pyc
    env = {"PYMC_AOT_CACHE_DIR": str(tmp / "cache"), "PYTHONDONTWRITEBYTECODE": "1"}
    return run_child("child_twin.py", tmp / out, *cases, env=env, timeout=900)


@pytest.fixture(scope="module")
def twins(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("twins")
    out: dict = {"tmp": tmp, "first": {}, "again": {}, "second": {}}
    for batch in BATCHES:  # process-wide changes (GLOBAL_CASES) never share a process with the others
        dirs = [tmp / "models" / case for case in batch]
        for case, directory in zip(batch, dirs, strict=True):
            write_case(directory, case, 0)
        out["first"] |= _run(tmp, "first", dirs)
        out["again"] |= _run(tmp, "again", dirs)
        for case, directory in zip(batch, dirs, strict=True):
            write_case(directory, case, 1)
        out["second"] |= _run(tmp, "second", dirs)
    return out


def _arrays(tmp: Path, run: str, case: str) -> tuple[dict, dict]:
    data = np.load(tmp / run / f"{case}.npz")
    ours = {k.removeprefix("ours/"): data[k] for k in data.files if k.startswith("ours/")}
    stock = {k.removeprefix("stock/"): data[k] for k in data.files if k.startswith("stock/")}
    return ours, stock


@pytest.mark.parametrize("case", list(ALL))
def test_edited_twin_equals_stock_pymc(twins, case):
    tmp = twins["tmp"]
    first_ours, first_stock = _arrays(tmp, "first", case)
    assert_same(first_ours, first_stock)
    second_ours, second_stock = _arrays(tmp, "second", case)
    assert_same(second_ours, second_stock)
    # the edit changes the numbers: the first version's executable would have been wrong
    assert any(not np.allclose(first_stock[k], second_stock[k]) for k in first_stock), "the twins compute the same"
    # at least the changed output is rebuilt (a lowered key may still share the unchanged one)
    assert twins["second"][case]["compiles"] > 0


@pytest.mark.parametrize("case", list(ALL))
def test_unedited_model_hits_from_disk_in_a_fresh_process(twins, case):
    again = twins["again"][case]
    assert again["compiles"] == 0 and again["disk_hits"] > 0, again
    ours, _ = _arrays(twins["tmp"], "again", case)
    first, _ = _arrays(twins["tmp"], "first", case)
    for name, expected in first.items():
        np.testing.assert_array_equal(ours[name], expected, err_msg=name)


@pytest.mark.parametrize("case", list(ALL))
def test_key_kind_is_structural_unless_the_model_cannot_be_described(twins, case):
    expected = ALL[case][3]
    for run in ("first", "second"):
        report = twins[run][case]
        assert report["key_kinds"] == [expected], report
        assert report["exact"] is (expected == "structural"), report
    if case == "contextvar_lowered":
        reasons = twins["first"][case]["reasons"]
        assert reasons and "observed variable 'y'" in reasons[0] and "ContextVar" in reasons[0], reasons
