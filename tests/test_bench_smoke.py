"""Every bench script runs end to end on a tiny size, so they cannot rot."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import bakeoff, md_sections, predict, run_all, sample_repeat, warmstart

pytestmark = pytest.mark.slow  # fresh processes / benchmark smoke: `-m slow` runs them

ROOT = Path(__file__).resolve().parents[1]
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


FAKE_WARM = {
    k: 1.0
    for k in ("cold", "cold_build", "cold_lower", "cold_compile", "key", "warm", "warm_load", "jax_pcc_warm",
              "stock_cold", "warm_over_cold", "jax_pcc_over_warm", "cold_over_warm", "stock_over_warm")
}
SHARD_ROW = {"seconds": 1.0, "spread": (0.9, 1.1), "measured_peak": 2e6, "predicted_peak": 2e6, "output_bytes": 1e6}
FAKE_SHARDS = {"pymc:vmap": {**SHARD_ROW, "chosen": None}, "aot:sharded(16)@2": {**SHARD_ROW, "chosen": "sharded(16)"}}


@pytest.fixture
def faked(bake, monkeypatch) -> dict[str, list]:
    """run_all's measurements: the smoke bake-off above and stand-ins; records what was asked."""
    asked: dict[str, list] = {"streaming": [], "sharded": []}
    monkeypatch.setattr(run_all, "MODELS", {"regression": None})
    monkeypatch.setattr(run_all.bakeoff, "measure", lambda *a, **k: bake)
    monkeypatch.setattr(run_all.warmstart, "measure", lambda *a, **k: FAKE_WARM)
    monkeypatch.setattr(run_all.streaming, "report", lambda *a: asked["streaming"].append(a) or ({}, "STREAMING TABLES"))
    shard = lambda model, opts: asked["sharded"].append((model, vars(opts))) or FAKE_SHARDS
    monkeypatch.setattr(run_all.sharded, "measure", shard)
    return asked


def test_run_all_writes_the_report(faked, tmp_path):
    """The measurements are the smoke runs above; this checks the report they make."""
    text = run_all.main([*TINY, "--repeats", "1", "--out", str(tmp_path / "B.md")])
    assert (tmp_path / "B.md").read_text() == text
    assert [md_sections.heading(s) for s in md_sections.split(text)] == list(run_all.SECTIONS)
    assert "| regression |" in text and "batched" in text
    assert "STREAMING TABLES" in text and "| aot:sharded(16)@2 | sharded(16) |" in text
    assert faked["streaming"] == [(int(125_000 * 0.02), 400, 2, 20, 1)]
    assert [m for m, _ in faked["sharded"]] == ["regression", "wide_hierarchical"]
    assert faked["sharded"][0][1]["rounds"] == 3
    run_all.main([*TINY, "--quick", "--out", str(tmp_path / "Q.md")])
    assert faked["streaming"][1][0] == 0, "--quick skips the big streaming part"


def test_run_all_keeps_every_hand_written_section(faked, tmp_path):
    """On a copy of BENCHMARKS.md with a hand-written section added in the middle, --quick
    rewrites only the generated sections; every other keeps its text and its place."""
    hand = "## A note written by hand\n\nMeasured by hand.\n\n```\n## not a heading: inside a fence\n```\n\n"
    sections = md_sections.split((ROOT / "BENCHMARKS.md").read_text())
    sections.insert(len(sections) // 2, hand)
    copy = tmp_path / "BENCHMARKS.md"
    copy.write_text("".join(sections))
    kept = [s for s in sections if md_sections.heading(s) not in run_all.SECTIONS]
    assert hand in kept and any(md_sections.heading(s).startswith("## First result") for s in kept)
    for _ in range(2):  # and again on its own output
        text = run_all.main(["--quick", "--chains", "2", "--draws", "20", "--out", str(copy)])
        after = md_sections.split(text)
        generated = [md_sections.heading(s) for s in after if md_sections.heading(s) in run_all.SECTIONS]
        assert generated == list(run_all.SECTIONS)
        still = [s for s in after if md_sections.heading(s) not in run_all.SECTIONS]
        assert still[:-1] == kept[:-1] and still[-1].rstrip("\n") == kept[-1].rstrip("\n")
    assert faked["sharded"][0][1]["rounds"] == 1 and faked["sharded"][0][1]["scale"] == 0.1
