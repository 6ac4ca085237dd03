"""Structural fingerprint of a PyMC model's own graph, without rewrites or cloning.

The walk covers what postprocessing can depend on: free and observed random variables,
their value variables and transforms, deterministics, and everything they are built from.
Each variable gets a token from its type, name and, recursively, the op and inputs that
made it; constants are hashed by content, shared variables (``pm.Data``) by type and
position only, because their values are runtime arguments of the executable.

Anything the describer cannot pin down is described with ``repr``; an address in that
text only makes two runs miss each other, never a wrong hit.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import types
from dataclasses import dataclass
from typing import Any

import numpy as np
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.op import Op
from pytensor.tensor.variable import TensorVariable

from .compat import LAZY_OP_ATTRIBUTES, is_inner_graph

_SKIP_ATTRS = frozenset({"fn", "thunk", "destroy_map", "view_map", "mode", "profile"})


def _h(*parts: Any) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]


class GraphHasher:
    """Tokens for variables and ops of one graph; ``inputs`` are hashed by position."""

    def __init__(self, inputs: tuple[Variable, ...] = ()) -> None:
        self._tokens: dict[int, int] = {}
        self._constants: dict[tuple[Any, ...], int] = {}  # equal constants share one token
        self.records: list[tuple[Any, ...]] = []  # one per variable; a token is an index here
        self._keep: list[Any] = []  # keeps ids stable while hashing
        self._described: dict[int, Any] = {}
        self._short: dict[Any, str] = {}
        self._short_by_id: dict[int, str] = {}
        self.shared: list[SharedVariable] = []
        for i, var in enumerate(inputs):
            self._set(var, ("input", i, self.short(var.type)))

    def _set(self, obj: Any, record: tuple[Any, ...]) -> None:
        self._keep.append(obj)
        self._tokens[id(obj)] = len(self.records)
        self.records.append(record)

    def digest(self, *extra: Any) -> str:
        """Hash of every record so far (the whole walked graph) and ``extra``."""
        return _h(self.records, extra)

    def token(self, var: Variable) -> int:
        """Token of ``var``, walking its ancestors iteratively."""
        stack: list[tuple[Variable, bool]] = [(var, False)]
        while stack:
            v, expanded = stack.pop()
            if id(v) in self._tokens:
                continue
            node = v.owner
            if node is None:
                self._set_leaf(v, self._leaf_token(v))
                continue
            pending = [i for i in node.inputs if id(i) not in self._tokens]
            if pending and not expanded:
                stack.append((v, True))
                stack.extend((i, False) for i in pending)
                continue
            inputs = tuple(self._tokens[id(i)] for i in node.inputs)
            op = self.short(node.op)
            for index, out in enumerate(node.outputs):
                self._set(out, ("out", op, inputs, index, self.short(out.type), out.name))
        return self._tokens[id(var)]

    def _set_leaf(self, v: Variable, record: tuple[Any, ...]) -> None:
        # A constant's token is its content: whether two equal constants are one object
        # depends on PyTensor 3's interning history, not on the model.
        if record[0] == "const" and record in self._constants:
            self._keep.append(v)
            self._tokens[id(v)] = self._constants[record]
            return
        self._set(v, record)
        if record[0] == "const":
            self._constants[record] = self._tokens[id(v)]

    def _leaf_token(self, v: Variable) -> tuple[Any, ...]:
        if isinstance(v, Constant):
            return ("const", self.short(v.type), _array_digest(v.data))
        if isinstance(v, SharedVariable):
            if _is_tensor(v):
                position = len(self.shared)
                self.shared.append(v)
                return ("data", position, self.short(v.type), v.name)
            # RNGs and other non-tensor shared state: type only, value never reaches outputs
            return ("shared-state", self.short(v.type), v.name)
        return ("root", self.short(v.type), v.name)

    def short(self, obj: Any) -> str:
        """A short hash of ``describe(obj)``, memoized: ops and types recur at many nodes."""
        token = self._short_by_id.get(id(obj))
        if token is not None:
            return token
        memo_key: Any = id(obj)
        if getattr(type(obj), "__props__", None) is not None and not _has_inner_graph(obj):
            # ops and types with __props__ are equal exactly when their props are equal
            try:
                memo_key = (type(obj), hash(obj), obj)
            except TypeError:
                pass
        token = self._short.get(memo_key)
        if token is None:
            token = _h(self.describe(obj))
            self._short[memo_key] = token
        self._short_by_id[id(obj)] = token
        self._keep.append(obj)
        return token

    def describe(self, obj: Any) -> Any:
        """A hashable, deterministic description of ``obj``."""
        key = id(obj)
        if key in self._described:
            return self._described[key]
        self._described[key] = ("cycle", type(obj).__qualname__)
        self._keep.append(obj)
        out = self._describe(obj)
        self._described[key] = out
        return out

    def _describe(self, obj: Any) -> Any:  # noqa: C901 - one branch per kind of thing
        if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
            return (type(obj).__name__, obj)
        if isinstance(obj, enum.Enum):
            return ("enum", type(obj).__qualname__, obj.name)
        if isinstance(obj, (np.ndarray, np.generic)):
            return ("array", _array_digest(obj))
        if isinstance(obj, Variable):
            return ("var", self.token(obj))
        if is_inner_graph(obj):
            inner = GraphHasher(tuple(obj.inputs))
            outputs = tuple(inner.token(o) for o in obj.outputs)
            return ("fgraph", inner.digest(outputs))
        if isinstance(obj, (list, tuple)):
            return (type(obj).__name__, tuple(self.describe(x) for x in obj))
        if isinstance(obj, (set, frozenset)):
            return ("set", tuple(sorted(repr(self.describe(x)) for x in obj)))
        if isinstance(obj, dict):
            return ("dict", tuple(sorted((repr(self.describe(k)), self.describe(v)) for k, v in obj.items())))
        if isinstance(obj, type):
            return ("class", obj.__module__, obj.__qualname__)
        if isinstance(obj, functools.partial):
            return ("partial", self.describe(obj.func), self.describe(obj.args), self.describe(obj.keywords))
        if isinstance(obj, (types.FunctionType, types.MethodType)):
            return self._describe_function(obj)
        if isinstance(obj, (types.BuiltinFunctionType, np.ufunc)):
            return ("builtin", getattr(obj, "__module__", None), getattr(obj, "__qualname__", repr(obj)))
        if isinstance(obj, Op) and _is_scan(obj):
            return (
                "scan",
                self.describe(obj.info),
                obj.truncate_gradient,
                obj.name,
                obj.allow_gc,
                self.describe(obj.fgraph),
            )
        cls = ("class", type(obj).__module__, type(obj).__qualname__)
        props = getattr(type(obj), "__props__", None)
        if props is not None and not _has_inner_graph(obj):
            return ("props", cls, tuple((p, self.describe(getattr(obj, p, None))) for p in props))
        if dataclasses.is_dataclass(obj):
            fields = dataclasses.fields(obj)
            return ("dataclass", cls, tuple((f.name, self.describe(getattr(obj, f.name))) for f in fields))
        attrs = getattr(obj, "__dict__", None)
        if attrs is not None:
            kept = {k: v for k, v in attrs.items() if k not in _SKIP_ATTRS | LAZY_OP_ATTRIBUTES and "cache" not in k}
            return ("object", cls, self.describe(kept))
        return ("repr", cls, repr(obj))

    def _describe_function(self, fn: Any) -> Any:
        if isinstance(fn, types.MethodType):
            return ("method", self.describe(fn.__self__), fn.__func__.__qualname__)
        code = fn.__code__
        closure = tuple(self.describe(c.cell_contents) for c in (fn.__closure__ or ()) if _cell_filled(c))
        return (
            "function",
            fn.__module__,
            fn.__qualname__,
            hashlib.sha256(code.co_code).hexdigest()[:16],
            self.describe(tuple(c for c in code.co_consts if not isinstance(c, types.CodeType))),
            self.describe(fn.__defaults__),
            closure,
        )


def _cell_filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - raises on an empty cell
    except ValueError:
        return False
    return True


def _is_tensor(v: Variable) -> bool:
    return isinstance(v, TensorVariable)


def _is_scan(op: Op) -> bool:
    return type(op).__name__ == "Scan" and hasattr(op, "info") and hasattr(op, "fgraph")


def _has_inner_graph(obj: Any) -> bool:
    return is_inner_graph(getattr(obj, "fgraph", None))


def _array_digest(data: Any) -> str:
    arr = np.asarray(data)
    if arr.dtype == object:
        return _h("object-array", repr(arr.tolist()))
    return _h(str(arr.dtype), arr.shape, hashlib.sha256(np.ascontiguousarray(arr).tobytes()).hexdigest())


@dataclass(frozen=True)
class ModelFingerprint:
    """The model's structural hash plus the facts a cache hit needs without the graph.

    ``data`` lists the model's tensor shared variables (``pm.Data``) in walk order, which is
    how executables refer to their data arguments.
    """

    model_hash: str
    model_name: str
    value_names: tuple[str, ...]
    value_dtypes: tuple[str, ...]
    data_names: tuple[str | None, ...]
    data: tuple[SharedVariable, ...] = dataclasses.field(repr=False, compare=False, hash=False)

    def data_signature(self) -> tuple[tuple[str | None, tuple[int, ...], str], ...]:
        """Name, current shape and dtype of every data variable."""
        out = []
        for name, var in zip(self.data_names, self.data, strict=True):
            value = var.get_value(borrow=True)
            out.append((name, tuple(int(s) for s in np.shape(value)), str(np.asarray(value).dtype)))
        return tuple(out)


def fingerprint_model(model: Any) -> ModelFingerprint:
    """Walk the model's own graph (no clone, no rewrite) and hash it."""
    hasher = GraphHasher()
    parts: list[Any] = []
    for rv in model.free_RVs:
        value = model.rvs_to_values[rv]
        transform = model.rvs_to_transforms.get(rv)
        parts.append(("free", rv.name, hasher.token(rv), value.name, hasher.token(value), hasher.describe(transform)))
    for rv in model.observed_RVs:
        value = model.rvs_to_values[rv]
        parts.append(("observed", rv.name, hasher.token(rv), hasher.token(value)))
    for det in model.deterministics:
        parts.append(("deterministic", det.name, hasher.token(det)))
    values = [model.rvs_to_values[rv] for rv in model.free_RVs]
    return ModelFingerprint(
        model_hash=hasher.digest("model", tuple(parts)),
        model_name=str(model.name or ""),
        value_names=tuple(v.name for v in values),
        value_dtypes=tuple(str(v.dtype) for v in values),
        data_names=tuple(v.name for v in hasher.shared),
        data=tuple(hasher.shared),
    )
