"""bench/first_result.py and bench/first_run.py run end to end on a tiny model; first_result's hit imports no builder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import first_result

pytestmark = pytest.mark.slow  # fresh processes / benchmark smoke: `-m slow` runs them


def test_first_result_tiny(capsys):
    results = first_result.main(["--model", "eight_schools", "--repeats", "1", "--chains", "2", "--draws", "10"])
    r = results["eight_schools"]
    assert r["aot_modules"] == [], r["aot_modules"]
    assert r["stock_s"] > 0 and r["jax-pcc_s"] > 0 and r["aot_s"] > 0
    phases = r["aot_phases"]
    assert {"import", "fingerprint", "key", "read", "deserialize", "call"} <= set(phases)
    assert "compile" not in phases  # a hit
    assert "Where the hit's time goes" in capsys.readouterr().out


def test_first_run_tiny():
    """bench/first_run.py's three fresh processes (stock, cold, warm) on a tiny run: the children
    time the seams (a renamed seam failed the cold child before; a PyMC function replaced by the
    child once gave the model a lowered key); with ``sampler=False`` (PyMC's sampler: the
    postprocessing alone) cold and warm equal stock, and the warm run compiles nothing."""
    from bench import first_run

    r = first_run.measure("eight_schools", 1.0, 2, 10, 10, 1, sampler=False)
    assert r["same"] and r["warm_compiles"] == 0 and r["cold_compiles"] >= 1, r
    assert r["cold_sampler"] == r["warm_sampler_compiles"] == 0, r
    assert r["stock_post"] > 0 and r["cold_post"] > 0 and r["warm_post"] > 0
    assert "cold/stock total" in first_run.row(r)
