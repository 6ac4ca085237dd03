"""Versions of everything whose change invalidates an executable, read once per process."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import platform

KEY_FORMAT = 2
"""The layout of ``aot.key.TransformKey``; a change makes every stored entry stale."""

_PACKAGES = ("pymc_aot", "pymc_aot.aot", "pymc_aot.cache", "pymc_aot.runtime")
VERSIONED = ("python", "jax", "jaxlib", "pytensor", "pymc", "numpy", "scipy", "pymc-aot")
"""Keep in step with ``aot.identity.trust.VERSIONED_PACKAGES``: code there is trusted by name."""


def _python_files(root: str) -> list[tuple[str, ...]]:
    """Every ``.py`` file under ``root`` as path components, in ``sorted(Path(root).rglob("*.py"))``'s order."""
    found = []
    for directory, _dirs, names in os.walk(root):
        rel = os.path.relpath(directory, root)
        parts = () if rel == os.curdir else tuple(rel.split(os.sep))
        found.extend((*parts, name) for name in names if name.endswith(".py"))
    return sorted(found)


def digest_tree(package: str, root: str | os.PathLike[str]) -> str:
    """SHA-256 over every ``.py`` file under ``root``: its path (as ``package/relative``), size and bytes."""
    digest = hashlib.sha256()
    for parts in _python_files(os.fspath(root)):
        with open(os.path.join(root, *parts), "rb") as fh:
            data = fh.read()
        digest.update(f"{package}/{'/'.join(parts)}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


@functools.cache
def source_digest() -> str:
    """A digest of pymc-aot's own source files, so an edited install never loads executables
    built by other code (computed once per process)."""
    parts = []
    for package in _PACKAGES:
        spec = importlib.util.find_spec(package)
        for root in (spec.submodule_search_locations or []) if spec else []:
            parts.append(digest_tree(package, root))
    return hashlib.sha256("".join(parts).encode()).hexdigest()


@functools.cache
def library_versions() -> tuple[tuple[str, str], ...]:
    """``(name, version)`` of Python, the libraries in ``VERSIONED`` and pymc-aot's source digest.

    Versions are read from the imported packages (all are imported by then: pymc imports
    scipy), not from their installed metadata, which costs milliseconds per package to find.
    pymc-aot is named by the digest of every byte of its source (pure Python), which says
    all that its version number could."""
    import jax
    import jaxlib
    import numpy
    import pymc
    import pytensor
    import scipy

    found = {
        "python": platform.python_version(),
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "pytensor": pytensor.__version__,
        "pymc": pymc.__version__,
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "pymc-aot": f"src.{source_digest()[:16]}",
    }
    return tuple((name, str(found[name])) for name in VERSIONED)


@functools.cache
def installed_versions() -> tuple[tuple[str, str], ...]:
    """:func:`library_versions` from the installed packages' metadata: milliseconds, where importing
    jax and pymc takes seconds to a minute (``pymc-aot clear --stale`` and ``doctor`` only compare).
    A package already imported answers with its ``__version__``, as in the key."""
    import sys
    from importlib import metadata

    found = {"python": platform.python_version(), "pymc-aot": f"src.{source_digest()[:16]}"}
    for name in VERSIONED:
        if name not in found:
            module = sys.modules.get(name)
            found[name] = str(getattr(module, "__version__", None) or metadata.version(name))
    return tuple((name, found[name]) for name in VERSIONED)
