"""bench/streaming.py runs end to end on a tiny size, so it cannot rot."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import streaming

pytestmark = pytest.mark.slow  # fresh processes / benchmark smoke: `-m slow` runs them


def test_streaming_bench_tiny(monkeypatch, capsys):
    monkeypatch.setattr(streaming, "IN_MEMORY", ("aot:streamed(16)",))
    monkeypatch.setattr(streaming, "_free_bytes", lambda: 0)  # skip the big in-memory run
    results = streaming.main(["--big-rows", "400", "--rows", "100", "--draws", "40", "--repeats", "1"])
    big, small = results["big"], results["small"]
    assert list(big) == ["out:auto"] and big["out:auto"]["chosen"].startswith("streamed(")
    assert big["out:auto"]["store_bytes"] >= big["out:auto"]["output_bytes"] == 400 * 4 * 40 * 8 + 4 * 40 * (50 + 10 + 2) * 8
    assert list(small) == ["aot:streamed(16)", "out:auto"]
    assert all(r["measured_peak"] > 0 and r["seconds"] > 0 for r in small.values())
    text = capsys.readouterr().out
    assert "auto in memory skipped at this size" in text and "| aot:streamed(16) | streamed(16) |" in text
    assert "out= peak" in text and "the target inputs + 10% of output" in text
