"""Which code the fingerprint may trust by name: code shipped in a package whose version is in the key.

Everything else is *user code* and is described deeply (see ``aot.identity.usercode``). A class or
function counts as versioned only if it really lives in such a package: a class must be
reachable under its module and qualified name (classes made on the fly, as PyMC's
``CustomDist`` makes one per variable, are not), a function's code must come from a file
inside the package's directory.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from typing import Any

from ..compat import LAZY_OP_ATTRIBUTES

VERSIONED_PACKAGES: tuple[str, ...] = ("pytensor", "pymc", "jax", "jaxlib", "numpy", "scipy", "pymc_aot")
"""Top-level packages whose versions (or, for pymc_aot, source digest) are in the key."""

# Lazily filled state that versioned classes keep in instances, by the class that writes
# it. None of it changes what a node computes; all of it changes after gradients are taken.
VERSIONED_CACHES: dict[tuple[str, str], frozenset[str]] = {
    ("pytensor.compile.builders", "OpFromGraph"): frozenset(
        {"_lop_op_cache", "_rop_op_cache", "_connection_pattern", "_fn"}
    )
    | LAZY_OP_ATTRIBUTES,  # and PyTensor 3's (see aot.compat)
}

_STDLIB_DIRS = tuple(
    {d + os.sep for p in (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"])
     for d in (os.path.abspath(p), os.path.realpath(p))}
)
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: classes made at run time (class statements, type())
_class_memo: dict[type, bool] = {}  # keeps classes alive; models make few on the fly
_file_memo: dict[str, bool] = {}


def top_package(module: str | None) -> str:
    return (module or "").partition(".")[0]


def is_versioned_module(name: str | None) -> bool:
    """A module of a versioned package, of the standard library (Python's version is in the key) or builtins."""
    top = top_package(name)
    return top in VERSIONED_PACKAGES or top in sys.stdlib_module_names or top == "builtins"


_dirs_memo: dict[str, tuple[str, ...]] = {}


def _package_dirs(top: str) -> tuple[str, ...]:
    """The package's folders as imported and resolved (code objects name files as imported)."""
    found = _dirs_memo.get(top)
    if found is None:
        # pymc_aot's subpackages live in folders of their own (see pyproject's package-dir)
        names = (top, *(f"{top}.{sub}" for sub in ("aot", "cache", "runtime"))) if top == "pymc_aot" else (top,)
        paths = [p for name in names for p in getattr(sys.modules.get(name), "__path__", None) or []]
        found = tuple({d + os.sep for p in paths for d in (os.path.abspath(p), os.path.realpath(p))})
        if len(paths) == len(names):  # every part imported: the answer will not change
            _dirs_memo[top] = found
    return found


def is_versioned_file(filename: str, module: str | None) -> bool:
    """Whether code compiled from ``filename`` ships in ``module``'s (versioned) package."""
    if not is_versioned_module(module):
        return False
    key = f"{top_package(module)}\0{filename}"
    found = _file_memo.get(key)
    if found is None:
        top = top_package(module)
        dirs = _STDLIB_DIRS if top in sys.stdlib_module_names else _package_dirs(top)
        plain = os.path.isabs(filename) and f"{os.sep}..{os.sep}" not in filename
        found = (plain and filename.startswith(dirs)) or os.path.realpath(filename).startswith(dirs)
        _file_memo[key] = found
    return found


def is_versioned_function(fn: Any) -> bool:
    """A Python function whose code is in a versioned package's files."""
    code = getattr(fn, "__code__", None)
    return code is not None and is_versioned_file(code.co_filename, getattr(fn, "__module__", None))


def is_versioned_class(cls: type) -> bool:
    """A class defined (statically, reachable by name) in a versioned module."""
    found = _class_memo.get(cls)
    if found is None:
        found = is_versioned_module(cls.__module__) and (
            _resolve(cls.__module__, cls.__qualname__) is cls or not cls.__flags__ & _HEAPTYPE  # static C types
        )
        _class_memo[cls] = found
    return found


def is_a(obj: Any, base: type) -> bool:
    """``isinstance`` by the MRO alone. PyTensor's graph classes are ABCs: the first ``isinstance``
    of a new type against one walks every registered subclass (0.4 s against ``Op``)."""
    return base in type(obj).__mro__


def resolves_to(obj: Any) -> bool:
    """Whether ``obj`` is what its ``__module__`` and ``__qualname__`` name (builtins, ufuncs)."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        return False
    return _resolve(module, qualname) is obj


def _resolve(module: str, qualname: str) -> Any:
    obj: Any = sys.modules.get(module)
    for part in qualname.split("."):
        if obj is None or part == "<locals>":
            return None
        obj = getattr(obj, part, None)
    return obj


def versioned_caches(cls: type) -> frozenset[str]:
    """Instance attributes of ``cls`` that versioned base classes fill lazily (see ``VERSIONED_CACHES``)."""
    out: frozenset[str] = frozenset()
    for base in cls.__mro__:
        extra = VERSIONED_CACHES.get((base.__module__, base.__qualname__))
        if extra and is_versioned_class(base):
            out |= extra
    return out


def _foreign(fn: Any) -> bool:
    """A function that is not the versioned packages' code: its module is not versioned, or its code
    comes from a file outside them and the standard library (code made at run time, ``<string>`` of dataclasses or
    ``<frozen ...>`` of the standard library, is judged by its module)."""
    filename = fn.__code__.co_filename
    if not is_versioned_module(getattr(fn, "__module__", None)):
        return True
    if filename.startswith("<") or is_versioned_file(filename, fn.__module__):
        return False
    return not is_versioned_file(filename, "functools")  # a standard library wrapper (dataclasses' repr)


_methods_memo: dict[type, tuple[tuple[int, ...], tuple[str, ...]]] = {}
_FUNCTION_KINDS = (staticmethod, classmethod)


def replaced_methods(cls: type) -> tuple[str, ...]:
    """Methods of versioned classes in ``cls``'s MRO that are not versioned code: a user who set
    ``LogTransform.backward = my_backward`` changed what the class computes under its versioned
    name. Rechecked when a class dict's values change (identities only: cheap)."""
    bases = [b for b in cls.__mro__ if b is not object and is_versioned_class(b)]
    ids = tuple(id(v) for b in bases for v in vars(b).values())
    found = _methods_memo.get(cls)
    if found is not None and found[0] == ids:
        return found[1]
    replaced = []
    for base in bases:
        for name, value in vars(base).items():
            fn = value.__func__ if isinstance(value, _FUNCTION_KINDS) else value
            if type(fn).__name__ == "function" and _foreign(fn):
                replaced.append(f"{base.__qualname__}.{name}")
    _methods_memo[cls] = (ids, tuple(replaced))
    return tuple(replaced)
