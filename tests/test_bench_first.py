"""bench/first_result.py runs end to end on a tiny model, and its hit imports no builder."""

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
