"""diskcache, read without pickle and without ever leaving the cache directory."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import diskcache

from .bundle import BundleError
from .bundle_db import BundleDB, is_unpacked_bundle
from .errors import CacheUnavailableError, IntegrityError
from .foreign import check_ours, mark
from .paths import ENV_CACHE_DIR
from .permissions import check_database, check_directory, make_private_dirs, remove_value_file, value_path
from .readonly import ReadOnlyDB, read_value


class NoPickleDisk(diskcache.Disk):
    """diskcache's Disk, minus pickle, confined to its directory.

    A planted pickled key or value is never loaded, a row naming a file outside the cache (or
    anything but a value file) is neither read nor deleted, and no value is written through a
    directory that leads outside."""

    def get(self, key: Any, raw: bool) -> Any:
        if not raw:
            return ("refused-pickled-key",)
        return super().get(key, raw)

    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        if read:
            raise IntegrityError("file handles are not handed out")
        return read_value(self._directory, mode, filename, value, read_only=False)

    def filename(self, key: Any = diskcache.core.UNKNOWN, value: Any = diskcache.core.UNKNOWN) -> tuple[str, str]:
        """A fresh value file name whose directories are inside the cache; a random name that
        meets a planted symlinked directory (leading outside) is passed over for another."""
        for _ in range(16):
            filename, full_path = super().filename(key, value)
            try:
                value_path(self._directory, filename)
                make_private_dirs(full_path)
                value_path(self._directory, filename)
            except IntegrityError:
                continue
            return filename, full_path
        # an OSError: the store reports it as not writable, once, and the run goes on uncached
        raise OSError(f"no value file name inside {self._directory}: its directories lead outside it")

    def remove(self, file_path: str) -> None:
        remove_value_file(self._directory, file_path)


def open_database(
    root: Path, *, read_only: bool, size_limit: int = 0, shared: bool = False, verifier: Any = None
) -> Any:
    """The cache database in ``root``, after its permission checks; made (mode 0700/0600) if writable.

    ``shared``: an operator's cache that workers read, kept in rollback-journal mode. Read-only,
    ``root`` may also be a bundle (the file, or its unpacked directory), checked with ``verifier``."""
    if read_only and (root.is_file() or is_unpacked_bundle(root)):
        check_directory(root, read_only=True)
        try:
            return BundleDB(root, verifier)
        except BundleError as exc:  # one warning, then every lookup misses and compiles in memory
            raise CacheUnavailableError(str(exc)) from exc
    if root.exists() and not root.is_dir():
        raise CacheUnavailableError(f"it is a file, not a directory: point {ENV_CACHE_DIR} (or cache_dir=) elsewhere")
    if read_only:
        check_directory(root, read_only=True)
        check_database(root, read_only=True)
        check_ours(root)
        return ReadOnlyDB(root)
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    check_directory(root, read_only=False)
    with contextlib.suppress(FileExistsError):  # SQLite gives -wal and -shm the database's mode
        os.close(os.open(root / "cache.db", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    check_database(root, read_only=False)
    check_ours(root)
    cache = diskcache.Cache(
        str(root),
        size_limit=size_limit,
        eviction_policy="least-recently-used",
        statistics=False,
        disk=NoPickleDisk,
        # every value in its own file: the size limit then counts real bytes (rows
        # deleted from SQLite leave its page count, and diskcache's volume, unchanged)
        disk_min_file_size=0,
        sqlite_journal_mode="delete" if shared else "wal",
    )
    mark(cache)
    return cache
