"""Every bench script runs end to end on a tiny size, so they cannot rot."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import bakeoff, predict, run_all, sample_repeat, warmstart  # noqa: E402

TINY = ["--scale", "0.02", "--chains", "2", "--draws", "20"]


def test_bakeoff_and_predict_tiny(capsys):
    results = bakeoff.main(["--model", "regression", *TINY])
    rows = results["regression"]
    assert set(rows) == set(bakeoff.METHODS)
    assert all(r["measured_peak"] > 0 and r["seconds"] > 0 for r in rows.values())
    assert "peak / output" in capsys.readouterr().out
    assert "| regression |" in predict.render(results)


def test_warmstart_tiny(capsys):
    results = warmstart.main(["--model", "eight_schools", "--repeats", "1", *TINY])
    r = results["eight_schools"]
    assert r["warm"] > 0 and r["cold"] > r["key"] and r["stock_cold"] > 0
    assert "pymc-aot warm" in capsys.readouterr().out


def test_sample_repeat_tiny(capsys):
    results = sample_repeat.main(["--model", "eight_schools", "--draws", "20", "--tune", "20", "--chains", "1"])
    assert results["aot"][1]["aot_compiles"] == 0 and results["aot"][1]["aot_disk_hits"] == 2
    assert results["stock"][0]["aot_compiles"] == 0 and results["stock"][0]["postprocess"] > 0
    assert "postprocess vs stock" in capsys.readouterr().out


def test_run_all_tiny(tmp_path, monkeypatch):
    monkeypatch.setattr(run_all, "MODELS", {"eight_schools": None})
    text = run_all.main([*TINY, "--repeats", "1", "--out", str(tmp_path / "B.md")])
    assert (tmp_path / "B.md").read_text() == text and "## Bake-off" in text and "eight_schools" in text
