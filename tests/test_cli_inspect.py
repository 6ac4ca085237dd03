"""inspect shows what the user asked for: auto's candidates fold under their entry; stats and clear agree."""

from __future__ import annotations

import json
from pathlib import Path

import pymc.sampling.jax  # noqa: F401 - PyMC's host CPU devices, before JAX starts (the sharded test)
import pytest

from pymc_aot.cache import CacheStore
from pymc_aot.cache.entry import EntryMetadata
from pymc_aot.render import human_bytes
from pymc_aot.runtime.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCHOOLS = str(ROOT / "examples" / "eight_schools.py")
SHAPE = ("--chains", "2", "--draws", "20")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def table_rows(text: str) -> list[list[str]]:
    """The data rows of a plain-text table (between the dashed rule and the caption)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if set(line.replace(" ", "")) == {"-"}) + 1
    return [line.split() for line in lines[start:] if line.strip() and "folded" not in line]


def build(root: Path) -> Path:
    assert main(["precompile", SCHOOLS, *SHAPE, "--log-likelihood", "--cache-dir", str(root)]) == 0
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """Two auto entries (posterior, log-likelihood) and the candidates they compiled; read only."""
    return build(tmp_path_factory.mktemp("inspect") / "cache")


def test_inspect_shows_one_row_per_requested_transform(capsys, built):
    records = CacheStore(built).entries()
    assert len(records) > 2, "auto stores its candidates as executables of their own"
    code, out, _ = run(capsys, "inspect", "--cache-dir", str(built))
    assert code == 0
    rows = table_rows(out)
    assert len(rows) == 2
    assert sorted(r[2] for r in rows) == ["log_likelihood", "posterior"]
    assert all(r[4].startswith("auto:") for r in rows)
    assert f"{len(records) - 2} auto candidates folded" in out


def test_inspect_json_nests_candidates_under_their_entry(capsys, built):
    records = {r.digest: r for r in CacheStore(built).entries()}
    code, out, _ = run(capsys, "inspect", "--json", "--cache-dir", str(built))
    entries = json.loads(out)["entries"]
    assert code == 0 and len(entries) == 2
    top = {e["key"] for e in entries}
    nested = [c for e in entries for c in e["candidates"]]
    assert top | {c["key"] for c in nested} == set(records), "every executable appears once, as entry or candidate"
    assert not top & {c["key"] for c in nested}
    for entry in entries:
        assert entry["role"] == "auto"
        listed = [c["key"] for c in records[entry["key"]].metadata["auto"]["candidates"]]
        assert [c["key"] for c in entry["candidates"]] == listed
        (chosen,) = [c for c in entry["candidates"] if c["chosen"]]
        assert entry["strategy"] == f"auto:{chosen['strategy']}"
        assert all(c["stored"] and c["memory"]["peak"] > 0 and "fits" in c for c in entry["candidates"])


def test_inspect_all_lists_every_executable(capsys, built):
    n = len(CacheStore(built).entries())
    code, out, _ = run(capsys, "inspect", "--all", "--cache-dir", str(built))
    rows = table_rows(out)
    assert code == 0 and len(rows) == n
    assert sorted({r[5] for r in rows}) == ["auto", "candidate"]
    code, out, _ = run(capsys, "inspect", "--all", "--json", "--cache-dir", str(built))
    entries = json.loads(out)["entries"]
    assert len(entries) == n and not any("candidates" in e for e in entries if e["role"] == "candidate")


def test_inspect_key_shows_the_candidates_and_a_candidate_its_owner(capsys, built):
    auto = next(r for r in CacheStore(built).entries() if r.metadata.get("auto"))
    code, out, _ = run(capsys, "inspect", auto.digest[:10], "--cache-dir", str(built))
    assert code == 0
    for candidate in auto.metadata["auto"]["candidates"]:
        assert candidate["key"][:12] in out and candidate["strategy"] in out
    assert f"{auto.metadata['auto']['chosen']} *" in out
    first = auto.metadata["auto"]["candidates"][0]["key"]
    code, out, _ = run(capsys, "inspect", first[:12], "--cache-dir", str(built))
    assert code == 0 and f"a candidate of {auto.digest[:12]}" in out and "(candidate)" in out
    code, out, _ = run(capsys, "inspect", first[:12], "--json", "--cache-dir", str(built))
    assert json.loads(out)["entry"]["candidate_of"] == [auto.digest]


def test_stats_counts_entries_and_executables(capsys, built):
    n = len(CacheStore(built).entries())
    code, out, _ = run(capsys, "stats", "--json", "--cache-dir", str(built))
    doc = json.loads(out)
    assert code == 0 and doc["entries"] == 2 and doc["executables"] == n and doc["candidates"] == n - 2
    code, out, _ = run(capsys, "stats", "--cache-dir", str(built))
    assert f"entries      2, backed by {n} executables ({n - 2} of them auto candidates)" in out


def test_a_candidate_asked_for_directly_is_an_entry(capsys, tmp_path):
    root = build(tmp_path / "cache")
    capsys.readouterr()
    store = CacheStore(root)
    auto = next(r for r in store.entries() if r.metadata.get("auto") and r.metadata["key"]["kind"] == "posterior")
    listed = auto.metadata["auto"]["candidates"]
    flagged, hit = listed[0]["key"], listed[1]["key"]
    payload, meta = store.get(flagged)
    store.put(flagged, payload, {**{k: v for k, v in meta.items() if k not in ("digest", "format")}, "requested": True})
    store.record_hit(hit)  # what a direct postprocess(strategy=...) of that candidate leaves behind
    code, out, _ = run(capsys, "inspect", "--json", "--cache-dir", str(root))
    roles = {e["key"]: e["role"] for e in json.loads(out)["entries"]}
    assert roles[flagged] == "explicit" and roles[hit] == "explicit" and len(roles) == 4
    code, out, _ = run(capsys, "stats", "--json", "--cache-dir", str(root))
    assert code == 0 and json.loads(out)["entries"] == 4


def test_clear_takes_an_auto_entrys_candidates_along(capsys, tmp_path):
    root = build(tmp_path / "cache")
    capsys.readouterr()
    records = CacheStore(root).entries()
    auto = next(r for r in records if r.metadata.get("auto") and r.metadata["key"]["kind"] == "posterior")
    n_candidates = len(auto.metadata["auto"]["candidates"])
    code, out, _ = run(capsys, "clear", auto.digest[:12], "--yes", "--cache-dir", str(root))
    assert code == 0 and f"removed 1 entry and {n_candidates} auto candidates" in out
    left = CacheStore(root).entries()
    assert len(left) == len(records) - 1 - n_candidates
    assert {r.metadata["key"]["kind"] for r in left} == {"log_likelihood"}
    code, out, _ = run(capsys, "clear", "--all", "--yes", "--cache-dir", str(root))
    assert code == 0 and f"removed 1 entry and {len(left) - 1} auto candidates" in out


def test_precompiling_a_candidate_explicitly_lists_it(capsys, tmp_path):
    root = build(tmp_path / "cache")
    capsys.readouterr()
    code, out, _ = run(
        capsys, "precompile", SCHOOLS, *SHAPE, "--strategy", "scan_vmap", "--json", "--cache-dir", str(root)
    )
    (entry,) = json.loads(out)["entries"]
    assert code == 0 and entry["cached"], "auto compiled it already"
    code, out, _ = run(capsys, "inspect", "--json", "--cache-dir", str(root))
    roles = {e["key"]: e["role"] for e in json.loads(out)["entries"]}
    assert roles[entry["key"]] == "explicit" and len(roles) == 3


def test_the_library_flags_what_was_asked_for(capsys, built, tmp_path):
    records = CacheStore(built).entries()
    assert not any(r.metadata.get("requested") for r in records), "auto's candidates are not requested"
    root = tmp_path / "cache"
    assert main(["precompile", SCHOOLS, *SHAPE, "--strategy", "nested_scan", "--cache-dir", str(root)]) == 0
    (record,) = CacheStore(root).entries()
    assert record.metadata["requested"] is True and EntryMetadata.from_json(record.metadata).requested


def test_metadata_this_schema_cannot_read_is_stale_not_listed(capsys, tmp_path):
    root = tmp_path / "cache"
    assert CacheStore(root).put("e" * 64, b"executable", {"schema": 99, "key": {}})
    code, out, _ = run(capsys, "inspect", "--json", "--cache-dir", str(root))
    assert code == 0 and json.loads(out)["entries"] == []
    code, out, _ = run(capsys, "clear", "--stale", "--yes", "--cache-dir", str(root))
    assert code == 0 and "removed 1 entry" in out and CacheStore(root).entries() == []


def test_inspect_labels_a_sharded_entrys_memory_per_device(capsys, tmp_path):
    """XLA's memory analysis of a sharded executable is one device's: inspect says so, and sums."""
    root = str(tmp_path / "cache")
    args = ("precompile", SCHOOLS, "--chains", "4", "--draws", "20", "--strategy", "sharded(5)", "--devices", "2")
    code, out, _ = run(capsys, *args, "--cache-dir", root)
    assert code == 0 and "sharded: input, output, temp and peak are per device" in out, out
    (record,) = CacheStore(root).entries()
    peak = EntryMetadata.from_json(record.metadata).peak
    code, out, _ = run(capsys, "inspect", record.digest[:12], "--cache-dir", root)
    (memory,) = [line for line in out.splitlines() if line.startswith("memory")]
    assert code == 0 and "per device (2 devices): input" in memory, memory
    assert memory.endswith("over all 2 devices") and human_bytes(2 * peak) in memory, memory
    code, out, _ = run(capsys, "inspect", "--cache-dir", root)
    assert code == 0 and f"{human_bytes(peak)} per device x2" in out, out
    code, out, _ = run(capsys, "inspect", "--json", "--cache-dir", root)
    (entry,) = json.loads(out)["entries"]
    assert entry["mesh"] == {"devices": 2, "device_ids": [0, 1], "memory": "per device", "total_peak": 2 * peak}
