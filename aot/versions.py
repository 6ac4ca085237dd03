"""Versions of everything whose change invalidates an executable, read once per process."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import platform
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

_PACKAGES = ("pymc_aot", "pymc_aot.aot", "pymc_aot.cache", "pymc_aot.runtime")
VERSIONED = ("python", "jax", "jaxlib", "pytensor", "pymc", "numpy", "scipy", "pymc-aot")
"""Keep in step with ``aot.trust.VERSIONED_PACKAGES``: code there is trusted by name."""


def digest_tree(package: str, root: Path) -> str:
    """SHA-256 over every ``.py`` file under ``root``: its path (as ``package/relative``) and bytes."""
    digest = hashlib.sha256()
    for path in sorted(Path(root).rglob("*.py")):
        digest.update(f"{package}/{path.relative_to(root).as_posix()}\0{path.stat().st_size}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.cache
def source_digest() -> str:
    """A digest of pymc-aot's own source files, so an edited install never loads executables
    built by other code (computed once per process)."""
    parts = []
    for package in _PACKAGES:
        spec = importlib.util.find_spec(package)
        for root in (spec.submodule_search_locations or []) if spec else []:
            parts.append(digest_tree(package, Path(root)))
    return hashlib.sha256("".join(parts).encode()).hexdigest()


def _installed(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"


@functools.cache
def library_versions() -> tuple[tuple[str, str], ...]:
    """``(name, version)`` of Python, the libraries in ``VERSIONED`` and pymc-aot (version + source digest)."""
    import jax
    import jaxlib
    import numpy
    import pymc
    import pytensor

    found = {
        "python": platform.python_version(),
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "pytensor": pytensor.__version__,
        "pymc": pymc.__version__,
        "numpy": numpy.__version__,
        "scipy": _installed("scipy"),
        "pymc-aot": f"{_installed('pymc-aot')}+src.{source_digest()[:16]}",
    }
    return tuple((name, str(found[name])) for name in VERSIONED)
