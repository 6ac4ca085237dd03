"""What the store raises."""

from __future__ import annotations


class IntegrityError(Exception):
    """A stored entry failed verification (bad signature, digest, size, JSON or location)."""


class CachePermissionError(Exception):
    """The cache, or a key, could be written (or read) by someone else; refused, never trusted.

    Not an ``OSError``: this is a configuration to fix, not a disk to work around."""


class CacheUnavailableError(OSError):
    """The cache cannot be opened at all (a file, a read-only file system); runs go uncached."""
