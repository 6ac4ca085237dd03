"""What the store lists about an entry (``CacheStore.entries``); a hit never makes one."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .records import finite_number

if TYPE_CHECKING:
    from .entry import EntryMetadata


@dataclass(frozen=True)
class EntryRecord:
    """What the store knows about one entry without loading its executable."""

    digest: str
    metadata: dict[str, Any]
    executable_bytes: int
    hits: int = 0
    last_used: float | None = None

    @classmethod
    def of(cls, digest: str, metadata: dict[str, Any], usage: dict[str, Any]) -> EntryRecord:
        """The record of a verified entry's ``metadata`` and its (unverified) ``usage``."""
        last_used = usage.get("last_used")
        return cls(
            digest=digest,
            metadata=metadata,
            executable_bytes=metadata["executable_size"],
            hits=int(finite_number(usage.get("hits"))),
            last_used=finite_number(last_used) if isinstance(last_used, (int, float)) else None,
        )

    @functools.cached_property
    def schema(self) -> EntryMetadata | None:
        """The metadata as the schema reads it (``cache/entry.py``), parsed once per record;
        None if it does not read under this schema."""
        from .entry import EntryMetadata  # not on the store's import path: only listings read it

        try:
            return EntryMetadata.from_json(self.metadata)
        except ValueError:
            return None
