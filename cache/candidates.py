"""Which stored executables are only ``auto``'s candidates, and flagging one as asked for.

``auto`` stores every candidate it compiled as an executable of its own and lists their
digests in its metadata (``EntryMetadata.auto.candidates[i].key``). A stored executable is a
*candidate* when an auto entry lists it and nobody asked for it directly: not ``requested``,
and never loaded on its own (``hits == 0``; an auto entry loads the winner's bytes under its
own digest, so a candidate's hits come from direct requests).
"""

from __future__ import annotations

from collections.abc import Sequence

from .entry_record import EntryRecord
from .store import CacheStore

_BOOKKEEPING = ("digest", "format", "executable_size", "executable_sha256")


def candidate_digests(records: Sequence[EntryRecord]) -> set[str]:
    """Digests that some auto entry lists as its candidates."""
    listed: set[str] = set()
    for r in records:
        meta = r.schema
        if meta is not None:
            listed.update(c.key for c in meta.candidates if c.key)
    return listed


def is_candidate_only(record: EntryRecord, listed: set[str]) -> bool:
    """Listed by an auto entry, never asked for directly, never loaded on its own."""
    meta = record.schema
    requested = meta is not None and meta.requested
    return record.digest in listed and not requested and record.hits == 0


def mark_requested(store: CacheStore, digest: str) -> bool:
    """Flag a stored auto candidate as asked for directly, so it lists as an entry of its own.

    Only a candidate-only entry is rewritten (the store's own signed ``put``): its usage record,
    which ``put`` resets, holds no hits by definition. False if nothing was rewritten."""
    records = store.entries()
    record = next((r for r in records if r.digest == digest), None)
    if record is None or not is_candidate_only(record, candidate_digests(records)):
        return False
    found = store.get(digest)
    if found is None:
        return False
    payload, meta = found
    kept = {k: v for k, v in meta.items() if k not in _BOOKKEEPING}
    return store.put(digest, payload, {**kept, "requested": True})
