"""On-disk store for compiled transforms: executable bytes plus JSON metadata.

This package imports neither jax nor pymc; it only knows bytes and dicts.
"""

from typing import TYPE_CHECKING

from .errors import CacheConfigError, CachePermissionError, CacheUnavailableError, IntegrityError
from .paths import DEFAULT_SIZE_LIMIT, default_cache_dir, parse_size
from .permissions import private_subdirectory
from .signing import generate_keypair
from .store import CacheStore

if TYPE_CHECKING:
    from .entry_record import EntryRecord


def __getattr__(name: str) -> type:
    if name == "EntryRecord":  # listings only: a hit does not import it
        from .entry_record import EntryRecord

        return EntryRecord
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_SIZE_LIMIT",
    "CacheConfigError",
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
