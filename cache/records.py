"""The unsigned usage record the store keeps per entry (hits, last use)."""

from __future__ import annotations

import json
import math
import time
from typing import Any


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
