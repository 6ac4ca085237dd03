"""What the user asked for, out of what is stored: auto entries with their candidates folded in.

Which stored executables are only ``auto``'s candidates is ``cache/candidates.py``'s to say.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...cache import EntryRecord
from ...cache.candidates import candidate_digests, is_candidate_only
from ...render import strategy_label


@dataclass(frozen=True)
class Candidate:
    """One strategy auto compiled for an entry: its numbers from the auto metadata, its record if stored."""

    summary: dict[str, Any]
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
        if is_candidate_only(r, listed):
            continue
        auto = r.metadata.get("auto") or {}
        candidates = tuple(
            Candidate(c, by_digest.get(c.get("key", "")), c["strategy"] == auto.get("chosen"))
            for c in auto.get("candidates", [])
        )
        out.append(Listed(r, candidates))
    return out


def role(record: EntryRecord, listed: set[str]) -> str:
    if record.metadata.get("auto"):
        return "auto"
    return "candidate" if is_candidate_only(record, listed) else "explicit"


def entry_json(meta: dict[str, Any], record: EntryRecord | None = None, **extra: Any) -> dict[str, Any]:
    """An entry as ``--json`` prints it (the schema of the first release, plus ``extra``)."""
    parts = meta["key"]
    values = parts.get("values") or [[None, [0, 0], None]]
    out: dict[str, Any] = {
        "key": meta["digest"],
        "short_key": meta["digest"][:12],
        "model_name": meta.get("model_name", ""),
        "kind": parts.get("kind"),
        "strategy": strategy_label(parts, meta.get("auto")),
        "chains": values[0][1][0],
        "draws": values[0][1][1],
        "outputs": meta.get("output_names", []),
        "memory": meta["memory"],
        "cost": meta.get("cost", {}),
        "compile_seconds": meta.get("timings", {}),
        "executable_bytes": meta.get("executable_size"),
        "created": meta.get("created"),
    }
    if record is not None:
        out["hits"] = record.hits
        out["last_used"] = record.last_used
    return {**out, **extra}


def candidate_json(candidate: Candidate) -> dict[str, Any]:
    s = candidate.summary
    ranking = {"steps": s.get("steps"), "fits": s.get("fits"), "chosen": candidate.chosen}
    if candidate.record is not None:
        return entry_json(candidate.record.metadata, candidate.record, **ranking, stored=True)
    memory = {k: s[k] for k in ("argument", "output", "temp", "alias", "peak") if k in s}
    key = s.get("key") or ""
    return {"key": key, "short_key": key[:12], "strategy": s["strategy"], "memory": memory, **ranking, "stored": False}


def listed_json(item: Listed, listed: set[str]) -> dict[str, Any]:
    doc = entry_json(item.record.metadata, item.record, role=role(item.record, listed))
    if item.record.metadata.get("auto"):
        doc["candidates"] = [candidate_json(c) for c in item.candidates]
    return doc


def match(records: Sequence[EntryRecord], prefix: str) -> list[EntryRecord]:
    return [r for r in records if r.digest.startswith(prefix)]
