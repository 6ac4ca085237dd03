"""On-disk store for compiled transforms: executable bytes plus JSON metadata.

This package imports neither jax nor pymc; it only knows bytes and dicts.
"""

from cache.paths import DEFAULT_SIZE_LIMIT, default_cache_dir, parse_size
from cache.store import CachePermissionError, CacheStore, EntryRecord, IntegrityError

__all__ = [
    "DEFAULT_SIZE_LIMIT",
    "CachePermissionError",
    "CacheStore",
    "EntryRecord",
    "IntegrityError",
    "default_cache_dir",
    "parse_size",
]
