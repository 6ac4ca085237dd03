"""What a run would use here, and what is wrong with it: the facts behind ``pymc-aot doctor``.

Each check returns facts (label, value) and problems (one line each, saying how to fix it).
The cache is opened as a run would open it (entries that fail verification are dropped, as a run drops them).
"""

from __future__ import annotations

import os
import re
import stat
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from ...cache import CachePermissionError, CacheStore, EntryRecord, default_cache_dir
from ...cache.permissions import check_database, check_directory, check_key_file
from ...cache.signing import how_signed
from ...render import human_bytes
from .catalog import fold, readable
from .diagnose_remote import bundle_facts, remote_facts

PACKAGES = ("jax", "jaxlib", "pytensor", "pymc", "pymc-aot")
HOST_DEVICES = re.compile(r"--xla_force_host_platform_device_count=(\d+)")


@dataclass
class Diagnosis:
    """Facts by section, in the order they are shown, and the problems found."""

    sections: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def add(self, section: str, facts: list[tuple[str, str]], problems: list[str]) -> None:
        self.sections[section] = facts
        self.problems.extend(problems)

    def to_json(self) -> dict[str, Any]:
        return {"sections": {s: dict(f) for s, f in self.sections.items()}, "problems": self.problems}


def diagnose(cache_dir: str | None) -> Diagnosis:
    found = Diagnosis()
    found.add("versions", *versions())
    device = None
    try:
        facts, problems, device = runtime()
    except Exception as exc:  # noqa: BLE001 - a broken install is what doctor is for
        facts, problems = [("jax", "-")], [f"importing PyMC's JAX sampling module failed: {type(exc).__name__}: {exc}"]
    found.add("runtime", facts, problems)
    found.add("cache", *cache(default_cache_dir(cache_dir)))
    for section, facts_of in (("bundle", bundle_facts(default_cache_dir(cache_dir))), ("remote", remote_facts())):
        if facts_of is not None:
            found.add(section, *facts_of)
    if device is not None:
        found.add("jax cache", *jax_cache(default_cache_dir(cache_dir)))
        found.add("memory", *budget(device))
    return found


def versions() -> tuple[list[tuple[str, str]], list[str]]:
    facts, problems = [("python", sys.version.split()[0])], []
    for name in PACKAGES:
        try:
            facts.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            problems.append(f"{name} is not installed")
    problems += _outside_tested_ranges()
    return facts, problems


def _outside_tested_ranges() -> list[str]:
    try:
        from packaging.requirements import Requirement
    except ImportError:  # packaging comes with pip and pytest; without it this check is skipped
        return []
    out = []
    for text in metadata.requires("pymc-aot") or []:
        req = Requirement(text)
        if req.marker is not None or req.name not in PACKAGES:
            continue
        try:
            have = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            continue
        if not req.specifier.contains(have, prereleases=True):
            out.append(f"{req.name} {have} is outside the range pymc-aot was tested with ({req.specifier})")
    return out


def runtime() -> tuple[list[tuple[str, str]], list[str], Any]:
    asked_before = os.environ.get("XLA_FLAGS", "")
    import jax
    import pymc.sampling.jax  # noqa: F401 - what a run imports: it sets XLA_FLAGS and jax_enable_x64
    import pytensor

    from ...aot.build.request import resolve_device

    flags = os.environ.get("XLA_FLAGS", "")
    count = HOST_DEVICES.search(flags)
    by_pymc = count and not HOST_DEVICES.search(asked_before)
    devices = jax.devices()
    device = resolve_device(None)
    x64, float_x = bool(jax.config.jax_enable_x64), str(pytensor.config.floatX)
    facts = [
        ("backend", f"{jax.default_backend()}: {len(devices)} device(s) of kind {devices[0].device_kind!r}"),
        (
            "host devices",
            f"{count.group(1)} requested via XLA_FLAGS" + (" by PyMC's import" if by_pymc else "")
            if count
            else "not forced (XLA_FLAGS has no host device count)",
        ),
        ("runs on", f"{device} (one device; executables are loaded for it alone)"),
        ("x64", f"jax_enable_x64={x64}, floatX={float_x}"),
    ]
    problems = []
    if (float_x == "float64") != x64:
        problems.append(
            f"jax_enable_x64={x64} but PyTensor's floatX is {float_x}: PyMC expects them to agree "
            "(set floatX, or leave jax_enable_x64 to PyTensor's JAX backend)"
        )
    return facts, problems, device


def cache(root: Path) -> tuple[list[tuple[str, str]], list[str]]:
    facts: list[tuple[str, str]] = [("root", str(root))]
    if not root.exists():
        return [*facts, ("state", "not created yet (the first precompile creates it, mode 700)")], []
    problems = _permission_problems(root)
    info = root.stat()
    facts.append(("owner", f"{_user(info.st_uid)}, mode {stat.S_IMODE(info.st_mode):o}"))
    if problems:
        return facts, problems
    read_only = os.environ.get("PYMC_AOT_CACHE_READONLY", "").lower() in ("1", "true", "yes")
    if not read_only and not (root / "secret.key").exists():
        return [*facts, ("entries", "none (no key file yet)")], []
    try:
        store = CacheStore(root)  # a shared cache: read-only with the operator's public key, from the environment
        records, used, limit, signed = store.entries(), store.volume(), store.size_limit, how_signed(store)
        store.close()
    except Exception as exc:  # noqa: BLE001 - sqlite, OS and permission errors all mean "unreadable"
        return facts, [f"the cache at {root} cannot be read: {type(exc).__name__}: {exc}"]
    entries = len(fold(readable(records)))
    facts += [
        ("entries", f"{entries}, backed by {len(records)} executables"),
        ("size", f"{human_bytes(used)} of {human_bytes(limit)} (PYMC_AOT_CACHE_SIZE_LIMIT)"),
        ("signed", signed),
    ]
    return facts, _stale_problems(records)


def _user(uid: int) -> str:
    try:
        import pwd

        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        return f"uid {uid}"


def _permission_problems(root: Path) -> list[str]:
    """What the store itself would refuse (the same checks, collected instead of raised)."""
    read_only = os.environ.get("PYMC_AOT_CACHE_READONLY", "").lower() in ("1", "true", "yes")
    checks = [
        lambda: check_directory(root, read_only=read_only),
        lambda: check_database(root, read_only=read_only),
    ]
    if (root / "secret.key").exists():
        checks.append(lambda: check_key_file(root / "secret.key", private=True))
    problems = []
    for check in checks:
        try:
            check()
        except CachePermissionError as exc:
            problems.append(str(exc))
    return problems


def _stale_problems(records: list[EntryRecord]) -> list[str]:
    from ...aot.identity.versions import KEY_FORMAT, installed_versions

    current = dict(installed_versions())
    parts = {r.digest: meta.key if (meta := r.schema) is not None else {} for r in records}
    stale = [
        r for r in records if parts[r.digest].get("versions") != current or parts[r.digest].get("format") != KEY_FORMAT
    ]
    if not stale:
        return []
    seen = sorted(
        {
            f"{name} {v}"
            for r in stale
            for name, v in (parts[r.digest].get("versions") or {}).items()
            if current.get(name) != v
        }
    )
    size = human_bytes(sum(r.executable_bytes for r in stale))
    return [
        f"{len(stale)} stored executables ({size}) were compiled for other library versions "
        f"({', '.join(seen) or 'another key format'}) and will never load: pymc-aot clear --stale"
    ]


def jax_cache(root: Path) -> tuple[list[tuple[str, str]], list[str]]:
    import jax

    where = jax.config.jax_compilation_cache_dir
    ours = root / "jax-compilation-cache"
    if not where:
        text = f"off; pymc_aot.enable(jax_cache=True) points it at {ours}"
    else:
        inside = Path(where).expanduser().resolve().is_relative_to(root.resolve())
        text = f"{where} ({'inside' if inside else 'outside'} the pymc-aot root)"
    if ours.is_dir():
        size = sum(p.stat().st_size for p in ours.rglob("*") if p.is_file())
        text += f"; {ours.name} holds {human_bytes(size)}"
    return [("JAX's cache", text)], []


def budget(device: Any) -> tuple[list[tuple[str, str]], list[str]]:
    from ...aot.strategies.budget import DEFAULT_FRACTION, available_memory, resolve_budget

    free = available_memory(device)
    chosen = resolve_budget(None, device)
    return [
        (
            "auto budget",
            f"{human_bytes(chosen)} = {DEFAULT_FRACTION:.0%} of {human_bytes(free)} free on "
            f"{device.platform} (--memory-budget / memory_budget= to change)",
        )
    ], []
