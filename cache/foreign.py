"""Is the ``cache.db`` in a cache root pymc-aot's? Asked before diskcache opens it.

diskcache creates its tables and settings in whatever SQLite file it is given; pointed at
another program's database, it would add them (and evict that program's rows). A database is
taken as the store's if it is empty, or holds nothing but diskcache's two tables with
diskcache's columns and either the store's mark (a ``Settings`` row, ``MARK``, written when
the store opens a database to write) or, in a database from before the mark, only rows under
the store's own keys (``exe:``, ``meta:``, ``use:``; every key a string).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from .errors import CachePermissionError
from .paths import ENV_CACHE_DIR

CACHE_COLUMNS = (
    "rowid", "key", "raw", "store_time", "expire_time", "access_time",
    "access_count", "tag", "size", "mode", "filename", "value",
)  # fmt: skip
SETTINGS_COLUMNS = ("key", "value")
MARK = "pymc_aot_store"
_FOREIGN_ROW = (
    "SELECT key FROM Cache WHERE raw IS NOT 1 OR typeof(key) != 'text' "
    "OR NOT (substr(key, 1, 4) IN ('exe:', 'use:') OR substr(key, 1, 5) = 'meta:') LIMIT 1"
)


def _why_foreign(con: sqlite3.Connection) -> str | None:
    tables = {
        name for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if not name.startswith("sqlite_")
    }
    if not tables:
        return None  # empty: diskcache makes its tables
    if tables - {"Settings", "Cache"}:
        return f"it has tables {sorted(tables)}, a pymc-aot cache has only Settings and Cache"
    for table, expected in (("Cache", CACHE_COLUMNS), ("Settings", SETTINGS_COLUMNS)):
        columns = tuple(row[1] for row in con.execute(f"PRAGMA table_info({table})"))
        if columns and columns != expected:
            return f"its {table} table has the columns {list(columns)}, not diskcache's"
    if "Settings" in tables and con.execute("SELECT 1 FROM Settings WHERE key = ?", (MARK,)).fetchone():
        return None
    if "Cache" in tables:
        row = con.execute(_FOREIGN_ROW).fetchone()
        if row is not None:
            return f"it holds the row {row[0]!r}, which pymc-aot never writes"
    return None


def _read(uri: str) -> str | None:
    con = sqlite3.connect(uri, uri=True)
    try:
        return _why_foreign(con)
    finally:
        con.close()


def check_ours(root: Path) -> None:
    """CachePermissionError (naming the file and why) if ``root/cache.db`` belongs to another program.

    Read through a read-only connection: nothing in the file is changed. SQLite errors pass
    through (a database that cannot be read is reported as such by the caller)."""
    path = root / "cache.db"
    try:
        if path.stat().st_size == 0:
            return
    except FileNotFoundError:
        return
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        why = _read(uri)
    except sqlite3.OperationalError:  # WAL mode, read by a user who cannot make the -shm file
        why = _read(uri + "&immutable=1")
    if why is not None:
        raise CachePermissionError(
            f"pymc-aot refuses {path}: it is not a pymc-aot cache ({why}); pymc-aot leaves it untouched. "
            f"Point {ENV_CACHE_DIR} (or cache_dir=) at a directory of its own"
        )


def mark(cache: Any) -> None:
    """Write the store's mark into an open diskcache ``cache`` (a diskcache ignores unknown settings)."""
    cache._sql_retry("INSERT OR IGNORE INTO Settings VALUES (?, 1)", (MARK,))
