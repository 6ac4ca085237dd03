"""Module-level names of PyMC and PyTensor replaced at run time (``pytensor.tensor.exp = f``,
``pymc.logprob.transforms.pt.exp = f``): versioned code reading such a name runs the user's
object, which the key, trusting versioned code by its version, never describes.

Scanning every versioned namespace on each fingerprint would cost tens of milliseconds. Instead
each module of the watched packages gets, once, a module class whose ``__setattr__`` /
``__delattr__`` notes a callable replaced under its name by code outside the watched packages
(and forgets it when the original is put back, as ``monkeypatch`` does). A module imported
after ``pymc_aot`` is watched as it is executed (``import_hook``); one loaded before is watched
when ``pymc_aot`` is imported, or at the first fingerprint, after one scan of its namespace for
what was replaced before: a callable whose ``__module__`` is not a library's (neither a
versioned package, the standard library nor an installed package). A fingerprint then pays a
length check of ``sys.modules``.

Not seen: a name written into the module's dict directly (``vars(module)[name] = f``), and,
before the watch began, a callable replaced by another library's callable.
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
import types
from itertools import filterfalse, repeat
from typing import Any

from . import import_hook

WATCHED_PACKAGES = ("pytensor", "pymc")
"""Packages whose module-level names build the graph or its JAX program."""

TRUSTED_CALLERS = (*WATCHED_PACKAGES, "pymc_aot")
"""Packages whose code may set the watched names: their versions are in the key."""

_MISSING = object()


def top_package(module: str | None) -> str:
    return (module or "").partition(".")[0]  # as trust.top_package (trust imports PyTensor)


_originals: dict[tuple[str, str], Any] = {}  # (module, name) -> the value before the first replacement
_replaced: set[str] = set()
_seen = [0]  # len(sys.modules) when the modules were last looked at


def _note(module: types.ModuleType, name: str, value: Any, caller: types.FrameType | None) -> None:
    if caller is not None and top_package(caller.f_globals.get("__name__")) in TRUSTED_CALLERS:
        return  # versioned code setting names (lazy caches, imports; ``pymc_aot.enable``'s seams)
    key = (module.__name__, name)
    original = _originals.setdefault(key, vars(module).get(name, _MISSING))
    dotted = f"{module.__name__}.{name}"
    if value is original or isinstance(value, types.ModuleType) or not callable(original):
        _replaced.discard(dotted)  # put back, a submodule bound by an import, or not code
    else:
        _replaced.add(dotted)


class _WatchedModule(types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        _note(self, name, value, sys._getframe(1))
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        _note(self, name, _MISSING, sys._getframe(1))
        super().__delattr__(name)


def _library_dirs() -> tuple[str, ...]:
    paths = {*site.getsitepackages(), site.getusersitepackages(), *sysconfig.get_paths().values()}
    config = getattr(sys.modules.get("pytensor"), "config", None)
    compiledir = str(getattr(config, "compiledir", "") or "")
    if compiledir:
        paths.add(compiledir)  # modules PyTensor compiles (lazylinker_ext)
    return tuple({os.path.realpath(p) + os.sep for p in paths if p})


_library: dict[str, bool] = {}  # top-level package -> its code is a library's (versioned or installed)


def _is_library(name: str, libraries: tuple[str, ...]) -> bool:
    top = top_package(name)
    found = _library.get(top)
    if found is None:
        from .trust import is_versioned_module  # PyTensor is loaded: its modules are being scanned

        if is_versioned_module(top):
            found = True
        else:
            path = getattr(sys.modules.get(top), "__file__", None)
            # a module not loaded, without a file (built in, namespace) or compiled is taken for a library's
            found = top != "__main__" and (
                path is None or not path.endswith(".py") or os.path.realpath(path).startswith(libraries)
            )
        _library[top] = found
    return found


_is_module = types.ModuleType.__instancecheck__


def _scan(name: str, module: types.ModuleType, libraries: tuple[str, ...]) -> None:
    """Note the callables in ``module`` whose ``__module__`` is not a library's (see the docstring)."""
    namespace = vars(module).copy()  # another thread may be importing (filling) this module
    # in C (~50k values); modules skipped: a module's ``__getattr__`` may import (PyMC 6's lazy names)
    values = list(filterfalse(_is_module, namespace.values()))
    modules = set(map(getattr, values, repeat("__module__"), repeat(None)))
    foreign = {m for m in modules if isinstance(m, str) and not _is_library(m, libraries)}
    if foreign:
        for attr, value in list(namespace.items()):
            if not _is_module(value) and getattr(value, "__module__", None) in foreign and callable(value):
                _replaced.add(f"{name}.{attr}")


def _watch_on_import(module: types.ModuleType) -> None:
    if type(module) is types.ModuleType and top_package(module.__name__) in WATCHED_PACKAGES:
        module.__class__ = _WatchedModule  # from its first moment: nothing replaced yet


def watch_loaded() -> None:
    """Watch the loaded modules of ``WATCHED_PACKAGES`` (scanning each once for what was replaced
    before) and, through ``import_hook``, every one imported later as it is executed."""
    import_hook.install()
    import_hook.after_import(_watch_on_import)
    if len(sys.modules) != _seen[0]:
        libraries = _library_dirs()
        # a copy, not list(items()): iterating lets a gc callback (JAX has one) run Python code, and
        # another thread (the sampler's prefetch) import a module meanwhile: "dictionary changed size"
        for name, module in sys.modules.copy().items():
            if type(module) is types.ModuleType and top_package(name) in WATCHED_PACKAGES:
                _scan(name, module, libraries)
                module.__class__ = _WatchedModule
        _seen[0] = len(sys.modules)


def replaced_functions() -> tuple[str, ...]:
    """Dotted names in PyMC's and PyTensor's modules that hold a replaced callable, sorted."""
    watch_loaded()
    return tuple(sorted(_replaced.copy()))  # another thread's import may note a name meanwhile
