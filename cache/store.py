"""A small, boring, size-bounded store of compiled transforms.

One entry is three diskcache items under the entry's hex digest:

* ``exe:<digest>``  the executable bytes, written first;
* ``meta:<digest>`` a JSON envelope ``{"meta": {...}, "sig": "..."}`` whose metadata
  records the SHA-256 and size of the executable; written last, so its presence marks a
  complete entry;
* ``use:<digest>``  a JSON usage record (hits, last used), unsigned bookkeeping.

Nothing is trusted before it is verified: the envelope's signature (HMAC-SHA256 with a
per-user secret in the cache root, or the operator's Ed25519 key for a shared cache, see
``signing``) and the executable's digest are checked on every read, and an entry that
fails, or any of whose rows is refused, is dropped and reported as missing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import diskcache

from .disk import open_database
from .errors import CacheUnavailableError, IntegrityError
from .paths import DEFAULT_SIZE_LIMIT, ENV_READ_ONLY, ENV_SIZE_LIMIT, default_cache_dir, parse_size
from .permissions import private_subdirectory
from .signing import Ed25519Signer, HmacSigner, KeySource, load_user_secret, resolve_signer

log = logging.getLogger("pymc_aot.cache")

FORMAT_VERSION = 1
_STORE_ERRORS = (OSError, sqlite3.Error, diskcache.Timeout)
_BAD_VALUE = (ValueError, KeyError, TypeError, RecursionError, IntegrityError)


@dataclass(frozen=True)
class EntryRecord:
    """What the store knows about one entry without loading its executable."""

    digest: str
    metadata: dict[str, Any]
    executable_bytes: int
    hits: int = 0
    last_used: float | None = None


def _number(value: Any, default: float = 0.0) -> float:
    """A finite number from unsigned bookkeeping, else ``default``."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else default


class CacheStore:
    """Executable bytes and JSON metadata by key digest, LRU-evicted under ``size_limit``."""

    def __init__(
        self,
        directory: str | os.PathLike[str] | None = None,
        *,
        size_limit: int | str | None = None,
        read_only: bool | None = None,
        signing_key: KeySource | None = None,
        public_key: KeySource | None = None,
    ) -> None:
        """``read_only`` (default: ``$PYMC_AOT_CACHE_READONLY``) opens a shared cache without
        writing to it, verified with the operator's Ed25519 ``public_key`` (default
        ``$PYMC_AOT_CACHE_PUBLIC_KEY``). ``signing_key`` (default ``$PYMC_AOT_CACHE_SIGNING_KEY``)
        is the operator's private key that a shared cache is filled with. Keys are PEM text
        or files. Without either, entries are signed with a per-user secret."""
        self.directory = default_cache_dir(directory)
        env_limit = os.environ.get(ENV_SIZE_LIMIT)
        self.size_limit = parse_size(size_limit if size_limit is not None else env_limit or DEFAULT_SIZE_LIMIT)
        if read_only is None:
            read_only = os.environ.get(ENV_READ_ONLY, "").lower() in ("1", "true", "yes")
        self.read_only = bool(read_only)
        self._signer = resolve_signer(read_only=self.read_only, signing_key=signing_key, public_key=public_key)
        self._db: Any = None
        self._warned: set[str] = set()

    # -- plumbing -------------------------------------------------------------------
    @property
    def db(self) -> Any:
        """The open database; CacheUnavailableError (after one warning) if it cannot be opened."""
        if self._db is None:
            try:
                self._db = self._open()
            except _STORE_ERRORS as exc:
                message = f"pymc-aot: the cache at {self.directory} cannot be used ({exc}); running uncached"
                self._warn_once("open", message)
                raise CacheUnavailableError(str(exc)) from exc
        return self._db

    def _open(self) -> Any:
        if self.read_only:
            return open_database(self.directory, read_only=True)
        db = open_database(
            self.directory, read_only=False, size_limit=self.size_limit, shared=isinstance(self._signer, Ed25519Signer)
        )
        if self._signer is None:
            try:
                self._signer = HmacSigner(load_user_secret(self.directory))
            except BaseException:
                db.close()
                raise
        return db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _warn_once(self, what: str, message: str) -> None:
        if what not in self._warned:
            self._warned.add(what)
            log.warning(message)

    @contextlib.contextmanager
    def _uncached(self, action: str) -> Iterator[None]:
        """Turn a disk or database failure into one warning per action; the caller then misses."""
        try:
            yield
        except CacheUnavailableError:
            pass  # warned once when opening
        except _STORE_ERRORS as exc:
            what = "unreadable" if action == "read" else "not writable"
            self._warn_once(action, f"pymc-aot cache at {self.directory} {what} ({exc}); running uncached")

    def private_subdirectory(self, name: str) -> Path | None:
        """``<root>/<name>`` for another tool's unsigned cache (JAX's), checked like the root.

        None, after a warning, for a read-only shared cache or a root that cannot be made."""
        if self.read_only:
            self._warn_once(name, f"pymc-aot: not putting {name} into the read-only shared cache {self.directory}")
            return None
        try:
            return private_subdirectory(self.directory, name)
        except OSError as exc:
            self._warn_once(name, f"pymc-aot: cannot make {name} in {self.directory} ({exc}); left out")
            return None

    # -- reading --------------------------------------------------------------------
    def _check_envelope(self, raw: Any, digest: str) -> dict[str, Any]:
        envelope = json.loads(raw)
        body = envelope["meta"]
        if not isinstance(body, dict):
            raise IntegrityError("metadata is not an object")
        payload = json.dumps(body, sort_keys=True).encode()
        if not self._signer.verify(payload, envelope["sig"]):
            raise IntegrityError(f"signature does not verify with {self._signer.description}")
        if body.get("format") != FORMAT_VERSION or body.get("digest") != digest:
            raise IntegrityError("foreign format or digest")
        if not isinstance(body.get("executable_size"), int) or not isinstance(body.get("executable_sha256"), str):
            raise IntegrityError("no executable size or digest")
        return body

    def _verified_metadata(self, digest: str) -> dict[str, Any] | None:
        try:
            raw = self.db.get(f"meta:{digest}")
            return None if raw is None else self._check_envelope(raw, digest)
        except _BAD_VALUE as exc:
            self._drop_broken(digest, f"metadata: {exc}")
            return None

    def metadata(self, digest: str) -> dict[str, Any] | None:
        """Verified metadata of one entry, or None if absent or broken (then dropped)."""
        with self._uncached("read"):
            return self._verified_metadata(digest)
        return None

    def get(self, digest: str) -> tuple[bytes, dict[str, Any]] | None:
        """Executable bytes and metadata, verified; None on a miss or a dropped entry."""
        with self._uncached("read"):
            meta = self._verified_metadata(digest)
            if meta is None:
                return None
            try:
                exe = self.db.get(f"exe:{digest}")
            except _BAD_VALUE as exc:
                self._drop_broken(digest, f"executable: {exc}")
                return None
            if not isinstance(exe, bytes):
                self._drop_broken(digest, "executable missing")
            elif len(exe) != meta["executable_size"] or hashlib.sha256(exe).hexdigest() != meta["executable_sha256"]:
                self._drop_broken(digest, "executable digest mismatch")
            else:
                return exe, meta
        return None

    def _drop_broken(self, digest: str, why: str) -> None:
        done = "ignored (read-only cache); compiled in memory" if self.read_only else "dropped; it will be rebuilt"
        self._warn_once(f"broken:{digest}", f"pymc-aot: cache entry {digest[:12]} failed verification ({why}): {done}")
        self.delete(digest)

    def _usage(self, digest: str) -> dict[str, Any] | None:
        """The usage record ({} if absent or garbled); None if refused, and the entry dropped."""
        try:
            raw = self.db.get(f"use:{digest}")
        except IntegrityError as exc:
            self._drop_broken(digest, f"usage record: {exc}")
            return None
        try:
            usage = json.loads(raw) if raw is not None else {}
        except (ValueError, TypeError, RecursionError):
            return {}
        return usage if isinstance(usage, dict) else {}

    # -- writing --------------------------------------------------------------------
    def put(self, digest: str, executable: bytes, metadata: dict[str, Any]) -> bool:
        """Store an entry; returns False (after one warning) if the store cannot be written."""
        if self.read_only:
            return False
        body = dict(metadata)
        body.update(
            format=FORMAT_VERSION,
            digest=digest,
            executable_size=len(executable),
            executable_sha256=hashlib.sha256(executable).hexdigest(),
        )
        with self._uncached("write"):
            db = self.db  # opened first: a private store's secret is loaded with it
            payload = json.dumps(body, sort_keys=True).encode()
            envelope = json.dumps({"meta": body, "sig": self._signer.sign(payload)}, sort_keys=True)
            with db.transact():
                db.set(f"exe:{digest}", bytes(executable))
                db.set(f"use:{digest}", json.dumps({"hits": 0, "last_used": time.time()}))
                db.set(f"meta:{digest}", envelope)
            return True
        return False

    def record_hit(self, digest: str) -> None:
        """Count a hit and stamp the last use."""
        if self.read_only:
            return
        with self._uncached("write"), self.db.transact():
            usage = self._usage(digest)
            if usage is not None:
                usage["hits"] = int(_number(usage.get("hits"))) + 1
                usage["last_used"] = time.time()
                self.db.set(f"use:{digest}", json.dumps(usage))

    def delete(self, digest: str) -> bool:
        """Remove an entry; True if anything was there."""
        if self.read_only:
            return False
        with self._uncached("write"):
            with self.db.transact():
                found = [self.db.delete(f"{kind}:{digest}") for kind in ("meta", "exe", "use")]
            return any(found)
        return False

    # -- listing --------------------------------------------------------------------
    def _keys(self) -> list[str]:
        with self._uncached("read"):
            return [k for k in self.db.iterkeys() if isinstance(k, str)]
        return []

    def digests(self) -> Iterator[str]:
        """Digests of entries whose metadata is present (not yet verified)."""
        for key in self._keys():
            if key.startswith("meta:"):
                yield key[5:]

    def _record(self, digest: str, present: set[str]) -> EntryRecord | None:
        if f"exe:{digest}" not in present:
            self.delete(digest)
            return None
        meta = self._verified_metadata(digest)
        usage = self._usage(digest) if meta is not None else None
        if meta is None or usage is None:
            return None
        last_used = usage.get("last_used")
        return EntryRecord(
            digest=digest,
            metadata=meta,
            executable_bytes=meta["executable_size"],
            hits=int(_number(usage.get("hits"))),
            last_used=_number(last_used) if isinstance(last_used, (int, float)) else None,
        )

    def entries(self) -> list[EntryRecord]:
        """Every complete, verified entry; orphans and broken entries are dropped."""
        records = []
        with self._uncached("read"):
            present = set(self._keys())
            for key in present:
                kind, _, digest = key.partition(":")
                if kind in ("exe", "use") and f"meta:{digest}" not in present and not self.read_only:
                    self.db.delete(key)
            for key in sorted(present):
                record = self._record(key[5:], present) if key.startswith("meta:") else None
                if record is not None:
                    records.append(record)
        records.sort(key=lambda r: _number(r.metadata.get("created")))
        return records

    def find(self, prefix: str) -> list[str]:
        """Digests starting with ``prefix``."""
        return sorted(d for d in self.digests() if d.startswith(prefix))

    def volume(self) -> int:
        """Bytes the store accounts for (what the size limit bounds)."""
        with self._uncached("read"):
            return int(self.db.volume())
        return 0

    def clear(self) -> int:
        """Delete every entry; returns how many entries there were."""
        if self.read_only:
            return 0
        n = sum(1 for _ in self.digests())
        with self._uncached("write"):
            self.db.clear()
            return n
        return 0
