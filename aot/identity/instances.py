"""The state of an object: declared parameters (versioned classes), attributes, or pickle's view."""

from __future__ import annotations

import copyreg
import dataclasses
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..compat import is_inner_graph
from .trust import is_a, is_versioned_class, is_versioned_module

if TYPE_CHECKING:
    from .describer import Describes as Describer  # the protocol: describe imports this module


def has_inner_graph(obj: Any) -> bool:
    return is_inner_graph(getattr(obj, "fgraph", None))


def _is_scan(obj: Any) -> bool:
    scan = sys.modules.get("pytensor.scan.op")  # never imported here: a model without Scan needs none
    return scan is not None and is_a(obj, scan.Scan)


def declared_parameters(d: Describer, obj: Any) -> Any | None:
    """A versioned object by what its class declares it is: ``__props__`` (PyTensor's contract:
    ops and types with equal props are interchangeable), dataclass fields, or a Scan's inner
    graph and settings; a mapping (PyTensor's ``frozendict``) by its items, never by the hash it
    caches on first use. None if it declares nothing."""
    cls = type(obj)
    if Mapping in cls.__mro__:
        return ("mapping", cls.__module__, cls.__qualname__, d.describe(dict(obj.items())))
    if _is_scan(obj):
        # the mode: PyTensor's JAX Scan rewrites the inner graph with it
        mode = d.labelled("its mode", obj.mode)
        info, inner = d.describe(obj.info), d.describe(obj.fgraph)
        return ("scan", info, obj.truncate_gradient, obj.name, obj.allow_gc, mode, inner)
    props = getattr(cls, "__props__", None)
    if props is not None and not has_inner_graph(obj):
        values = tuple((p, d.labelled(f"parameter {p!r}", getattr(obj, p, None))) for p in props)
        return ("props", cls.__module__, cls.__qualname__, values)
    if dataclasses.is_dataclass(obj):
        fields = tuple((f.name, d.labelled(f"field {f.name!r}", getattr(obj, f.name))) for f in dataclasses.fields(obj))
        return ("dataclass", cls.__module__, cls.__qualname__, fields)
    return None


def _slot_names(cls: type) -> list[str]:
    names: list[str] = []
    for base in cls.__mro__:
        slots = vars(base).get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    return [n for n in names if n not in ("__dict__", "__weakref__")]


def instance_state(d: Describer, obj: Any, skip: frozenset[str]) -> Any | None:
    """Every attribute of ``obj`` (``__dict__`` and slots), except the lazily filled caches of
    versioned base classes in ``skip``; None if ``obj`` keeps no state Python can see."""
    attrs = getattr(obj, "__dict__", None)
    slots = _slot_names(type(obj))
    if not isinstance(attrs, dict) and not slots:
        return None
    items = []
    for name, value in sorted((attrs or {}).items()):
        if name not in skip:
            items.append((name, d.labelled(f"attribute {name!r}", value)))
    for name in sorted(slots):
        if hasattr(obj, name):
            items.append((name, d.labelled(f"attribute {name!r}", getattr(obj, name))))
    return ("state", tuple(items))


def builtin_content(d: Describer, obj: Any) -> Any:
    """What a user subclass of a builtin container or ndarray holds besides its attributes."""
    if isinstance(obj, np.ndarray):
        return d.describe(np.asarray(obj))
    if isinstance(obj, dict):
        return d.describe(dict(obj))
    if isinstance(obj, (list, tuple)):
        return d.describe(list(obj))
    if isinstance(obj, (set, frozenset)):
        return d.describe(set(obj))
    return ()


def python_defined(cls: type) -> bool:
    """Whether every non-versioned class in ``cls``'s MRO is written in Python (its code can be read)."""
    for base in cls.__mro__:
        if base is object or is_versioned_class(base) or is_versioned_module(base.__module__):
            continue
        filename = getattr(sys.modules.get(base.__module__), "__file__", None)
        if filename is not None and not filename.endswith(".py"):
            return False
    return True


def describe_by_reduce(d: Describer, obj: Any) -> Any:
    """A versioned object without visible state, as pickle sees it (``__reduce_ex__``)."""
    if not is_versioned_class(type(obj)):
        return d.unsure(obj, "a compiled object whose code and state cannot be read")
    try:
        reducer = copyreg.dispatch_table.get(type(obj))  # as pickle does: re.Pattern registers here
        reduced = reducer(obj) if reducer is not None else obj.__reduce_ex__(4)
    except Exception:  # noqa: BLE001 - anything unpicklable is described as unsure
        return d.unsure(obj, "has no state visible to Python and cannot be pickled")
    if isinstance(reduced, str):
        return ("global", type(obj).__module__, reduced)
    func, args, *rest = reduced
    rest = [list(r) if r is not None and not isinstance(r, (dict, tuple, list)) and hasattr(r, "__next__") else r
            for r in rest]
    return ("reduce", d.describe(func), d.describe(args), d.describe(tuple(rest)))
