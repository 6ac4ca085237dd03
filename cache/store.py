"""A small, boring, size-bounded store of compiled transforms.

One entry is three diskcache items under the entry's hex digest: ``exe:<digest>``, the executable bytes, written
first; ``meta:<digest>``, a signed JSON envelope recording the executable's SHA-256 and size, written last (it marks a
complete entry); ``use:<digest>``, an unsigned JSON usage record (hits, last used).

Nothing is trusted before it is verified (``verify``): the envelope's signature (a per-user HMAC secret, or the
operator's Ed25519 key for a shared cache, ``signing``) and the executable's digest, on every read; an entry that
fails is dropped and reported missing. A hit is read through a read-only SQLite connection (``readonly``); anything
else goes through diskcache. A local miss may be filled from a remote tier (``remote``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .deferred import writes_for
from .errors import BAD_VALUE, CacheUnavailableError, IntegrityError, store_errors
from .other_key import broken_warning
from .paths import ENV_READ_ONLY, default_cache_dir, parse_size, size_limit_from_env
from .permissions import private_subdirectory
from .readonly import OwnedReader
from .records import finite_number, fresh_usage, parse_usage, usage_after_hit
from .remote import remote_from_env
from .signing import Ed25519Signer, HmacSigner, KeySource, load_user_secret, resolve_signer
from .verify import FORMAT_VERSION, check_envelope, read_entry, seal, verify_rows

if TYPE_CHECKING:
    from .entry_record import EntryRecord

log = logging.getLogger("pymc_aot.cache")

__all__ = ["FORMAT_VERSION", "CacheStore"]


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
        """``read_only`` (``$PYMC_AOT_CACHE_READONLY``): a shared cache read without writing, verified with the
        operator's Ed25519 ``public_key`` (``$PYMC_AOT_CACHE_PUBLIC_KEY``); ``signing_key`` (``$..._SIGNING_KEY``)
        fills one. Keys are PEM text or files. Without either, a per-user secret signs entries."""
        self.directory = default_cache_dir(directory)
        self.size_limit = parse_size(size_limit) if size_limit is not None else size_limit_from_env()
        from_env = os.environ.get(ENV_READ_ONLY, "").lower() in ("1", "true", "yes")
        self.read_only = bool(from_env if read_only is None else read_only)
        self._signer = resolve_signer(read_only=self.read_only, signing_key=signing_key, public_key=public_key)
        self._db: Any = None
        self._reader = OwnedReader(self.directory)
        self._later = writes_for(str(self.directory))
        self._warned: set[str] = set()
        self.remote = remote_from_env(self._signer)  # a miss looks there (``remote``)

    # -- plumbing -------------------------------------------------------------------
    @property
    def db(self) -> Any:
        """The open database (deferred writes finished first); CacheUnavailableError after one warning."""
        self._later.wait()
        if self._db is None:
            try:
                self._db = self._open()
            except store_errors() as exc:
                message = f"pymc-aot: the cache at {self.directory} cannot be used ({exc}); running uncached"
                self._warn_once("open", message)
                raise CacheUnavailableError(str(exc)) from exc
        return self._db

    def _open(self) -> Any:
        from .disk import open_database  # imports diskcache: only to write, or to decide a miss

        if self.read_only:
            return open_database(self.directory, read_only=True, verifier=self._signer)
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
        self._later.wait()
        self._reader.close()
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
        except store_errors() as exc:
            what = "unreadable" if action == "read" else "not writable"
            self._warn_once(action, f"pymc-aot cache at {self.directory} {what} ({exc}); running uncached")

    def private_subdirectory(self, name: str) -> Path | None:
        """``<root>/<name>`` for JAX's unsigned cache, checked like the root; None (warned) if read-only or not made."""
        if self.read_only:
            self._warn_once(name, f"pymc-aot: not putting {name} into the read-only shared cache {self.directory}")
            return None
        try:
            return private_subdirectory(self.directory, name)
        except OSError as exc:
            self._warn_once(name, f"pymc-aot: cannot make {name} in {self.directory} ({exc}); left out")
            return None

    # -- reading --------------------------------------------------------------------
    def _verified_metadata(self, digest: str) -> dict[str, Any] | None:
        try:
            raw = self.db.get(f"meta:{digest}")
            return None if raw is None else check_envelope(raw, digest, self._signer)
        except BAD_VALUE as exc:
            self._drop_broken(digest, f"metadata: {exc}")
            return None

    def _quick_read(self, digest: str, executable: bool) -> tuple[dict[str, Any], bytes | None] | None:
        """A verified entry's metadata (and executable) read without diskcache, or None for anything
        but a verified entry: the careful path then decides (and reports, and drops)."""
        if self._db is not None or self.read_only:
            return None  # diskcache (or the shared store's own read-only connection) is open anyway
        try:
            kinds = ("meta", "exe") if executable else ("meta",)
            rows = self._reader.get_many([f"{kind}:{digest}" for kind in kinds])
            if rows is None:
                return None
            self._signer = self._signer or HmacSigner(load_user_secret(self.directory))  # after its checks
            return verify_rows(rows, digest, self._signer)
        except Exception:  # noqa: BLE001 - nothing from here is trusted; the careful path reads again
            return None

    def metadata(self, digest: str) -> dict[str, Any] | None:
        """Verified metadata of one entry, or None if absent or broken (then dropped)."""
        quick = self._quick_read(digest, executable=False)
        if quick is not None:
            return quick[0]
        with self._uncached("read"):
            found = self._verified_metadata(digest)
            if found is not None:
                return found
        return (self._from_remote(digest) or (None, None))[1]

    def get(self, digest: str) -> tuple[bytes, dict[str, Any]] | None:
        """Executable bytes and metadata, verified; None on a miss or a dropped entry."""
        quick = self._quick_read(digest, executable=True)
        if quick is not None and quick[1] is not None:
            return quick[1], quick[0]
        with self._uncached("read"):
            try:
                found = read_entry(self.db.get, digest, self._signer)  # read again if replaced meanwhile
                if found is not None:
                    return found
            except IntegrityError as exc:
                self._drop_broken(digest, str(exc))
        return self._from_remote(digest)

    def _from_remote(self, digest: str) -> tuple[bytes, dict[str, Any]] | None:
        """A local miss: the remote tier's verified entry (then stored here, if writable), or None."""
        found = self.remote.fetch(digest) if self.remote is not None else None
        if found is not None and not self.read_only:
            self.put(digest, *found)
        return found

    def _drop_broken(self, digest: str, why: str) -> None:
        done = "ignored (read-only cache); compiled in memory" if self.read_only else "dropped; it will be rebuilt"
        self._warn_once(*broken_warning(self, digest, why, done))  # one for all signed with another key
        self.delete(digest)

    def _usage(self, digest: str) -> dict[str, Any] | None:
        """The usage record ({} if absent or garbled); None if refused, and the entry dropped."""
        try:
            raw = self.db.get(f"use:{digest}")
        except IntegrityError as exc:
            self._drop_broken(digest, f"usage record: {exc}")
            return None
        return parse_usage(raw)

    # -- writing --------------------------------------------------------------------
    def put(self, digest: str, executable: bytes, metadata: dict[str, Any]) -> bool:
        """Store an entry; returns False (after one warning) if the store cannot be written."""
        if self.read_only:
            return False
        with self._uncached("write"):
            db = self.db  # opened first: a private store's secret is loaded with it
            envelope = seal(digest, executable, metadata, self._signer)
            with db.transact():
                db.set(f"exe:{digest}", bytes(executable))
                db.set(f"use:{digest}", fresh_usage())
                db.set(f"meta:{digest}", envelope)
            return True
        return False

    def record_hit(self, digest: str) -> None:
        """Count a hit, stamp the last use, and mark the entry's rows used for the LRU eviction."""
        if self.read_only:
            return
        with self._uncached("write"), self.db.transact():
            usage = self._usage(digest)
            if usage is not None:
                self.db.set(f"use:{digest}", usage_after_hit(usage))
                # what diskcache's least-recently-used `get` does; the hit read these rows elsewhere
                keys = (f"meta:{digest}", f"exe:{digest}")
                self.db._sql("UPDATE Cache SET access_time = ? WHERE raw = 1 AND key IN (?, ?)", (time.time(), *keys))

    def record_hit_later(self, digest: str) -> None:
        """``record_hit`` on a background thread; the store's next use waits for it."""
        if not self.read_only:
            self._later.submit(lambda: self.record_hit(digest))

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
        from .entry_record import EntryRecord  # listings only: not on a hit's import path
        return None if meta is None or usage is None else EntryRecord.of(digest, meta, usage)

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
        records.sort(key=lambda r: finite_number(r.metadata.get("created")))
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
