"""What the user asked for, out of what is stored: auto entries with their candidates folded in.

Which stored executables are only ``auto``'s candidates is ``cache/candidates.py``'s to say.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ...cache import CacheStore, EntryRecord
from ...cache.auto_choice import Candidate as AutoCandidate
from ...cache.candidates import candidate_digests, is_candidate_only
from ...cache.entry import EntryMetadata


def meta(record: EntryRecord) -> EntryMetadata:
    """The record's metadata as the schema reads it (``cache/entry.py``); for records from
    :func:`readable`, which leaves out those that do not read (others raise ValueError)."""
    return record.schema or EntryMetadata.from_json(record.metadata)


def readable(records: Sequence[EntryRecord]) -> list[EntryRecord]:
    """The records whose metadata reads under this schema; the others never load (the runtime
    drops them, ``clear --stale`` removes them)."""
    return [r for r in records if r.schema is not None]


def read_records(store: CacheStore) -> list[EntryRecord]:
    """Every readable stored executable, none if the cache does not exist yet."""
    return readable(store.entries()) if store.directory.exists() else []


@dataclass(frozen=True)
class Candidate:
    """One strategy auto compiled for an entry: its numbers from the auto metadata, its record if stored."""

    summary: AutoCandidate
    record: EntryRecord | None
    chosen: bool


@dataclass(frozen=True)
class Listed:
    """One user-facing entry: an auto entry or an explicitly requested strategy."""

    record: EntryRecord
    candidates: tuple[Candidate, ...] = ()


def fold(records: Sequence[EntryRecord]) -> list[Listed]:
    """The user-facing entries of ``records``, each auto entry with its candidates."""
    by_digest = {r.digest: r for r in records}
    listed = candidate_digests(records)
    out = []
    for r in records:
        if is_candidate_only(r, listed) or is_orphan_candidate(r, listed):
            continue
        auto = meta(r).auto
        candidates = () if auto is None else tuple(
            Candidate(c, by_digest.get(c.key or ""), c.strategy == auto.chosen) for c in auto.candidates
        )
        out.append(Listed(r, candidates))
    return out


def is_orphan_candidate(record: EntryRecord, listed: set[str]) -> bool:
    """An auto candidate no auto entry lists (its run found nothing that fit): never asked for,
    never loaded on its own. ``inspect --all`` lists it; the folded listing counts it."""
    m = record.schema
    return m is not None and not m.requested and m.auto is None and record.digest not in listed and record.hits == 0


def role(record: EntryRecord, listed: set[str]) -> str:
    if meta(record).auto is not None:
        return "auto"
    return "candidate" if is_candidate_only(record, listed) or is_orphan_candidate(record, listed) else "explicit"


def entry_json(m: EntryMetadata, record: EntryRecord | None = None, **extra: Any) -> dict[str, Any]:
    """An entry as ``--json`` prints it (the schema of the first release, plus ``extra``)."""
    out: dict[str, Any] = {
        "key": m.digest,
        "short_key": m.digest[:12],
        "model_name": m.model_name,
        "kind": m.kind,
        "strategy": m.label,
        "chains": m.chains,
        "draws": m.draws,
        "outputs": list(m.output_names),
        "memory": m.memory.as_dict(),
        "cost": asdict(m.cost),
        "compile_seconds": m.timings.as_dict(),
        "executable_bytes": m.executable_size,
        "created": m.created,
    }
    if m.mesh_devices is not None:  # XLA's memory analysis of a sharded executable is per device
        n = len(m.mesh_devices)
        out["mesh"] = {"devices": n, "device_ids": list(m.mesh_devices), "memory": "per device"}
        out["mesh"]["total_peak"] = n * m.memory.peak
    if record is not None:
        out["hits"] = record.hits
        out["last_used"] = record.last_used
    return {**out, **extra}


def candidate_json(candidate: Candidate) -> dict[str, Any]:
    s = candidate.summary
    ranking = {"steps": s.steps, "fits": s.fits, "chosen": candidate.chosen}
    if candidate.record is not None:
        return entry_json(meta(candidate.record), candidate.record, **ranking, stored=True)
    memory = {"argument": s.argument, "output": s.output, "temp": s.temp, "alias": s.alias, "peak": s.peak}
    key = s.key or ""
    return {"key": key, "short_key": key[:12], "strategy": s.strategy, "memory": memory, **ranking, "stored": False}


def listed_json(item: Listed, listed: set[str]) -> dict[str, Any]:
    doc = entry_json(meta(item.record), item.record, role=role(item.record, listed))
    auto = meta(item.record).auto
    if auto is not None:
        doc["candidates"] = [candidate_json(c) for c in item.candidates]
        if auto.pending:  # a first run's choice, its other candidates still to compile
            doc["pending"] = {"candidates": list(auto.pending), "why": auto.note}
    return doc


def match(records: Sequence[EntryRecord], prefix: str) -> list[EntryRecord]:
    return [r for r in records if r.digest.startswith(prefix)]
