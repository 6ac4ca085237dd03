"""Graph rewrites registered by user code: the other registries a transform is built through.

PyTensor's JAX mode rewrites the graph with the rewriters in ``pytensor.compile.optdb``, and
PyMC derives log-densities through its own rewrite databases. A rewriter a user registers
there can change what a transform computes without changing the model's graph, so every
rewriter whose code is not versioned is part of every model's description.

Each registered object is checked once per process (objects stay registered); a walk over
the databases (about 2,000 objects, under a millisecond) finds new or replaced ones.
"""

from __future__ import annotations

import functools
import sys
import types
from typing import Any

from pytensor.graph.basic import Variable
from pytensor.graph.rewriting.basic import Rewriter

from .trust import is_versioned_class, is_versioned_function

ROOTS: tuple[tuple[str, str], ...] = (
    ("pytensor.compile.mode", "optdb"),
    ("pymc.logprob.rewriting", "logprob_rewrites_db"),
    ("pymc.logprob.rewriting", "early_measurable_ir_rewrites_db"),
    ("pymc.logprob.rewriting", "measurable_ir_rewrites_db"),
    ("pymc.logprob.rewriting", "cleanup_ir_rewrites_db"),
    ("pymc.logprob.rewriting", "specialization_ir_rewrites_db"),
)
_MAX_DEPTH = 4
_verdicts: dict[int, tuple[Any, bool]] = {}  # id -> (object kept alive, holds user code)


def _holds_user_code(obj: Any, depth: int = 0) -> bool:
    """Whether ``obj`` (a rewriter) is or holds, a few attributes deep, code that is not versioned:
    a function, a rewriter or another callable. Data it holds (patterns of ops, tracked op
    classes) is not code; a pattern rewriter whose ops are all versioned is not seen."""
    cls = type(obj)
    if _is_data(cls):
        return False
    if cls is types.FunctionType:
        closure = [c.cell_contents for c in obj.__closure__ or () if _filled(c)]
        return not is_versioned_function(obj) or _any_holds(closure, depth + 1)
    if cls is types.MethodType:
        return _holds_user_code(obj.__func__, depth) or _holds_user_code(obj.__self__, depth + 1)
    if depth >= _MAX_DEPTH:
        return False
    if isinstance(obj, (list, tuple, set, frozenset)):
        return _any_holds(obj, depth + 1)
    if isinstance(obj, dict):
        return _any_holds(obj.values(), depth + 1)
    if not is_versioned_class(cls):
        return callable(obj) or _is_rewriter(cls)
    if _is_wrapper(cls):
        return _wrapped_holds(obj, depth + 1)
    return _any_holds(vars(obj).values(), depth + 1)  # a versioned rewriter: what it holds


def _wrapped_holds(obj: Any, depth: int) -> bool:
    """What a versioned wrapper holds: a partial's function and arguments, a mapping's values, a
    collection's items; True (counted as user code) if they cannot be listed."""
    try:
        if isinstance(obj, functools.partial):
            items = [obj.func, *obj.args, *obj.keywords.values()]
        else:
            items = list(obj.values() if callable(getattr(obj, "values", None)) and hasattr(obj, "keys") else obj)
    except Exception:  # noqa: BLE001 - what cannot be listed cannot be shown to hold no code
        return True
    return _any_holds(items, depth)


def _any_holds(values: Any, depth: int) -> bool:
    for value in values:  # a loop, not any(): most values are data, skipped without a call
        data = _data_classes.get(type(value))
        if data is None:
            data = _is_data(type(value))
        if not data and _holds_user_code(value, depth):
            return True
    return False


_LEAVES = (type(None), bool, int, float, complex, str, bytes, type)
_WALKED = (types.FunctionType, types.MethodType, list, tuple, set, frozenset, dict)
_COLLECTION_METHODS = ("__iter__", "__len__", "__contains__")


def _is_wrapper(cls: type) -> bool:
    """A versioned class holding what it is given: ``functools.partial``, or a collection (deque,
    UserDict, OrderedSet, ...) by the methods ``collections.abc.Collection`` looks for (its
    ``issubclass`` walks every registered subclass: too slow for every class met); not a graph
    variable, which iterates into new graph nodes, nor a rewriter, which is walked by its attributes."""
    return issubclass(cls, functools.partial) or (
        all(hasattr(cls, m) for m in _COLLECTION_METHODS) and not issubclass(cls, Variable) and not _is_rewriter(cls)
    )


_data_classes: dict[type, bool] = {}


def _is_data(cls: type) -> bool:
    """Whether instances of ``cls`` never hold user code, whatever they contain: plain values and
    classes, and instances of versioned classes that are not rewriters (ops in patterns, tracked
    types) nor wrappers of what they are given (``functools.partial``, mappings, collections)."""
    found = _data_classes.get(cls)
    if found is None:
        found = issubclass(cls, _LEAVES) or (
            not issubclass(cls, _WALKED) and is_versioned_class(cls) and not _is_rewriter(cls) and not _is_wrapper(cls)
        )
        _data_classes[cls] = found
    return found


_rewriter_classes: dict[type, bool] = {}


def _is_rewriter(cls: type) -> bool:
    found = _rewriter_classes.get(cls)
    if found is None:
        found = _rewriter_classes[cls] = Rewriter in cls.__mro__  # issubclass on this ABC walks every subclass
    return found


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - raises on an empty cell
    except ValueError:
        return False
    return True


def _is_database(obj: Any) -> bool:
    return isinstance(getattr(obj, "__db__", None), dict)


def user_rewrites() -> tuple[tuple[str, str, Any], ...]:
    """``(database, name, rewriter)`` for every registered rewriter holding user code, sorted.

    The databases are walked on every call (a rewriter can be replaced under its name); each
    object is checked once."""
    found: dict[tuple[str, str], Any] = {}
    seen: set[int] = set()
    stack = [(name, getattr(sys.modules.get(module), name, None)) for module, name in ROOTS]
    while stack:
        where, db = stack.pop()
        if db is None or id(db) in seen or not _is_database(db):
            continue
        seen.add(id(db))
        for key in getattr(db, "_names", None) or db.__db__:
            for obj in db.__db__.get(key, ()):
                if _is_database(obj):
                    stack.append((f"{where}/{getattr(obj, 'name', key)}", obj))
                    continue
                verdict = _verdicts.get(id(obj))
                if verdict is None or verdict[0] is not obj:
                    verdict = (obj, _holds_user_code(obj))
                    _verdicts[id(obj)] = verdict
                if verdict[1]:
                    found[(where, str(getattr(obj, "name", None) or key))] = obj
    return tuple((db, name, obj) for (db, name), obj in sorted(found.items()))
