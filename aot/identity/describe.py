"""Deterministic descriptions of the Python objects a model's graph holds.

A description is a nested tuple of plain values that is equal in two processes exactly when
the objects compute the same thing. What may be trusted by name is decided in
``aot.identity.trust``; user code is described deeply by ``aot.identity.usercode``. An object that cannot be
described exactly is never guessed at: it is recorded in :class:`DescribeState` (``reasons``)
and the model falls back to a key that cannot lie (``aot.build.lowered_key``).
"""

from __future__ import annotations

import enum
import functools
import hashlib
import os
import types
from collections import OrderedDict
from typing import Any

import numpy as np
from pytensor.graph.op import Op

from . import instances, usercode
from .describer import DescribeState
from .dispatch import registrations
from .trust import is_a, is_versioned_class, is_versioned_module, replaced_methods, resolves_to, versioned_caches

_PRIMITIVES = (type(None), bool, int, float, complex, str, bytes)
_SEQUENCES = (list, tuple)
_MAPPINGS = (dict, OrderedDict, types.MappingProxyType)
_SINGLETONS = (type(Ellipsis), type(NotImplemented))
MAX_USER_OBJECTS = 20_000
"""More objects than this in user code: too much to describe on a cache hit, key on the program instead."""


def short_hash(*parts: Any) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]


def array_digest(data: Any) -> str:
    arr = np.asarray(data)
    if arr.dtype == object:
        raise TypeError("object arrays are described element by element")
    return short_hash(str(arr.dtype), arr.shape, hashlib.sha256(np.ascontiguousarray(arr).tobytes()).hexdigest())


class Describer:
    """Describes objects; subclasses describe graph objects (variables, inner graphs)."""

    def __init__(self, state: DescribeState | None = None) -> None:
        self.state = state or DescribeState()
        self._described: dict[int, Any] = {}
        self._keep: list[Any] = []  # keeps ids stable while describing
        self.module_views: dict[tuple[int, frozenset[str]], Any] = {}

    def describe(self, obj: Any) -> Any:
        """A hashable, deterministic description of ``obj``."""
        key = id(obj)
        if key in self._described:
            return self._described[key]
        self._described[key] = ("cycle", type(obj).__qualname__)
        self._keep.append(obj)
        try:
            out = self._describe(obj)
        except RecursionError:
            out = self.unsure(obj, "nested too deeply to describe")
        except Exception as exc:  # noqa: BLE001 - a describer failure must never fail the user's run
            out = self.unsure(obj, f"describing it raised {type(exc).__name__}: {exc}"[:200])
        self._described[key] = out
        return out

    def labelled(self, label: str, obj: Any) -> Any:
        """``describe(obj)``, with ``label`` in the trail of any reason found inside."""
        self.state.path.append(label)
        try:
            return self.describe(obj)
        finally:
            self.state.path.pop()

    def unsure(self, obj: Any, why: str) -> tuple[str, str]:
        """Record that ``obj`` cannot be described exactly; the model's key will be the lowered program."""
        self.state.unsure(f"{why} ({_type_name(obj)})")
        return ("unsure", _type_name(obj))

    def describe_graph_object(self, obj: Any) -> Any | None:
        """Description of a variable or graph, or None if ``obj`` is neither (subclass hook)."""
        return None

    def _describe(self, obj: Any) -> Any:  # noqa: C901 - one branch per kind of thing
        kind = type(obj)
        if kind in _PRIMITIVES:
            return (kind.__name__, obj)
        if isinstance(obj, enum.Enum):
            return ("enum", self.describe(kind), obj.name)
        if isinstance(obj, (np.ndarray, np.generic)):
            return self._array(obj)
        graph = self.describe_graph_object(obj)
        if graph is not None:
            return graph
        if kind in _SEQUENCES:
            return (kind.__name__, tuple(self.describe(x) for x in obj))
        if kind in (set, frozenset):
            return ("set", tuple(sorted(repr(self.describe(x)) for x in obj)))
        if kind in _MAPPINGS:
            return ("dict", self._items(obj))
        if kind in _SINGLETONS:
            return ("singleton", repr(obj))
        if isinstance(obj, type):
            return usercode.describe_class(self, obj)
        if isinstance(obj, types.ModuleType):
            if is_versioned_module(obj.__name__):
                return ("module", obj.__name__)
            # held as a value (not read by a function): which attributes get read is unknown
            return self.unsure(obj, f"holds the user module {obj.__name__}")
        if isinstance(obj, (types.FunctionType, types.MethodType, functools.partial)):
            return usercode.describe_callable(self, obj)
        if isinstance(obj, (staticmethod, classmethod)):
            return (kind.__name__, self.describe(obj.__func__))
        if isinstance(obj, property):
            return ("property", self.describe(obj.fget), self.describe(obj.fset), self.describe(obj.fdel))
        if callable(obj) and resolves_to(obj) and is_versioned_module(obj.__module__):
            return ("named", obj.__module__, obj.__qualname__)  # builtins, ufuncs, C descriptors
        if isinstance(obj, (types.BuiltinMethodType, types.MethodWrapperType)):
            return ("bound-builtin", self.describe(obj.__self__), obj.__name__)
        described = self._describe_instance(obj)
        if is_a(obj, Op):
            dispatch = tuple(
                (name, self.labelled(f"{name} registration for {kind.__qualname__}", fn))
                for name, fn in registrations(kind)
            )
            return (*described, ("dispatch", dispatch))
        return described

    def _items(self, mapping: Any) -> tuple[Any, ...]:
        pairs = [(repr(self.describe(k)), self.describe(v)) for k, v in mapping.items()]
        return tuple(sorted(pairs, key=lambda kv: kv[0]))

    def _array(self, obj: Any) -> Any:
        if np.asarray(obj).dtype == object:
            return ("object-array", np.shape(obj), self.describe(np.asarray(obj).tolist()))
        if isinstance(obj, np.ma.MaskedArray):
            return ("masked-array", array_digest(obj.data), array_digest(np.ma.getmaskarray(obj)))
        return ("array", array_digest(obj))

    def _describe_instance(self, obj: Any) -> Any:
        """An object that is not a function, class or container: by declared parameters if its class is
        versioned, else by its class (deeply) and its whole state."""
        cls = type(obj)
        if cls.__module__.startswith(("jax.", "jaxlib.")) and hasattr(obj, "__array__"):
            return ("jax-array", array_digest(obj))
        if is_versioned_class(cls):
            if obj is os.environ or obj is getattr(os, "environb", None):
                return self.unsure(obj, "reads the process environment")
            replaced = self.state.replaced.get(cls)
            if replaced is None:
                replaced = self.state.replaced[cls] = replaced_methods(cls)
            if replaced:
                return self.unsure(obj, f"versioned code replaced at run time ({', '.join(replaced)})")
            declared = instances.declared_parameters(self, obj)
            if declared is not None:
                return declared
            state = instances.instance_state(self, obj, versioned_caches(cls))
            if state is not None:  # a versioned dict, list or set subclass (Counter, ...) also by its content
                return ("object", cls.__module__, cls.__qualname__, state, instances.builtin_content(self, obj))
            return instances.describe_by_reduce(self, obj)
        self.state.user_objects += 1
        if self.state.user_objects > MAX_USER_OBJECTS:
            return self.unsure(obj, f"user code holds more than {MAX_USER_OBJECTS} objects")
        if not instances.python_defined(cls):
            return self.unsure(obj, "an instance of a compiled class outside the versioned packages")
        state = instances.instance_state(self, obj, versioned_caches(cls))
        content = instances.builtin_content(self, obj)
        if state is None and content == ():
            return self.unsure(obj, "keeps no state Python can see")
        return ("user-object", self.describe(cls), state, content)


def _type_name(obj: Any) -> str:
    cls = obj if isinstance(obj, type) else type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"
