"""Every bench script runs end to end on a tiny size, so they cannot rot."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import bakeoff, predict, run_all, sample_repeat, warmstart

TINY = ["--scale", "0.02", "--chains", "2", "--draws", "20"]
METHODS = ["pymc:vmap", "pymc:scan", "aot:batched(10)", "aot:auto"]


@pytest.fixture(scope="module")
def bake():
    return bakeoff.main(["--model", "regression", *TINY, *(f"--method={m}" for m in METHODS)])


def test_bakeoff_and_predict_tiny(bake, capsys):
    rows = bake["regression"]
    assert list(rows) == METHODS
    assert all(r["measured_peak"] > 0 and r["seconds"] > 0 for r in rows.values())
    assert rows["aot:auto"]["chosen"]
    assert "| regression | batched(10) |" in predict.render(bake)


def test_warmstart_tiny(capsys):
    results = warmstart.main(["--model", "eight_schools", "--repeats", "1", *TINY])
    r = results["eight_schools"]
    assert r["warm"] > 0 and r["cold"] > r["key"] and r["stock_cold"] > 0
    assert "pymc-aot warm" in capsys.readouterr().out


def test_sample_repeat_tiny(capsys):
    results = sample_repeat.main(
        ["--model", "eight_schools", "--draws", "20", "--tune", "20", "--chains", "1", "--mode", "stock", "--mode", "aot"]
    )
    assert results["aot"][1]["aot_compiles"] == 0 and results["aot"][1]["aot_disk_hits"] == 2
    assert results["stock"][0]["postprocess"] > 0
    assert "postprocess vs stock" in capsys.readouterr().out


def test_run_all_writes_the_report(bake, tmp_path, monkeypatch):
    """The measurements are the smoke runs above; this checks the report they make."""
    monkeypatch.setattr(run_all, "MODELS", {"regression": None})
    monkeypatch.setattr(run_all.bakeoff, "measure", lambda *a, **k: bake)
    fake_warm = {k: 1.0 for k in ("cold", "cold_build", "cold_lower", "cold_compile", "key", "warm", "warm_load",
                                  "jax_pcc_warm", "stock_cold", "warm_over_cold", "jax_pcc_over_warm",
                                  "cold_over_warm", "stock_over_warm")}
    monkeypatch.setattr(run_all.warmstart, "measure", lambda *a, **k: fake_warm)
    asked = []
    monkeypatch.setattr(run_all.streaming, "report", lambda *a: asked.append(a) or ({}, "STREAMING TABLES"))
    text = run_all.main([*TINY, "--repeats", "1", "--out", str(tmp_path / "B.md")])
    assert (tmp_path / "B.md").read_text() == text
    assert "## Bake-off" in text and "| regression |" in text and "batched" in text
    assert "## Streaming" in text and "STREAMING TABLES" in text
    assert asked == [(int(125_000 * 0.02), 400, 2, 20, 1)]
    run_all.main([*TINY, "--quick", "--out", str(tmp_path / "Q.md")])
    assert asked[1][0] == 0, "--quick skips the big streaming part"
