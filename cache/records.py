"""What the store lists about an entry, and the unsigned usage record it keeps per entry."""

from __future__ import annotations

import functools
import json
import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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


def finite_number(value: Any, default: float = 0.0) -> float:
    """A finite number from unsigned bookkeeping, else ``default``."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else default


def parse_usage(raw: Any) -> dict[str, Any]:
    """A usage record from its stored JSON; {} if absent or garbled (it is only bookkeeping)."""
    try:
        usage = json.loads(raw) if raw is not None else {}
    except (ValueError, TypeError, RecursionError):
        return {}
    return usage if isinstance(usage, dict) else {}


def usage_after_hit(usage: dict[str, Any]) -> str:
    """The stored JSON of ``usage`` with one more hit, used now."""
    return json.dumps({**usage, "hits": int(finite_number(usage.get("hits"))) + 1, "last_used": time.time()})


def fresh_usage() -> str:
    """The stored JSON of a new entry's usage: no hits, used now."""
    return json.dumps({"hits": 0, "last_used": time.time()})
