"""Changes a user makes to PyTensor's and PyMC's rewrite databases, noted as they are made.

A rewriter registered by user code changes the rewrite without changing the model's graph;
``aot.identity.rewrites`` describes those that hold user code, but a ``PatternNodeRewriter`` of
versioned ops, an ``EquilibriumGraphRewriter`` of versioned rewriters or ``optdb.remove_tags``
hold none. The databases' layout itself cannot be keyed: it depends on which versioned modules
a process happened to import (lazily registered rewrites), so a model's key would drift.

Instead ``RewriteDatabase.register`` / ``add_tags`` / ``remove_tags`` (and the subclasses'
overrides) are wrapped as soon as PyTensor's ``pytensor.graph.rewriting.db`` is loaded
(``install``, called when ``pymc_aot`` is imported; see ``import_hook``), and each call made by user code is noted:
the database, the arguments, the rewriter described without memory addresses. A call is the
user's when the first caller outside PyTensor is neither PyMC nor the import machinery (that is
a versioned module registering its own rewrites as it is imported). A process with no such
call adds nothing to the key; a fingerprint reads a tuple.

Not seen: calls made before ``pymc_aot`` was imported, and edits of a database's dicts by hand.
"""

from __future__ import annotations

import functools
import re
import sys
import threading
import types
from typing import Any

from . import import_hook

DB_MODULE = "pytensor.graph.rewriting.db"
METHODS = ("register", "add_tags", "remove_tags")
_VERSIONED_CALLERS = ("pymc",)
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+|0x[0-9a-fA-F]{6,}")
_calls: list[tuple[str, ...]] = []
_inside = threading.local()


def user_rewrite_calls() -> tuple[tuple[str, ...], ...]:
    """The calls user code made on the rewrite databases since ``install``, in order."""
    return tuple(_calls)


def _by_user(frame: types.FrameType | None) -> bool:
    while frame is not None and str(frame.f_globals.get("__name__", "")).partition(".")[0] == "pytensor":
        frame = frame.f_back
    if frame is None:
        return False
    module = str(frame.f_globals.get("__name__", ""))
    return module.partition(".")[0] not in _VERSIONED_CALLERS and not frame.f_code.co_filename.startswith(
        "<frozen importlib"
    )


def describe_rewriter(obj: Any, depth: int = 0) -> str:
    """What a rewriter is, without memory addresses: its class and name, its function's name, a
    pattern rewriter's patterns, and, a few levels deep, the rewriters it holds (an equilibrium
    rewriter's members)."""
    attrs = getattr(obj, "__dict__", {})
    parts = [f"{type(obj).__module__}.{type(obj).__qualname__}", str(getattr(obj, "name", None))]
    fn = attrs.get("fn")
    if isinstance(fn, types.FunctionType):
        parts.append(f"{fn.__module__}.{fn.__qualname__}")
    parts += [f"{a}={attrs[a]!r}" for a in ("in_pattern", "out_pattern", "max_use_ratio") if a in attrs]
    if depth < 3:
        held = [r for v in attrs.values() for r in (v if isinstance(v, (list, tuple)) else (v,)) if _is_rewriter(r)]
        if callable(getattr(obj, "get_node_rewriters", None)):
            held += list(obj.get_node_rewriters())
        parts += sorted({describe_rewriter(r, depth + 1) for r in held})
    return _ADDRESS.sub("", "|".join(parts))


def _is_rewriter(obj: Any) -> bool:
    return not isinstance(obj, type) and (hasattr(obj, "transform") or hasattr(obj, "apply"))


def _database_name(db: Any) -> str:
    from .rewrites import ROOTS  # imports PyTensor: only once a user call is noted

    for module, name in ROOTS:
        if getattr(sys.modules.get(module), name, None) is db:
            return f"{module}.{name}"
    return f"{type(db).__qualname__}:{getattr(db, 'name', None)}"


def _describe_call(db: Any, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, ...]:
    words = [a if isinstance(a, str) else describe_rewriter(a) for a in args]
    words += [f"{k}={v!r}" for k, v in sorted(kwargs.items())]
    return (_database_name(db), method, *words)


def _wrap(method: str, fn: Any) -> Any:
    @functools.wraps(fn)
    def watched(self: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(_inside, "depth", 0):  # a subclass's override calling the base: noted once
            return fn(self, *args, **kwargs)
        _inside.depth = 1
        try:
            result = fn(self, *args, **kwargs)
        finally:
            _inside.depth = 0
        if _by_user(sys._getframe(1)):
            _calls.append(_describe_call(self, method, args, kwargs))
        return result

    watched.__pymc_aot_watched__ = True  # type: ignore[attr-defined]
    watched.__module__ = __name__  # pymc-aot's code (trust.replaced_methods): not a user's replacement
    return watched


def _patch(module: types.ModuleType) -> None:
    base = getattr(module, "RewriteDatabase", None)
    for cls in [v for v in vars(module).values() if isinstance(v, type) and base is not None and issubclass(v, base)]:
        for method in METHODS:
            fn = vars(cls).get(method)
            if fn is not None and not getattr(fn, "__pymc_aot_watched__", False):
                setattr(cls, method, _wrap(method, fn))


def install() -> None:
    """Watch the rewrite databases: now if PyTensor's are loaded, else once they are."""
    module = sys.modules.get(DB_MODULE)
    if module is not None:
        _patch(module)
    else:
        import_hook.install()
        import_hook.after_import(_patched_on_import)


def _patched_on_import(module: types.ModuleType) -> None:
    if module.__name__ == DB_MODULE:
        _patch(module)
