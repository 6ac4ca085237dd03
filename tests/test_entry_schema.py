"""The stored metadata's one description: reads what earlier versions wrote, round-trips, refuses others."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pymc_aot.cache.entry import SCHEMA_VERSION, EntryMetadata

# Written by pymc-aot before the schema existed: a batched(3) entry and an auto entry (chose vmap).
BEFORE = json.loads((Path(__file__).parent / "data" / "metadata_before_schema.json").read_text())


def test_reads_entries_written_before_the_schema():
    batched = EntryMetadata.from_json(BEFORE["batched"])
    assert batched.label == "batched(3)" and batched.chosen == "batched(3)" and batched.auto is None
    assert (batched.kind, batched.chains, batched.draws) == ("posterior", 2, 4)
    assert batched.output_sizes == {"a": 192, "b": 64}
    assert batched.output_shapes == (((2, 4, 3), "float64"), ((2, 4), "float64"))
    assert batched.memory.peak == BEFORE["batched"]["memory"]["peak"] == batched.peak
    assert batched.timings.total == pytest.approx(BEFORE["batched"]["timings"]["total"])
    assert batched.executable_size == BEFORE["batched"]["executable_size"]
    assert batched.digest == BEFORE["batched"]["digest"] and batched.candidates == ()

    auto = EntryMetadata.from_json(BEFORE["auto"])
    assert auto.label == "auto:vmap" and auto.chosen == "vmap"
    assert [c.strategy for c in auto.candidates] == ["batched(1)", "vmap", "scan_vmap", "nested_scan"]
    assert auto.auto is not None and auto.auto.peak == auto.memory.peak
    assert all(c.fits for c in auto.candidates) and auto.candidates[0].steps == 8


@pytest.mark.parametrize("which", ["batched", "auto"])
def test_round_trip_keeps_every_stored_field(which):
    doc = BEFORE[which]
    meta = EntryMetadata.from_json(doc)
    written = meta.to_json()
    store_bookkeeping = {"format", "executable_size", "executable_sha256"}
    assert written == {**{k: v for k, v in doc.items() if k not in store_bookkeeping}, "schema": SCHEMA_VERSION}
    assert EntryMetadata.from_json({**written, "executable_size": meta.executable_size}) == meta


def test_other_schema_versions_and_broken_documents_are_refused():
    with pytest.raises(ValueError, match="schema 2"):
        EntryMetadata.from_json({**BEFORE["batched"], "schema": 2})
    broken = {k: v for k, v in BEFORE["batched"].items() if k != "memory"}
    with pytest.raises(ValueError, match="does not match schema 1: KeyError 'memory'"):
        EntryMetadata.from_json(broken)
    with pytest.raises(ValueError, match="does not match schema"):
        EntryMetadata.from_json({**BEFORE["auto"], "auto": {"chosen": "vmap"}})


def test_requested_is_written_only_where_true():
    meta = EntryMetadata.from_json(BEFORE["batched"])
    assert not meta.requested and "requested" not in meta.to_json()
    flagged = EntryMetadata.from_json({**BEFORE["batched"], "requested": True})
    assert flagged.requested and flagged.to_json()["requested"] is True
    assert EntryMetadata.from_json(flagged.to_json()).requested
