"""On-disk store for compiled transforms: executable bytes plus JSON metadata.

This package imports neither jax nor pymc; it only knows bytes and dicts.
"""

from .paths import DEFAULT_SIZE_LIMIT, default_cache_dir, parse_size
from .store import CachePermissionError, CacheStore, EntryRecord, IntegrityError

__all__ = [
    "DEFAULT_SIZE_LIMIT",
    "CachePermissionError",
    "CacheStore",
    "EntryRecord",
    "IntegrityError",
    "default_cache_dir",
    "parse_size",
]
