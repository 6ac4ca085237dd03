"""Fuzz a cache that travels (issue 25): mutated bundles and remotes never give a forged entry.

Material: the store fuzzer's entries A and B (``Template``) as an operator-signed bundle and
remote, the same signed by a foreign key, an impostor under A's digest, and an older bundle
(A only). Each case mutates a copy (``_fuzz_travel_cases``), reads it as a worker would, and
counts: accepted (an entry returned or stored that the operator did not sign as it is),
wrong arrays (every Nth case, the runtime's result differs from stock PyMC), crashes (any
exception: a refusal is a clean miss or ``BundleError``), and refused (the mutation took effect).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench._fuzz_travel_cases import ERRORS, Members, apply_bundle, apply_remote

FUZZ_PROTOCOL = "pymcaotfuzz"
REMOTE_ENV = ("PYMC_AOT_CACHE_REMOTE", "PYMC_AOT_CACHE_REMOTE_PUBLIC_KEY", "PYMC_AOT_CACHE_REMOTE_TIMEOUT")


@dataclass
class Tally:
    """What fuzz cases did, summed (the store's and the travel cases' outcomes share it)."""

    cases: int = 0
    runtime_cases: int = 0
    refused: int = 0
    wrong_arrays: int = 0
    crashes: int = 0
    examples: list[str] = field(default_factory=list)

    def note(self, what: str, case: Any, detail: str = "") -> None:
        if len(self.examples) < 5:
            self.examples.append(f"{what}: {case!r} {detail}"[:600])

    def failures(self) -> tuple[int, ...]:
        return (self.wrong_arrays, self.crashes)

    @property
    def clean(self) -> bool:
        return not any(self.failures())


@dataclass
class TravelOutcome(Tally):
    """What the bundle or remote cases did, summed."""

    accepted: int = 0

    def failures(self) -> tuple[int, ...]:
        return (self.accepted, *super().failures())


def _failing_filesystem() -> None:
    """Register ``pymcaotfuzz://``: the local file system, whose reads raise or hang as told."""
    import fsspec
    from fsspec.implementations.local import LocalFileSystem

    class Failing(LocalFileSystem):
        protocol = FUZZ_PROTOCOL
        failure = "none"

        def cat_file(self, path: str, *args: Any, **kwargs: Any) -> Any:
            if Failing.failure == "raises":
                raise ERRORS[len(path) % len(ERRORS)](f"fuzz: {path}")
            if Failing.failure == "hangs":
                time.sleep(0.5)
            return super().cat_file(path, *args, **kwargs)

    fsspec.register_implementation(FUZZ_PROTOCOL, Failing, clobber=True)
    _failing_filesystem.cls = Failing  # type: ignore[attr-defined]


class TravelMaterial:
    """Bundles and remotes of the fuzz entries: the operator's, a foreign signer's, an impostor's."""

    def __init__(self, t: Any) -> None:
        from pymc_aot.cache import generate_keypair
        from pymc_aot.cache.bundle import read_bundle, write_bundle

        self.t, self.base = t, t.base / "travel"
        d = t.digests
        self.public = t.public_key
        foreign_private, _ = generate_keypair(self.base / "foreign-keys")
        _, self.wrong_public = generate_keypair(self.base / "wrong-keys")  # a key that signed nothing here
        ab = [(d[n], t.exe[n], t.meta[n]) for n in ("A", "B")]
        impostor = [(d["A"], t.exe["impostor"], dict(t.meta["impostor"], digest=d["A"])), ab[1]]
        bundles = {"pristine": (ab, t.private_key), "foreign": (ab, foreign_private),
                   "impostor": (impostor, foreign_private), "older": (ab[:1], t.private_key)}
        self.bundles = {name: self.base / f"{name}.pmaot" for name in bundles}
        for name, (entries, key) in bundles.items():
            write_bundle(self.bundles[name], entries, key)
        self.remotes = {name: self._remote(name, bundles[name][0], bundles[name][1]) for name in ("pristine",
                        "foreign", "impostor")}
        _, verified = read_bundle(self.bundles["pristine"], self.public)
        self.allowed = {e.digest: (e.executable, json.dumps(e.metadata, sort_keys=True)) for e in verified}
        self.material = {"digests": d, "exe": t.exe, "bundles": self.bundles, "remotes": self.remotes}
        _failing_filesystem()

    def _remote(self, name: str, entries: list[tuple[str, bytes, dict[str, Any]]], key: Path) -> Path:
        from pymc_aot.cache.remote import RemoteTier
        from pymc_aot.cache.signing import Ed25519Signer, load_private_key

        root = self.base / f"remote-{name}"
        tier, signer = RemoteTier(f"file://{root}"), Ed25519Signer(load_private_key(key))
        for digest, exe, meta in entries:
            tier.push(digest, exe, meta, signer)
        return root

    def is_allowed(self, digest: str, meta: dict[str, Any] | None, exe: bytes | None = None) -> bool:
        allowed = self.allowed.get(digest)
        ok = allowed is not None and (meta is None or json.dumps(meta, sort_keys=True) == allowed[1])
        return ok and (exe is None or exe == allowed[0])


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.pop(name, None) for name in REMOTE_ENV}
    os.environ.update(values)
    try:
        yield
    finally:
        for name in REMOTE_ENV:
            os.environ.pop(name, None)
            if saved[name] is not None:
                os.environ[name] = saved[name]  # type: ignore[assignment]


def _check_reads(m: TravelMaterial, store: Any, out: TravelOutcome, case: Any) -> None:
    """Entries A and B, their metadata and the listing: each is absent or the operator's."""
    misses = 0
    for name in ("A", "B"):
        digest = m.t.digests[name]
        found = store.get(digest)
        misses += found is None
        meta = store.metadata(digest)
        if (found is not None and not m.is_allowed(digest, found[1], found[0])) or (
            meta is not None and not m.is_allowed(digest, meta)
        ):
            out.accepted += 1
            out.note("accepted", case, name)
    for record in store.entries():
        if not m.is_allowed(record.digest, record.metadata):
            out.accepted += 1
            out.note("accepted in listing", case)
    out.refused += misses > 0


def _check_runtime(m: TravelMaterial, store: Any, out: TravelOutcome, case: Any) -> None:
    import numpy as np

    from pymc_aot import runtime

    out.runtime_cases += 1
    runtime.clear_memo()
    got = runtime.postprocess(m.t.model, [s.copy() for s in m.t.samples], strategy="vmap", cache=store)
    same = list(got) == list(m.t.expected) and all(
        np.asarray(got[k]).shape == v.shape and np.allclose(np.asarray(got[k]), v, rtol=1e-10, atol=1e-10)
        for k, v in m.t.expected.items()
    )
    if not same:
        out.wrong_arrays += 1
        out.note("wrong arrays", case)


def _unpack(bundle: Path, target: Path) -> Path:
    """The bundle's members as files under ``target`` (as ``unzip`` would; no name leaves it)."""
    target.mkdir()
    with contextlib.suppress(zipfile.BadZipFile, OSError, EOFError, ValueError), zipfile.ZipFile(bundle) as zf:
        for info in zf.infolist():
            name = info.filename
            if name.startswith("/") or ".." in name.split("/") or name.endswith("/"):
                continue
            with contextlib.suppress(Exception):
                data = zf.read(info)
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                (target / name).write_bytes(data)
    return target


def bundle_case(m: TravelMaterial, case: tuple[Any, ...], out: TravelOutcome, with_runtime: bool) -> None:
    from pymc_aot.cache import CacheStore
    from pymc_aot.cache.bundle import BundleError
    from pymc_aot.cache.transfer import import_bundle

    _, reader, mutations = case
    root = m.base / "case"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    members = Members(m.bundles["pristine"], m.material)
    for mutation in mutations:
        apply_bundle(members, mutation)
    bundle = root / "b.pmaot"
    members.write(bundle)
    if reader == "import":
        worker = CacheStore(root / "worker")
        try:
            import_bundle(worker, bundle, m.public)
        except BundleError:
            out.refused += 1
            if worker.entries():
                out.accepted += 1
                out.note("stored after a refusal", case)
        else:
            _check_reads(m, worker, out, case)
        worker.close()
        return
    where = bundle if reader == "in-place" else _unpack(bundle, root / "unpacked")
    for check in [_check_reads, _check_runtime] if with_runtime else [_check_reads]:
        store = CacheStore(where, read_only=True, public_key=m.public)
        check(m, store, out, case)
        store.close()


def remote_case(m: TravelMaterial, case: tuple[Any, ...], out: TravelOutcome, with_runtime: bool) -> None:
    from pymc_aot.cache import CacheStore

    _, (key, failure), mutations = case
    root = m.base / "case"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(m.remotes["pristine"], root / "remote")
    for mutation in mutations:
        apply_remote(root / "remote", m.material, mutation)
    _failing_filesystem.cls.failure = failure  # type: ignore[attr-defined]
    scheme = "file" if failure == "none" else FUZZ_PROTOCOL
    env = {"PYMC_AOT_CACHE_REMOTE": f"{scheme}://{root / 'remote'}", "PYMC_AOT_CACHE_REMOTE_TIMEOUT": "0.05",
           "PYMC_AOT_CACHE_REMOTE_PUBLIC_KEY": str(m.public if key == "operator" else m.wrong_public)}
    with _environment(env):
        for n, check in enumerate([_check_reads, _check_runtime] if with_runtime else [_check_reads]):
            store = CacheStore(root / f"local-{n}")
            check(m, store, out, case)
            store.close()


def run_travel_case(m: TravelMaterial, case: tuple[Any, ...], out: TravelOutcome, with_runtime: bool) -> None:
    """One bundle or remote case; any exception is a crash."""
    out.cases += 1
    try:
        (bundle_case if case[0] == "bundle" else remote_case)(m, case, out, with_runtime)
    except Exception as exc:  # noqa: BLE001 - a crash is what is being counted
        out.crashes += 1
        out.note("crash", case, f"{type(exc).__name__}: {exc}")
    finally:
        shutil.rmtree(m.base / "case", ignore_errors=True)


def travel_report(kind: str, out: TravelOutcome, seconds: float) -> str:
    lines = [
        f"{kind} cases{' ' * (12 - len(kind))}{out.cases:,} ({out.runtime_cases} through the runtime end to end)",
        f"  refused             {out.refused:,} cases (the mutation took effect: a miss or BundleError)",
        f"  accepted forged     {out.accepted}",
        f"  wrong arrays        {out.wrong_arrays}",
        f"  crashes             {out.crashes}",
        f"  time                {seconds:.1f} s ({1000 * seconds / max(out.cases, 1):.1f} ms a case)",
    ]
    return "\n".join(lines + [f"    {e}" for e in out.examples])
