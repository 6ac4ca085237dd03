"""diskcache, read without pickle and without ever leaving the cache directory."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import diskcache

from .errors import CacheUnavailableError, IntegrityError
from .paths import ENV_CACHE_DIR
from .permissions import (
    check_database,
    check_directory,
    check_value_directories,
    make_private_dirs,
    remove_value_file,
    value_path,
)


def read_value(root: str, mode: int, filename: object, value: Any, *, read_only: bool) -> Any:
    """A Cache row's value: raw values as stored, files read only from inside ``root``, no pickle."""
    if mode == diskcache.core.MODE_RAW:
        return bytes(value) if isinstance(value, memoryview) else value
    if mode not in (diskcache.core.MODE_BINARY, diskcache.core.MODE_TEXT):
        raise IntegrityError(f"refusing a value stored in mode {mode} (pickled or unknown)")
    path = value_path(root, filename)
    check_value_directories(Path(root), path, read_only=read_only)
    with open(path, "rb") as fh:
        data = fh.read()
    if mode == diskcache.core.MODE_BINARY:
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IntegrityError(f"a text value that is not UTF-8 ({exc.reason})") from exc


class NoPickleDisk(diskcache.Disk):
    """diskcache's Disk, minus pickle, confined to its directory.

    A planted pickled key or value is never loaded, and a row naming a file outside the
    cache (or anything but a value file) is neither read nor deleted."""

    def get(self, key: Any, raw: bool) -> Any:
        if not raw:
            return ("refused-pickled-key",)
        return super().get(key, raw)

    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        if read:
            raise IntegrityError("file handles are not handed out")
        return read_value(self._directory, mode, filename, value, read_only=False)

    def filename(self, key: Any = diskcache.core.UNKNOWN, value: Any = diskcache.core.UNKNOWN) -> tuple[str, str]:
        filename, full_path = super().filename(key, value)
        make_private_dirs(full_path)
        return filename, full_path

    def remove(self, file_path: str) -> None:
        remove_value_file(self._directory, file_path)


class ReadOnlyDB:
    """Reads a diskcache directory without writing anything (a shared, read-only cache).

    An operator's signed cache is kept in SQLite's rollback-journal mode, which a reader who
    may not write the directory can lock and read. A database in WAL mode needs a ``-shm``
    file such a reader cannot create; it is then read as immutable (rows written after
    the last checkpoint are a miss; a torn read fails verification like any bad entry)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        uri = (directory / "cache.db").resolve().as_uri() + "?mode=ro"
        self._con = sqlite3.connect(uri, uri=True, check_same_thread=False)
        try:
            self._con.execute("SELECT 1 FROM Cache LIMIT 1").fetchall()
        except sqlite3.OperationalError:
            self._con.close()
            self._con = sqlite3.connect(uri + "&immutable=1", uri=True, check_same_thread=False)

    def get(self, key: str, default: Any = None) -> Any:
        row = self._con.execute("SELECT mode, filename, value FROM Cache WHERE key = ? AND raw = 1", (key,)).fetchone()
        if row is None:
            return default
        mode, filename, value = row
        return read_value(str(self.directory), mode, filename, value, read_only=True)

    def iterkeys(self) -> Iterator[str]:
        for (key,) in self._con.execute("SELECT key FROM Cache WHERE raw = 1 ORDER BY rowid").fetchall():
            yield key

    def __contains__(self, key: str) -> bool:
        return self._con.execute("SELECT 1 FROM Cache WHERE key = ? AND raw = 1", (key,)).fetchone() is not None

    def volume(self) -> int:
        return sum(p.stat().st_size for p in self.directory.rglob("*") if p.is_file())

    def close(self) -> None:
        self._con.close()


def open_database(root: Path, *, read_only: bool, size_limit: int = 0, shared: bool = False) -> Any:
    """The cache database in ``root``, after its permission checks; made (mode 0700/0600) if writable.

    ``shared``: an operator's cache that workers read, kept in rollback-journal mode."""
    if root.exists() and not root.is_dir():
        raise CacheUnavailableError(f"it is a file, not a directory: point {ENV_CACHE_DIR} (or cache_dir=) elsewhere")
    if read_only:
        check_directory(root, read_only=True)
        check_database(root, read_only=True)
        return ReadOnlyDB(root)
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    check_directory(root, read_only=False)
    with contextlib.suppress(FileExistsError):  # SQLite gives -wal and -shm the database's mode
        os.close(os.open(root / "cache.db", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    check_database(root, read_only=False)
    return diskcache.Cache(
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
