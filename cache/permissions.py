"""Who could have written what the store reads: the root, the database, value files, keys.

A value file is only read from, or deleted at, a path that resolves inside the cache root
and has diskcache's layout (``ab/cd/<28 hex>.val``); its two directories are checked on
every read (two ``stat`` calls), so a directory others could write is refused where it is
used, without walking the whole tree on each start.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import stat
from pathlib import Path

from .ancestors import check_ancestors
from .errors import CachePermissionError, IntegrityError
from .paths import ENV_CACHE_DIR, ENV_PUBLIC_KEY, ENV_READ_ONLY

log = logging.getLogger("pymc_aot.cache")

DATABASE_FILES = ("cache.db", "cache.db-wal", "cache.db-shm", "cache.db-journal")
_SEP = re.escape(os.sep)
_VALUE_FILE = re.compile(rf"[0-9a-f]{{2}}{_SEP}[0-9a-f]{{2}}{_SEP}[0-9a-f]{{28}}\.val")  # diskcache's layout


def _foreign_uid(info: os.stat_result) -> bool:
    return hasattr(os, "getuid") and info.st_uid != os.getuid()


def _refuse_others_writable(path: Path, info: os.stat_result, fix: str) -> None:
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise CachePermissionError(
            f"pymc-aot refuses {path}: it is group- or world-writable (mode {stat.S_IMODE(info.st_mode):o}), "
            f"so anyone could plant an executable in the cache. Fix it with `{fix}`, or point "
            f"{ENV_CACHE_DIR} at a private directory."
        )


def _refuse_foreign(path: Path, info: os.stat_result, fix: str) -> None:
    if _foreign_uid(info):
        raise CachePermissionError(
            f"pymc-aot refuses {path}: it belongs to uid {info.st_uid}, not to you (uid {os.getuid()}). "
            f"{fix}"
        )


def check_directory(directory: Path, *, read_only: bool) -> None:
    """Refuse a cache root that another user could have written (or, shared, swapped).

    A root that is a symbolic link is refused for writing: SQLite and the value files would
    land wherever it points."""
    if not read_only and directory.is_symlink():
        raise CachePermissionError(
            f"pymc-aot refuses the cache {directory}: it is a symbolic link (to {os.readlink(directory)}), and "
            f"pymc-aot writes only into a real directory; set {ENV_CACHE_DIR} to the directory itself"
        )
    info = directory.stat()
    _refuse_others_writable(directory, info, f"chmod go-w {directory}")
    if read_only:
        check_ancestors(directory, "the shared cache")
    else:
        _refuse_foreign(
            directory,
            info,
            f"Use your own cache ({ENV_CACHE_DIR}), or read a shared cache explicitly: "
            f"{ENV_READ_ONLY}=1 and {ENV_PUBLIC_KEY}=<the operator's public key file>.",
        )


def check_database(root: Path, *, read_only: bool) -> None:
    """Refuse database files (``cache.db`` and SQLite's ``-wal``/``-shm``/``-journal``) others could
    write, and any that is not a regular file: SQLite follows a (dangling) symlink out of the cache."""
    for name in DATABASE_FILES:
        path = root / name
        try:
            info = path.lstat()
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(info.st_mode):
            kind = f"a symbolic link (to {os.readlink(path)})" if stat.S_ISLNK(info.st_mode) else "not a regular file"
            raise CachePermissionError(
                f"pymc-aot refuses {path}: it is {kind}, and SQLite would read and write wherever it leads; "
                f"remove it (`rm {path}`) and pymc-aot makes a fresh database"
            )
        _refuse_others_writable(path, info, f"chmod go-w {path}")
        if not read_only:
            _refuse_foreign(path, info, f"Fix it with `chown {os.getuid()} {path}`, or use your own cache.")


def check_value_directories(root: Path, value_file: str, *, read_only: bool) -> None:
    """Refuse a value file whose two directories under ``root`` others could write."""
    parent = Path(value_file).parent
    for directory in (parent, parent.parent):
        info = directory.stat()
        _refuse_others_writable(directory, info, f"chmod -R go-w {root}")
        if not read_only:
            _refuse_foreign(directory, info, f"Fix it with `chown -R {os.getuid()} {root}`, or use your own cache.")


def value_path(root: str | os.PathLike[str], filename: object) -> str:
    """The real path of a diskcache value file; IntegrityError if it is not one inside ``root``."""
    if not isinstance(filename, str) or not _VALUE_FILE.fullmatch(filename):
        raise IntegrityError(f"a database row names {filename!r}, which is not a value file of the cache")
    real_root = os.path.realpath(root)
    full = os.path.realpath(os.path.join(real_root, filename))
    if os.path.dirname(os.path.dirname(os.path.dirname(full))) != real_root:
        raise IntegrityError(f"a database row names {filename!r}, which resolves outside the cache")
    return full


def remove_value_file(root: str | os.PathLike[str], filename: object) -> None:
    """Delete a value file and its emptied directories; never anything outside ``root``."""
    try:
        full = value_path(root, filename)
    except IntegrityError as exc:
        log.debug("pymc-aot: not deleting %s", exc)
        return
    with contextlib.suppress(OSError):
        os.remove(full)
    directory = os.path.dirname(full)
    for _ in range(2):  # ab/cd/, then ab/; stop at the first that is not empty
        try:
            os.rmdir(directory)
        except OSError:
            return
        directory = os.path.dirname(directory)


def make_private_dirs(full_path: str) -> None:
    """Create a value file's two directories with mode 0700, whatever the umask."""
    leaf = os.path.dirname(full_path)
    for directory in (os.path.dirname(leaf), leaf):
        with contextlib.suppress(OSError):  # exists, or the root is gone: diskcache reports it
            os.mkdir(directory, 0o700)


def check_key_file(path: Path, *, private: bool) -> None:
    """A private key (or secret) must be yours with mode 600; a public key must not be writable by others."""
    info = path.stat()
    if private and (info.st_mode & (stat.S_IRWXG | stat.S_IRWXO) or _foreign_uid(info)):
        raise CachePermissionError(
            f"pymc-aot refuses the key {path}: others can read it (mode {stat.S_IMODE(info.st_mode):o}) or it is not "
            f"yours; it must belong to you with mode 600 (`chmod 600 {path}`)"
        )
    if not private and info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise CachePermissionError(
            f"pymc-aot refuses the public key {path}: it is group- or world-writable "
            f"(mode {stat.S_IMODE(info.st_mode):o}), so anyone could swap in their own key (`chmod go-w {path}`)"
        )


def private_subdirectory(root: Path, name: str) -> Path:
    """``root/name``, created with mode 0700, after the checks the cache root gets.

    Raises CachePermissionError if either could be written by someone else (or is not
    yours), OSError if it cannot be made (the root is a file, a read-only file system)."""
    if not name or os.sep in name or name in (".", ".."):
        raise ValueError(f"expected a plain directory name, got {name!r}")
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    check_directory(root, read_only=False)
    sub = root / name
    sub.mkdir(exist_ok=True, mode=0o700)
    info = sub.stat()
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(f"{sub} is not a directory")
    _refuse_others_writable(sub, info, f"chmod go-w {sub}")
    _refuse_foreign(sub, info, f"Fix it with `chown -R {os.getuid()} {sub}`, or use your own cache.")
    return sub
