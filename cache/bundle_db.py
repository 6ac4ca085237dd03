"""A bundle read in place as a read-only store: the file, or the directory it unpacks to.

A bundle baked into a container image needs no database and no writes: with
``PYMC_AOT_CACHE_READONLY=1``, ``PYMC_AOT_CACHE_PUBLIC_KEY`` and ``PYMC_AOT_CACHE_DIR`` naming
the bundle (or its unpacked directory, ``manifest.json`` and ``entries/``), the store reads
its rows from here. The manifest (format, signer, signature) is checked when it is opened;
every entry is then verified on each read by the store, as a shared cache's is.
"""

from __future__ import annotations

import json
import os
import re
import threading
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .bundle import MANIFEST, UNREADABLE, BundleError, check_manifest
from .errors import IntegrityError
from .readonly import read_regular_file

_DIGEST = re.compile(r"[0-9a-f]{1,128}")
_MEMBERS = {"meta": "meta.json", "exe": "exe"}


def is_unpacked_bundle(root: Path) -> bool:
    """A directory holding a bundle's manifest and no database."""
    return root.is_dir() and (root / MANIFEST).is_file() and not (root / "cache.db").exists()


class BundleDB:
    """The rows (``meta:``, ``exe:``; never ``use:``) of a bundle, in ``ReadOnlyDB``'s shape."""

    def __init__(self, root: Path, verifier: Any) -> None:
        self.directory = root
        self._lock = threading.Lock()
        self._zip: zipfile.ZipFile | None = None
        try:
            if root.is_dir():
                manifest = json.loads(read_regular_file(str(root / MANIFEST)))
            else:
                self._zip = zipfile.ZipFile(root)
                manifest = json.loads(self._zip.read(MANIFEST))
        except (*UNREADABLE, ValueError) as exc:
            raise BundleError(f"bundle {root}: no readable manifest ({type(exc).__name__}: {exc})") from None
        body = check_manifest(manifest, verifier, f"bundle {root}")
        listed = [e.get("digest") for e in body["entries"] if isinstance(e, dict)]
        self._digests = dict.fromkeys(d for d in listed if isinstance(d, str))

    def _read(self, key: str) -> Any:
        kind, _, digest = key.partition(":")
        if kind not in _MEMBERS or not _DIGEST.fullmatch(digest) or digest not in self._digests:
            return None
        name = f"entries/{digest}/{_MEMBERS[kind]}"
        if self._zip is None:
            data = read_regular_file(str(self.directory / name))
        else:
            try:
                with self._lock:
                    data = self._zip.read(name)
            except UNREADABLE as exc:  # a damaged member: a broken entry, never trusted
                raise IntegrityError(f"bundle member {name} cannot be read ({exc})") from None
        return data.decode("utf-8") if kind == "meta" else data

    def get(self, key: str, default: Any = None) -> Any:
        try:
            value = self._read(key)
        except FileNotFoundError:
            return default
        return default if value is None else value

    def get_many(self, keys: Sequence[str]) -> dict[str, Any]:
        found = {key: self.get(key) for key in keys}
        return {key: value for key, value in found.items() if value is not None}

    def iterkeys(self) -> Iterator[str]:
        for digest in self._digests:
            yield f"meta:{digest}"
            yield f"exe:{digest}"

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def volume(self) -> int:
        if self._zip is not None:
            return os.stat(self.directory).st_size
        return sum(p.stat().st_size for p in self.directory.rglob("*") if p.is_file())

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
