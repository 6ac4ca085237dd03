"""Object storage as a remote tier: a local miss looks there, verifies, and stores locally.

``PYMC_AOT_CACHE_REMOTE`` is any fsspec URL (``file://``, ``s3://bucket/prefix``, ``gs://``,
``az://``, ...); the remote holds ``<prefix>/entries/<digest>/exe`` and ``meta.json``, laid out
as an unpacked bundle's entries and signed the same way, by the operator's Ed25519 key
(``pymc-aot push``). A worker never trusts the remote: every entry is verified with
``PYMC_AOT_CACHE_REMOTE_PUBLIC_KEY`` (else the read-only cache's public key) as a bundle
entry is. A remote that cannot be reached gives one warning and a miss (a local compile),
never a failed run; one that does not answer within ``PYMC_AOT_CACHE_REMOTE_TIMEOUT`` seconds
(default 30) is given up on for the rest of the process. fsspec is imported only on a local miss.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from .errors import BAD_VALUE, CacheConfigError
from .signing import Ed25519Verifier, KeySource, load_public_key
from .verify import check_envelope, check_executable, seal

ENV_REMOTE = "PYMC_AOT_CACHE_REMOTE"
ENV_REMOTE_PUBLIC_KEY = "PYMC_AOT_CACHE_REMOTE_PUBLIC_KEY"
ENV_REMOTE_TIMEOUT = "PYMC_AOT_CACHE_REMOTE_TIMEOUT"
DEFAULT_TIMEOUT = 30.0
log = logging.getLogger("pymc_aot.cache")


class RemoteTimeout(Exception):
    """The remote did not answer in time."""


def remote_timeout() -> float:
    """Seconds a remote read may take (``$PYMC_AOT_CACHE_REMOTE_TIMEOUT``); CacheConfigError if not a number."""
    raw = os.environ.get(ENV_REMOTE_TIMEOUT, "").strip()
    try:
        seconds = float(raw) if raw else DEFAULT_TIMEOUT
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise CacheConfigError(f"{ENV_REMOTE_TIMEOUT}: expected a number of seconds above 0, got {raw!r}")
    return seconds


def _within(seconds: float, read: Callable[[], Any]) -> Any:
    """``read()`` on a daemon thread, its result or exception; RemoteTimeout if it takes longer
    than ``seconds`` (the thread is left behind: a hung backend cannot hang the run or its exit)."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append((True, read()))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box.append((False, exc))

    thread = threading.Thread(target=run, name="pymc-aot-remote-read", daemon=True)
    thread.start()
    thread.join(seconds)
    if not box:
        raise RemoteTimeout(f"no answer within {seconds:g} s ({ENV_REMOTE_TIMEOUT})")
    ok, value = box[0]
    if not ok:
        raise value
    return value


class RemoteTier:
    """Entries by digest in an fsspec file system, verified with the operator's public key."""

    def __init__(self, url: str, public_key: KeySource | None = None, *, fallback: Any = None) -> None:
        self.url = url.rstrip("/")
        self._public_key, self._fallback = public_key, fallback
        self._fs: Any = None
        self._root = ""
        self._warned: set[str] = set()
        self._fetched: dict[str, tuple[bytes, dict[str, Any]]] = {}
        self._offline = False  # set when a read timed out: not asked again in this process

    def _warn_once(self, what: str, message: str) -> None:
        if what not in self._warned:
            self._warned.add(what)
            log.warning(message)

    @property
    def verifier(self) -> Ed25519Verifier:
        """The operator's public key; CacheConfigError naming the variables if there is none."""
        key = self._public_key or os.environ.get(ENV_REMOTE_PUBLIC_KEY)
        if key:
            return Ed25519Verifier(load_public_key(key, ENV_REMOTE_PUBLIC_KEY))
        if isinstance(self._fallback, Ed25519Verifier):
            return self._fallback
        raise CacheConfigError(
            f"{ENV_REMOTE}={self.url} needs the operator's Ed25519 public key to verify what it holds: "
            f"set {ENV_REMOTE_PUBLIC_KEY}=<public key file>"
        )

    def filesystem(self) -> tuple[Any, str]:
        """The fsspec file system and the prefix inside it."""
        if self._fs is None:
            import fsspec

            self._fs, self._root = fsspec.core.url_to_fs(self.url)
            self._root = self._root.rstrip("/")
        return self._fs, self._root

    def _path(self, digest: str, member: str) -> str:
        return f"{self.filesystem()[1]}/entries/{digest}/{member}"

    def fetch(self, digest: str) -> tuple[bytes, dict[str, Any]] | None:
        """The verified executable and metadata of ``digest``; None if absent, refused or unreachable."""
        if digest in self._fetched:
            return self._fetched[digest]
        if self._offline:
            return None
        verifier, seconds = self.verifier, remote_timeout()
        try:
            envelope, executable = _within(seconds, lambda: self._read(digest))
        except FileNotFoundError:
            return None
        except Exception as exc:  # noqa: BLE001 - any backend failure: a miss, never a failed run
            self._offline = isinstance(exc, RemoteTimeout)
            self._warn_once("unreachable", f"pymc-aot: the remote cache {self.url} cannot be read ({exc}); compiling")
            return None
        try:
            metadata = check_envelope(envelope, digest, verifier)
            found = check_executable(executable, metadata), metadata
        except BAD_VALUE as exc:
            self._warn_once(digest, f"pymc-aot: remote entry {digest[:12]} at {self.url} failed verification ({exc})")
            return None
        self._fetched[digest] = found
        return found

    def _read(self, digest: str) -> tuple[bytes, bytes]:
        fs, _ = self.filesystem()
        return fs.cat_file(self._path(digest, "meta.json")), fs.cat_file(self._path(digest, "exe"))

    def push(self, digest: str, executable: bytes, metadata: dict[str, Any], signer: Any) -> None:
        """Upload one entry signed with the operator's ``signer``: the executable first, its
        envelope (which marks it complete) last."""
        fs, _ = self.filesystem()
        envelope = seal(digest, executable, metadata, signer).encode()
        fs.makedirs(self._path(digest, "").rstrip("/"), exist_ok=True)
        fs.pipe_file(self._path(digest, "exe"), executable)
        fs.pipe_file(self._path(digest, "meta.json"), envelope)

    def digests(self) -> list[str]:
        """Digests of the entries the remote holds (not verified)."""
        fs, root = self.filesystem()
        try:
            found = fs.glob(f"{root}/entries/*/meta.json")
        except FileNotFoundError:
            return []
        return sorted(path.rstrip("/").split("/")[-2] for path in found)


def remote_from_env(fallback: Any = None) -> RemoteTier | None:
    """The remote tier ``$PYMC_AOT_CACHE_REMOTE`` names, or None."""
    url = os.environ.get(ENV_REMOTE, "").strip()
    return RemoteTier(url, fallback=fallback) if url else None
