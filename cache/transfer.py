"""Entries of a store out to a bundle, and a bundle's entries into a store (``pymc-aot export`` /
``import``). An auto entry travels with the candidates it lists."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .bundle import BundleEntry, read_bundle, write_bundle
from .candidates import candidate_digests
from .entry_record import EntryRecord
from .errors import CachePermissionError
from .signing import KeySource
from .store import CacheStore


def _model_names(model: str) -> set[str]:
    """``model`` as ``inspect`` shows a model's name; ``path/file.py:obj`` also as ``file:obj``."""
    names = {model}
    file, sep, obj = model.rpartition(":")
    if sep and file.endswith(".py"):
        names.add(f"{Path(file).stem}:{obj}")
    return names


def choose(records: Sequence[EntryRecord], prefixes: Sequence[str], model: str | None) -> list[EntryRecord]:
    """The records whose digest starts with one of ``prefixes`` (any, if none) and whose model
    name is ``model`` (any, if None), plus the auto candidates those list."""
    names = _model_names(model) if model else None
    chosen = [
        r for r in records
        if (not prefixes or any(r.digest.startswith(p) for p in prefixes))
        and (names is None or r.metadata.get("model_name") in names)
    ]  # fmt: skip
    listed = candidate_digests(chosen)
    going = {r.digest for r in chosen}
    return chosen + [r for r in records if r.digest in listed and r.digest not in going]


def export_bundle(
    store: CacheStore,
    path: str | os.PathLike[str],
    signing_key: KeySource,
    prefixes: Sequence[str] = (),
    model: str | None = None,
) -> dict[str, Any]:
    """Write the chosen entries of ``store`` (each verified as it is read) to a bundle signed with
    ``signing_key``; returns its manifest. ValueError if nothing matches."""
    chosen = choose(store.entries(), prefixes, model)
    if not chosen:
        what = " ".join(prefixes) or "any key"
        raise ValueError(f"no cached entry matches {what}{f' of model {model}' if model else ''} in {store.directory}")
    entries = []
    for record in chosen:
        found = store.get(record.digest)
        if found is not None:  # an entry that failed verification was dropped: not exported
            entries.append((record.digest, found[0], found[1]))
    return write_bundle(path, entries, signing_key)


def import_bundle(
    store: CacheStore, path: str | os.PathLike[str], public_key: KeySource
) -> tuple[dict[str, Any], list[BundleEntry]]:
    """Verify every entry of the bundle, then store them all; BundleError (nothing stored) if
    one fails. CachePermissionError for a read-only store."""
    if store.read_only:
        raise CachePermissionError(f"the cache {store.directory} is opened read-only: nothing can be imported into it")
    manifest, entries = read_bundle(path, public_key)
    for entry in entries:
        if not store.put(entry.digest, entry.executable, entry.metadata):
            raise OSError(f"the cache {store.directory} cannot be written; imported nothing more")
    return manifest, entries
