"""Entries signed with another key than the store verifies with: counted, and told once.

A worker given the wrong public key would otherwise get one warning per executable (an ``auto``
entry and each of its candidates); ``pymc-aot inspect`` shows the count instead of an empty cache.
"""

from __future__ import annotations

import weakref
from typing import Any

SIGNATURE_FAILS = "signature does not verify"
"""How ``verify.check_envelope`` starts the message of an entry signed with another key."""

_SEEN: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


def signed_with_another_key(store: Any) -> set[str]:
    """Digests ``store`` found signed with another key (or secret) so far."""
    return _SEEN.setdefault(store, set())


def broken_warning(store: Any, digest: str, why: str, done: str) -> tuple[str, str]:
    """``(what, message)`` for ``store._warn_once``: one per broken entry, but one for all the
    entries signed with another key (each counted)."""
    if SIGNATURE_FAILS not in why:
        return f"broken:{digest}", f"pymc-aot: cache entry {digest[:12]} failed verification ({why}): {done}"
    signed_with_another_key(store).add(digest)
    reason = why.partition(": ")[2] or why
    return "another-key", (
        f"pymc-aot: entries in {store.directory} failed verification ({reason}: signed with another key); "
        f"{done}; `pymc-aot inspect` counts them"
    )
