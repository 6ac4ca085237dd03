"""A small, boring, size-bounded store of compiled transforms.

One entry is three diskcache items under the entry's hex digest:

* ``exe:<digest>``  the executable bytes, written first;
* ``meta:<digest>`` a JSON envelope ``{"meta": {...}, "sig": "<hmac>"}`` whose metadata
  records the SHA-256 and size of the executable; written last, so its presence marks a
  complete entry;
* ``use:<digest>``  a JSON usage record (hits, last used), unsigned bookkeeping.

Nothing is trusted before it is verified: the envelope's HMAC-SHA256 (keyed by a per-user
secret in the cache root) and the executable's digest are checked on every read, and an
entry that fails is dropped and reported as missing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import sqlite3
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import diskcache

from .paths import DEFAULT_SIZE_LIMIT, ENV_SIZE_LIMIT, default_cache_dir, parse_size

log = logging.getLogger("pymc_aot.cache")

FORMAT_VERSION = 1
SECRET_FILE = "secret.key"
ENV_READ_ONLY = "PYMC_AOT_CACHE_READONLY"
ENV_KEY_FILE = "PYMC_AOT_CACHE_KEY"
_STORE_ERRORS = (OSError, sqlite3.Error, diskcache.Timeout)


class IntegrityError(Exception):
    """A stored entry failed verification (bad signature, digest, size or JSON)."""


class CachePermissionError(Exception):
    """The cache directory or key could be written by someone else; refused, never trusted.

    Not an ``OSError``: this is a configuration to fix, not a disk to work around."""


class _NoPickleDisk(diskcache.Disk):
    """diskcache's Disk, minus pickle: a planted pickled key or value is never loaded."""

    def get(self, key: Any, raw: bool) -> Any:
        if not raw:
            return ("refused-pickled-key",)
        return super().get(key, raw)

    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        if mode == diskcache.core.MODE_PICKLE:
            raise IntegrityError("a pickled value in the cache database")
        return super().fetch(mode, filename, value, read)


class _ReadOnlyDB:
    """Reads a diskcache directory without writing anything (a shared, read-only cache)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        uri = (directory / "cache.db").resolve().as_uri() + "?mode=ro"
        self._con = sqlite3.connect(uri, uri=True, check_same_thread=False)

    def get(self, key: str, default: Any = None) -> Any:
        row = self._con.execute("SELECT mode, filename, value FROM Cache WHERE key = ? AND raw = 1", (key,)).fetchone()
        if row is None:
            return default
        mode, filename, value = row
        if mode == diskcache.core.MODE_RAW:
            return bytes(value) if isinstance(value, (bytes, memoryview)) else value
        if mode in (diskcache.core.MODE_BINARY, diskcache.core.MODE_TEXT):
            data = (self.directory / filename).read_bytes()
            return data if mode == diskcache.core.MODE_BINARY else data.decode("utf-8")
        raise IntegrityError(f"refusing a value stored in mode {mode}")

    def iterkeys(self) -> Iterator[str]:
        for (key,) in self._con.execute("SELECT key FROM Cache WHERE raw = 1 ORDER BY rowid").fetchall():
            yield key

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def volume(self) -> int:
        return sum(p.stat().st_size for p in self.directory.rglob("*") if p.is_file())

    def close(self) -> None:
        self._con.close()


def check_directory(directory: Path, *, read_only: bool) -> None:
    """Refuse a cache directory that another user could have written."""
    info = directory.stat()
    writable_by_others = info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if writable_by_others:
        raise CachePermissionError(
            f"pymc-aot refuses the cache directory {directory}: it is group- or world-writable "
            f"(mode {stat.S_IMODE(info.st_mode):o}), so anyone could plant an executable there. "
            f"Fix it with `chmod go-w {directory}`, or point PYMC_AOT_CACHE_DIR at a private directory."
        )
    if not read_only and hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise CachePermissionError(
            f"pymc-aot refuses the cache directory {directory}: it belongs to uid {info.st_uid}, not to you "
            f"(uid {os.getuid()}). Use your own (PYMC_AOT_CACHE_DIR), or read a shared cache explicitly: "
            f"{ENV_READ_ONLY}=1 and {ENV_KEY_FILE}=<the operator's key file>."
        )


@dataclass(frozen=True)
class EntryRecord:
    """What the store knows about one entry without loading its executable."""

    digest: str
    metadata: dict[str, Any]
    executable_bytes: int
    hits: int = 0
    last_used: float | None = None


class CacheStore:
    """Executable bytes and JSON metadata by key digest, LRU-evicted under ``size_limit``."""

    def __init__(
        self,
        directory: str | os.PathLike[str] | None = None,
        *,
        size_limit: int | str | None = None,
        read_only: bool | None = None,
        secret: bytes | str | os.PathLike[str] | None = None,
    ) -> None:
        """``read_only`` (default: ``$PYMC_AOT_CACHE_READONLY``) opens a shared cache without
        writing to it; ``secret`` (bytes, or a key file; default ``$PYMC_AOT_CACHE_KEY``) is the
        operator's HMAC key it was signed with."""
        self.directory = default_cache_dir(directory)
        env_limit = os.environ.get(ENV_SIZE_LIMIT)
        self.size_limit = parse_size(size_limit if size_limit is not None else env_limit or DEFAULT_SIZE_LIMIT)
        if read_only is None:
            read_only = os.environ.get(ENV_READ_ONLY, "").lower() in ("1", "true", "yes")
        self.read_only = bool(read_only)
        if secret is None and os.environ.get(ENV_KEY_FILE):
            secret = Path(os.environ[ENV_KEY_FILE])
        if isinstance(secret, (str, os.PathLike)):
            secret = Path(secret).read_bytes()
        if self.read_only and secret is None:
            raise CachePermissionError(
                f"a read-only cache needs the key it was signed with: set {ENV_KEY_FILE} to the operator's key file"
            )
        self._db: Any = None
        self._secret: bytes | None = secret
        self._warned: set[str] = set()

    # -- plumbing -------------------------------------------------------------------
    @property
    def db(self) -> Any:
        if self._db is None:
            if self.read_only:
                check_directory(self.directory, read_only=True)
                self._db = _ReadOnlyDB(self.directory)
                return self._db
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            check_directory(self.directory, read_only=False)
            self._db = diskcache.Cache(
                str(self.directory),
                size_limit=self.size_limit,
                eviction_policy="least-recently-used",
                statistics=False,
                disk=_NoPickleDisk,
                # every value in its own file: the size limit then counts real bytes (rows
                # deleted from SQLite leave its page count, and diskcache's volume, unchanged)
                disk_min_file_size=0,
            )
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _warn_once(self, what: str, message: str) -> None:
        if what not in self._warned:
            self._warned.add(what)
            log.warning(message)

    @property
    def secret(self) -> bytes:
        """The per-user HMAC key, created with mode 0600 on first use."""
        if self._secret is None:
            path = self.directory / SECRET_FILE
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                pass
            else:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(secrets.token_bytes(32))
            info = path.stat()
            if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
                raise CachePermissionError(
                    f"pymc-aot refuses the cache key {path}: it must belong to you with mode 600 "
                    f"(`chmod 600 {path}`), or delete it to start a fresh cache"
                )
            data = path.read_bytes()
            if len(data) < 32:
                raise IntegrityError(f"the cache secret {path} is truncated; delete it")
            self._secret = data
        return self._secret

    def _sign(self, payload: bytes) -> str:
        return hmac.new(self.secret, payload, hashlib.sha256).hexdigest()

    # -- reading --------------------------------------------------------------------
    def _verified_metadata(self, digest: str) -> dict[str, Any] | None:
        try:
            raw = self.db.get(f"meta:{digest}")
            if raw is None:
                return None
            envelope = json.loads(raw)
            body = envelope["meta"]
            payload = json.dumps(body, sort_keys=True).encode()
            if not hmac.compare_digest(str(envelope["sig"]), self._sign(payload)):
                raise IntegrityError("signature mismatch")
            if body.get("format") != FORMAT_VERSION or body.get("digest") != digest:
                raise IntegrityError("foreign format or digest")
            return body
        except (ValueError, KeyError, TypeError, IntegrityError) as exc:
            self._drop_broken(digest, f"metadata: {exc}")
            return None

    def metadata(self, digest: str) -> dict[str, Any] | None:
        """Verified metadata of one entry, or None if absent or broken (then dropped)."""
        try:
            return self._verified_metadata(digest)
        except _STORE_ERRORS as exc:
            self._warn_once("read", f"pymc-aot cache at {self.directory} unreadable ({exc}); running uncached")
            return None

    def get(self, digest: str) -> tuple[bytes, dict[str, Any]] | None:
        """Executable bytes and metadata, verified; None on a miss or a dropped entry."""
        try:
            meta = self._verified_metadata(digest)
            if meta is None:
                return None
            try:
                exe = self.db.get(f"exe:{digest}")
            except IntegrityError:
                exe = None
            if not isinstance(exe, bytes):
                self._drop_broken(digest, "executable missing")
                return None
            if len(exe) != meta["executable_size"] or (hashlib.sha256(exe).hexdigest() != meta["executable_sha256"]):
                self._drop_broken(digest, "executable digest mismatch")
                return None
            return exe, meta
        except _STORE_ERRORS as exc:
            self._warn_once("read", f"pymc-aot cache at {self.directory} unreadable ({exc}); running uncached")
            return None

    def _drop_broken(self, digest: str, why: str) -> None:
        self._warn_once(
            f"broken:{digest}",
            f"pymc-aot: dropped cache entry {digest[:12]} that failed verification ({why}); it will be rebuilt",
        )
        self.delete(digest)

    # -- writing --------------------------------------------------------------------
    def put(self, digest: str, executable: bytes, metadata: dict[str, Any]) -> bool:
        """Store an entry; returns False (after one warning) if the store cannot be written."""
        body = dict(metadata)
        body.update(
            format=FORMAT_VERSION,
            digest=digest,
            executable_size=len(executable),
            executable_sha256=hashlib.sha256(executable).hexdigest(),
        )
        if self.read_only:
            return False
        payload = json.dumps(body, sort_keys=True).encode()
        envelope = json.dumps({"meta": body, "sig": self._sign(payload)}, sort_keys=True)
        try:
            with self.db.transact():
                self.db.set(f"exe:{digest}", bytes(executable))
                self.db.set(f"use:{digest}", json.dumps({"hits": 0, "last_used": time.time()}))
                self.db.set(f"meta:{digest}", envelope)
            return True
        except _STORE_ERRORS as exc:
            self._warn_once("write", f"pymc-aot cache at {self.directory} not writable ({exc}); running uncached")
            return False

    def record_hit(self, digest: str) -> None:
        """Count a hit and stamp the last use; failures here never matter."""
        if self.read_only:
            return
        try:
            with self.db.transact():
                usage = self._usage(digest)
                usage["hits"] = int(usage.get("hits", 0)) + 1
                usage["last_used"] = time.time()
                self.db.set(f"use:{digest}", json.dumps(usage))
        except _STORE_ERRORS:
            pass

    def _usage(self, digest: str) -> dict[str, Any]:
        try:
            usage = json.loads(self.db.get(f"use:{digest}") or "{}")
            return usage if isinstance(usage, dict) else {}
        except ValueError:
            return {}

    def delete(self, digest: str) -> bool:
        """Remove an entry; True if anything was there."""
        if self.read_only:
            return False
        try:
            with self.db.transact():
                found = [self.db.delete(f"{kind}:{digest}") for kind in ("meta", "exe", "use")]
            return any(found)
        except _STORE_ERRORS:
            return False

    # -- listing --------------------------------------------------------------------
    def digests(self) -> Iterator[str]:
        """Digests of entries whose metadata is present (not yet verified)."""
        for key in list(self.db.iterkeys()):
            if isinstance(key, str) and key.startswith("meta:"):
                yield key[5:]

    def entries(self) -> list[EntryRecord]:
        """Every complete, verified entry; orphans and broken entries are dropped."""
        records = []
        present = {k for k in self.db.iterkeys() if isinstance(k, str)}
        for key in present:
            kind, _, digest = key.partition(":")
            if kind in ("exe", "use") and f"meta:{digest}" not in present and not self.read_only:
                self.db.delete(key)
        for digest in list(self.digests()):
            if f"exe:{digest}" not in present:
                self.delete(digest)
                continue
            meta = self.metadata(digest)
            if meta is None:
                continue
            usage = self._usage(digest)
            records.append(
                EntryRecord(
                    digest=digest,
                    metadata=meta,
                    executable_bytes=int(meta["executable_size"]),
                    hits=int(usage.get("hits", 0)),
                    last_used=usage.get("last_used"),
                )
            )
        records.sort(key=lambda r: r.metadata.get("created", 0))
        return records

    def find(self, prefix: str) -> list[str]:
        """Digests starting with ``prefix``."""
        return sorted(d for d in self.digests() if d.startswith(prefix))

    def volume(self) -> int:
        """Bytes the store accounts for (what the size limit bounds)."""
        return int(self.db.volume())

    def clear(self) -> int:
        """Delete every entry; returns how many entries there were."""
        if self.read_only:
            return 0
        n = sum(1 for _ in self.digests())
        self.db.clear()
        return n
