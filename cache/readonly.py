"""Rows of a diskcache directory through a read-only SQLite connection: no diskcache, no writes.

Opening diskcache runs its settings, tables and pragmas (about 70 statements, ~20 ms), and
importing it costs a few more; a hit needs one SELECT and its value files. Every value, here
and through diskcache (``disk.NoPickleDisk``), is read by ``read_value``.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .errors import IntegrityError
from .permissions import check_database, check_directory, check_value_directories, value_path

MODE_RAW, MODE_BINARY, MODE_TEXT = 1, 2, 3
"""diskcache's storage modes (``diskcache.core.MODE_*``), without importing diskcache; pickle is 4."""


def read_value(root: str, mode: int, filename: object, value: Any, *, read_only: bool) -> Any:
    """A Cache row's value: raw values as stored, files read only from inside ``root``, no pickle."""
    if mode == MODE_RAW:
        return bytes(value) if isinstance(value, memoryview) else value
    if mode not in (MODE_BINARY, MODE_TEXT):
        raise IntegrityError(f"refusing a value stored in mode {mode} (pickled or unknown)")
    path = value_path(root, filename)
    check_value_directories(Path(root), path, read_only=read_only)
    data = read_regular_file(path)
    if mode == MODE_BINARY:
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IntegrityError(f"a text value that is not UTF-8 ({exc.reason})") from exc


def read_regular_file(path: str) -> bytes:
    """The bytes of the regular file at ``path``; IntegrityError for a symlink, a FIFO, a device...

    Opened without following a symlink and without blocking (a FIFO would wait for a writer
    forever), then checked with ``fstat`` before anything is read."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise IntegrityError(f"a value file that is a symbolic link ({path})") from exc
        raise
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IntegrityError(f"a value file that is not a regular file ({path})")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return fh.read()


class ReadOnlyDB:
    """Reads a diskcache directory without writing anything.

    ``owned`` (a private store): the directory, database and value directories must be the
    user's, as when the store is opened to write; a database that cannot be read this way
    raises, and the caller reads through diskcache instead. Not owned (an operator's shared
    cache, kept in rollback-journal mode, which a reader who may not write the directory can
    lock and read): a database in WAL mode needs a ``-shm`` file such a reader cannot create;
    it is then read as immutable (rows written after the last checkpoint are a miss; a torn
    read fails verification like any bad entry)."""

    def __init__(self, directory: Path, *, owned: bool = False) -> None:
        self.directory = directory
        self._owned = owned
        self._lock = threading.Lock()  # one connection, shared by threads
        self._connect()

    def _connect(self) -> None:
        self._pid = os.getpid()
        uri = (self.directory / "cache.db").resolve().as_uri() + "?mode=ro"
        self._con = sqlite3.connect(uri, uri=True, check_same_thread=False)
        try:
            self._con.execute("SELECT 1 FROM Cache LIMIT 1").fetchall()
        except sqlite3.OperationalError:
            self._con.close()
            if self._owned:
                raise
            self._con = sqlite3.connect(uri + "&immutable=1", uri=True, check_same_thread=False)

    def _rows(self, sql: str, params: Sequence[Any]) -> list[Any]:
        with self._lock:
            if self._pid != os.getpid():  # SQLite connections must not cross a fork
                self._connect()
            return self._con.execute(sql, params).fetchall()

    def _value(self, mode: int, filename: object, value: Any) -> Any:
        return read_value(str(self.directory), mode, filename, value, read_only=not self._owned)

    def get(self, key: str, default: Any = None) -> Any:
        found = self.get_many((key,))
        return found.get(key, default)

    def get_many(self, keys: Sequence[str]) -> dict[str, Any]:
        """The values of those of ``keys`` that are present, read in one SELECT (one snapshot)."""
        marks = ", ".join("?" * len(keys))
        rows = self._rows(f"SELECT key, mode, filename, value FROM Cache WHERE raw = 1 AND key IN ({marks})", keys)
        return {key: self._value(mode, filename, value) for key, mode, filename, value in rows}

    def iterkeys(self) -> Iterator[str]:
        for (key,) in self._rows("SELECT key FROM Cache WHERE raw = 1 ORDER BY rowid", ()):
            yield key

    def __contains__(self, key: str) -> bool:
        return bool(self._rows("SELECT 1 FROM Cache WHERE key = ? AND raw = 1", (key,)))

    def volume(self) -> int:
        return sum(p.stat().st_size for p in self.directory.rglob("*") if p.is_file())

    def close(self) -> None:
        with self._lock:
            self._con.close()


class OwnedReader:
    """The read-only connection a private store's hits use: opened on first use, after the
    checks a writer's open makes (``permissions``), and only once a database exists."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._db: ReadOnlyDB | None = None
        self._guard = threading.Lock()  # one connection even when threads race to open it

    def get_many(self, keys: Sequence[str]) -> dict[str, Any] | None:
        """As ``ReadOnlyDB.get_many``; None while there is no database (nothing can be read)."""
        with self._guard:
            if self._db is None:
                if not (self.root / "cache.db").is_file():
                    return None
                check_directory(self.root, read_only=False)
                check_database(self.root, read_only=False)
                self._db = ReadOnlyDB(self.root, owned=True)
        return self._db.get_many(keys)

    def close(self) -> None:
        with self._guard:
            if self._db is not None:
                self._db.close()
                self._db = None
