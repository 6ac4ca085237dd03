"""Structural fingerprint of a PyMC model's own graph, without rewrites or cloning.

The walk covers what postprocessing can depend on: free and observed random variables,
their value variables and transforms, deterministics, and everything they are built from.
Each variable gets a token from its type, name and, recursively, the op and inputs that
made it; constants are hashed by content, shared variables (``pm.Data``) by type and
position only, because their values are runtime arguments of the executable.

Ops, types and transforms are described by ``aot.identity.describe``: versioned ones by their
declared parameters, user code deeply, with the dispatch registrations of every op type.
Whatever cannot be described exactly makes the fingerprint inexact (``exact=False`` and
``reasons``); such a model is keyed on its lowered program instead (``aot.build.lowered_key``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.op import HasInnerGraph
from pytensor.tensor.variable import TensorVariable

from ..compat import is_inner_graph
from .describe import Describer, short_hash
from .describer import DescribeState
from .dispatch import user_registrations
from .instances import has_inner_graph
from .replaced_functions import replaced_functions
from .rewrite_calls import user_rewrite_calls
from .rewrites import user_rewrites
from .shared_data import is_data
from .trust import is_a, is_versioned_class


class GraphHasher(Describer):
    """Tokens for variables and ops of one graph; ``inputs`` are hashed by position."""

    def __init__(self, inputs: tuple[Variable, ...] = (), state: DescribeState | None = None) -> None:
        super().__init__(state)
        self._tokens: dict[int, int] = {}
        self._constants: dict[tuple[Any, ...], int] = {}  # equal constants share one token
        self.records: list[tuple[Any, ...]] = []  # one per variable; a token is an index here
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
        return short_hash(self.records, extra)

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
        if is_a(v, Constant):
            return ("const", self.short(v.type), self.describe(v.data))
        if is_a(v, SharedVariable):
            if is_a(v, TensorVariable) and is_static_data(v):
                # a shape or slice bound: a compile-time constant, keyed by its current value
                return ("static-data", self.short(v.type), v.name, self.describe(v.get_value(borrow=True)))
            if is_data(v):  # pm.Data, pymc.dims' xtensor data
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
        memo_key = _props_memo_key(obj)
        token = self._short.get(memo_key)
        if token is None:
            token = short_hash(self.describe(obj))
            self._short[memo_key] = token
        self._short_by_id[id(obj)] = token
        self._keep.append(obj)
        return token

    def describe_graph_object(self, obj: Any) -> Any | None:
        if is_a(obj, Variable):
            return ("var", self.token(obj))
        if is_inner_graph(obj):
            inner = GraphHasher(tuple(obj.inputs), self.state)
            outputs = tuple(inner.token(o) for o in obj.outputs)
            return ("fgraph", inner.digest(outputs))
        return None


def is_static_data(var: Any) -> bool:
    """An integer or boolean scalar ``pm.Data``: it can be a shape or a slice bound, which JAX must
    know when tracing, so it is a constant of the executable (keyed by value), not an argument."""
    return var.type.ndim == 0 and str(var.type.dtype).startswith(("int", "uint", "bool"))


_PLAIN = frozenset({type(None), bool, int, float, str, bytes, np.dtype})


def _plain_key(value: Any) -> Any:
    """``value`` with its type if it is plain data (compared by value), else its identity."""
    kind = type(value)
    if kind in _PLAIN:
        return (kind, value)
    if kind is tuple:
        if all(x is None or type(x) is int for x in value):  # shapes, axes
            return value
        return ("tuple", tuple(_plain_key(v) for v in value))
    if kind.__name__ == "frozendict":
        return ("frozendict", tuple(_plain_key(v) for v in value.items()))
    return ("id", id(value))


_memo_props: dict[type, tuple[tuple[str, ...] | None, bool]] = {}


def _props_memo_key(obj: Any) -> Any:
    """Memo key of ``obj``'s description: its class and props for versioned ops and types (which
    recur at many nodes as distinct but equal instances), with any non-plain prop by identity."""
    cls = type(obj)
    found = _memo_props.get(cls)
    if found is None:
        props = getattr(cls, "__props__", None) if is_versioned_class(cls) else None
        found = _memo_props[cls] = (props, HasInnerGraph in cls.__mro__)
    props, may_have_inner_graph = found
    if props is None or (may_have_inner_graph and has_inner_graph(obj)):
        return id(obj)
    key: list[Any] = [cls]
    for name in props:
        key.append(_plain_key(getattr(obj, name, None)))
    return tuple(key)


@dataclass(frozen=True)
class ModelFingerprint:
    """The model's hash plus the facts a cache hit needs without the graph.

    ``data`` lists the model's data shared variables (``pm.Data``, xtensor data too) in walk order, which is
    how executables refer to their data arguments. ``exact`` is False when something in the
    model could not be described deterministically (``reasons`` says what, for people);
    ``key_kind`` says what ``model_hash`` hashes: the graph ("structural") or, for inexact
    models, the lowered StableHLO program ("lowered", see ``aot.build.lowered_key``).
    """

    model_hash: str
    model_name: str
    value_names: tuple[str, ...]
    value_dtypes: tuple[str, ...]
    data_names: tuple[str | None, ...]
    data: tuple[SharedVariable, ...] = dataclasses.field(repr=False, compare=False, hash=False)
    exact: bool = True
    reasons: tuple[str, ...] = ()
    key_kind: str = "structural"

    def data_signature(self) -> tuple[tuple[str | None, tuple[int, ...], str], ...]:
        """Name, current shape and dtype of every data variable."""
        out = []
        for name, var in zip(self.data_names, self.data, strict=True):
            value = var.get_value(borrow=True)
            out.append((name, tuple(int(s) for s in np.shape(value)), str(np.asarray(value).dtype)))
        return tuple(out)


def _short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


_ONE_WALK: ContextVar[dict[int, tuple[Any, ModelFingerprint]] | None] = ContextVar("pymc_aot_one_walk", default=None)


@contextmanager
def one_walk_per_model() -> Iterator[None]:
    """Inside, each model's fingerprint is walked once, at its first ``fingerprint_model``, and
    reused: for a span in which nothing can change a model, one ``pm.sample`` call from its
    preflight to its postprocessing (it runs no user code that could): the call walked it four
    times, and the keys of one call can no longer differ if PyMC folds a constant of the model in
    place meanwhile. The calling thread's context only."""
    token = _ONE_WALK.set({})
    try:
        yield
    finally:
        _ONE_WALK.reset(token)


def fingerprint_model(model: Any) -> ModelFingerprint:
    """Walk the model's own graph (no clone, no rewrite) and hash it (inside
    :func:`one_walk_per_model`, once)."""
    walked = _ONE_WALK.get()
    if walked is None:
        return _walk(model)
    known = walked.get(id(model))
    if known is None or known[0] is not model:
        walked[id(model)] = known = (model, _walk(model))
    return known[1]


def _walk(model: Any) -> ModelFingerprint:
    if not all(hasattr(model, a) for a in ("free_RVs", "rvs_to_values", "deterministics")):
        raise TypeError(f"model: expected a pm.Model, got {type(model).__name__} {_short_repr(model)}")
    hasher = GraphHasher()
    state = hasher.state
    parts: list[Any] = [("check_bounds", bool(getattr(model, "check_bounds", True)))]
    for rv in model.free_RVs:
        state.where = f"free variable {rv.name!r}"
        value = model.rvs_to_values[rv]
        transform = hasher.labelled("its transform", model.rvs_to_transforms.get(rv))
        parts.append(("free", rv.name, hasher.token(rv), value.name, hasher.token(value), transform))
    for rv in model.observed_RVs:
        state.where = f"observed variable {rv.name!r}"
        value = model.rvs_to_values[rv]
        parts.append(("observed", rv.name, hasher.token(rv), hasher.token(value)))
    for det in model.deterministics:
        state.where = f"deterministic {det.name!r}"
        parts.append(("deterministic", det.name, hasher.token(det)))
    state.where = "graph rewrites registered by user code"
    for db, name, rewriter in user_rewrites():
        parts.append(("rewrite", db, name, hasher.labelled(f"{name!r} in {db}", rewriter)))
    calls = user_rewrite_calls()
    if calls:  # none in most processes: their keys stay what they were
        parts.append(("rewrite calls", calls))
    state.where = "JAX registrations made by user code"
    for registry, op_type, fn in user_registrations():
        label = f"{registry} for {op_type.__qualname__}"
        parts.append(("registration", registry, hasher.labelled(label, op_type), hasher.labelled(label, fn)))
    state.where = ""
    for name in replaced_functions():  # versioned code reading the name runs the user's object
        state.unsure(f"{name} was replaced at run time: not its package's code")
    values = [model.rvs_to_values[rv] for rv in model.free_RVs]
    return ModelFingerprint(
        model_hash=hasher.digest("model", tuple(parts)),
        model_name=str(model.name or ""),
        value_names=tuple(v.name for v in values),
        value_dtypes=tuple(str(v.dtype) for v in values),
        data_names=tuple(v.name for v in hasher.shared),
        data=tuple(hasher.shared),
        exact=not state.reasons,
        reasons=tuple(state.reasons),
    )
