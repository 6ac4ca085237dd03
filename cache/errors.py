"""What the store raises."""

from __future__ import annotations

import sqlite3
import sys


class IntegrityError(Exception):
    """A stored entry failed verification (bad signature, digest, size, JSON or location)."""


class CachePermissionError(Exception):
    """The cache, or a key, could be written (or read) by someone else; refused, never trusted.

    Not an ``OSError``: this is a configuration to fix, not a disk to work around."""


class CacheConfigError(ValueError):
    """A setting of the cache (an environment variable, an argument) that cannot be understood."""


class CacheUnavailableError(OSError):
    """The cache cannot be opened at all (a file, a read-only file system); runs go uncached."""


def store_errors() -> tuple[type[Exception], ...]:
    """What a disk or database failure raises; diskcache's lock timeout once diskcache is loaded
    (a hit through the read-only connection never loads it)."""
    timeout = getattr(sys.modules.get("diskcache"), "Timeout", None)
    return (OSError, sqlite3.Error) if timeout is None else (OSError, sqlite3.Error, timeout)


BAD_VALUE = (ValueError, KeyError, TypeError, RecursionError, IntegrityError)
"""What a garbled or refused stored value raises while it is read and checked."""
