"""Callbacks run right after a module of PyTensor or PyMC is executed on import.

``aot.identity.rewrite_calls`` and ``aot.identity.replaced_functions`` watch versioned modules
for user changes; a module they see from its first moment needs no scan for changes made
before. ``install`` (called when ``pymc_aot`` is imported) puts :class:`_Finder` first on
``sys.meta_path``: it finds those modules as ``importlib.machinery.PathFinder`` would and wraps
their loaders. Nothing else about the import changes.
"""

from __future__ import annotations

import importlib.machinery
import sys
import types
from collections.abc import Callable
from typing import Any

PACKAGES = ("pytensor", "pymc")
_after: list[Callable[[types.ModuleType], None]] = []


def after_import(callback: Callable[[types.ModuleType], None]) -> None:
    """Run ``callback(module)`` after each module of ``PACKAGES`` imported from now on is executed."""
    if callback not in _after:
        _after.append(callback)


class _Loader:
    """Runs the module as its own loader would, then the callbacks."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:  # get_source, is_package, ...: the inner loader's
        return getattr(self.inner, name)

    def create_module(self, spec: Any) -> Any:
        return self.inner.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self.inner.exec_module(module)
        for callback in _after:
            callback(module)


class _Finder:
    """Finds modules of ``PACKAGES`` on ``sys.path`` with :class:`_Loader` around their loaders."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name.partition(".")[0] not in PACKAGES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None  # left to the other finders, unwatched (a fingerprint scans it once)
        spec.loader = _Loader(spec.loader)
        return spec


_FINDER = _Finder()


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
