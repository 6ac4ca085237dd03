"""On-disk store for compiled transforms: executable bytes plus JSON metadata.

This package imports neither jax nor pymc; it only knows bytes and dicts.
"""

from .errors import CachePermissionError, CacheUnavailableError, IntegrityError
from .paths import DEFAULT_SIZE_LIMIT, default_cache_dir, parse_size
from .permissions import private_subdirectory
from .signing import generate_keypair
from .store import CacheStore, EntryRecord

__all__ = [
    "DEFAULT_SIZE_LIMIT",
    "CachePermissionError",
    "CacheStore",
    "CacheUnavailableError",
    "EntryRecord",
    "IntegrityError",
    "default_cache_dir",
    "generate_keypair",
    "parse_size",
    "private_subdirectory",
]
