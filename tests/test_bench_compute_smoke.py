"""bench/compute.py runs end to end on a tiny size, so it cannot rot."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import compute

pytestmark = pytest.mark.slow  # fresh processes / benchmark smoke: `-m slow` runs them


def test_compute_bench_tiny(capsys):
    tiny = ["--scale", "0.02", "--chains", "2", "--draws", "20"]
    results = compute.main(["--model", "regression", "--function", "deterministics", *tiny])
    rows = results["regression"]
    assert list(rows) == ["deterministics"]
    for r in rows.values():
        assert r["pymc"] > 0 and r["warm"] > 0 and r["cold_compiles"] > 0
        assert min(r["pymc_peak"], r["cold_peak"], r["warm_peak"]) > 0
        assert r["checksum_rel_diff"] < 1e-9
    assert "| regression | deterministics |" in capsys.readouterr().out
