"""The dispatch registrations that decide what a node computes, resolved as dispatch resolves them.

PyMC finds a node's log-density through ``_logprob`` and friends, PyTensor's JAX backend
finds its implementation through ``jax_funcify``: both are ``functools.singledispatch``
registries keyed by the op's type, so a user who registers a function there changes what a
node computes without changing the graph. PyMC's ``CustomDist`` does exactly that with the
user's ``logp``, on a class it makes per variable.

A registry is only consulted if its module is already imported: a user registration
imports it, and importing it here would put PyTensor's JAX backend on every cache hit.
Registrations resolving to versioned code with nothing bound to it (no closure, no
defaults) add nothing: they are covered by the library versions in the key, and leaving
them out keeps the description the same whether or not the registry was imported.
"""

from __future__ import annotations

import abc
import functools
import sys
from collections.abc import Callable
from typing import Any

from .trust import is_versioned_function

REGISTRIES: tuple[tuple[str, str], ...] = (
    ("pymc.logprob.abstract", "_logprob"),
    ("pymc.logprob.abstract", "_logcdf"),
    ("pymc.logprob.abstract", "_logccdf"),
    ("pymc.logprob.abstract", "_icdf"),
    ("pytensor.link.jax.dispatch.basic", "jax_funcify"),
    ("pytensor.link.jax.dispatch.scalar", "jax_funcify_scalar_op_via_py_operators"),
    ("pytensor.graph.replace", "_vectorize_node"),
)
"""(module, name) of every singledispatch registry, keyed by op type, that postprocessing consults."""


def _registry(module: str, name: str) -> Any:
    found = getattr(sys.modules.get(module), name, None)
    return found if hasattr(found, "dispatch") and hasattr(found, "registry") else None


_PRIMITIVE = (type(None), bool, int, float, str, bytes)


def _binds_nothing(fn: Any) -> bool:
    """No closure, no function attributes, defaults only plain values."""
    defaults = (*(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values())
    return not (fn.__closure__ or getattr(fn, "__dict__", None)) and all(type(d) in _PRIMITIVE for d in defaults)


def _plainly_versioned(fn: Any) -> bool:
    return is_versioned_function(fn) and _binds_nothing(fn)


_bound_types: dict[int, tuple[Any, tuple[int, ...], frozenset[type], tuple[type, ...]]] = {}


def _types_bound_to_user_code(registry: Any) -> tuple[frozenset[type], tuple[type, ...]]:
    """The types registered with a function that is not plainly versioned, and those of them that
    are ABCs (singledispatch also matches virtual subclasses). Rescanned when registrations change."""
    entries = registry.registry
    functions = tuple(map(id, entries.values()))  # registering again for a type replaces its function
    cached = _bound_types.get(id(registry))
    if cached is not None and cached[0] is registry and cached[1] == functions:
        return cached[2], cached[3]
    bound = frozenset(t for t, fn in entries.items() if not _plainly_versioned(_unwrap(fn)))
    abcs = tuple(t for t in bound if _has_virtual_subclasses(t))
    _bound_types[id(registry)] = (registry, functions, bound, abcs)
    return bound, abcs


def _has_virtual_subclasses(cls: type) -> bool:
    """Whether ``issubclass`` can hold for ``cls`` beyond the MRO: an ABC with registered virtual
    subclasses or a ``__subclasshook__``. (PyTensor's ops are all ABCs, almost none of them virtual.)"""
    if not isinstance(cls, abc.ABCMeta):
        return False
    if any("__subclasshook__" in vars(c) for c in cls.__mro__ if c is not object):
        return True
    dump = getattr(abc, "_get_dump", None)
    return dump is None or bool(dump(cls)[0])


def _may_resolve_to_bound(op_type: type, bound: frozenset[type], abcs: tuple[type, ...]) -> bool:
    return not bound.isdisjoint(op_type.__mro__) or any(issubclass(op_type, t) for t in abcs)


def registrations(op_type: type) -> tuple[tuple[str, Callable[..., Any]], ...]:
    """``(registry name, function)`` for every registry where ``op_type`` resolves to code that
    is not plainly versioned (user code, or versioned code bound to user objects)."""
    out = []
    for module, name in REGISTRIES:
        registry = _registry(module, name)
        if registry is None:
            continue
        if not _may_resolve_to_bound(op_type, *_types_bound_to_user_code(registry)):
            continue  # dispatch can only resolve to a plainly versioned function
        fn = registry.dispatch(op_type)
        if fn is None or _plainly_versioned(_unwrap(fn)):
            continue
        out.append((name, fn))
    return tuple(out)


def _unwrap(fn: Any) -> Any:
    while isinstance(fn, functools.partial) and not fn.args and not fn.keywords:
        fn = fn.func
    return fn


GLOBAL_REGISTRIES = ("jax_funcify", "jax_funcify_scalar_op_via_py_operators")
"""Registries whose user registrations are part of every model's key, whether or not the op type is
in the model's graph: an op can appear only after rewriting (``log1p(exp(x))`` becomes ``Softplus``)
or be made inside user code at build time (a ``logp``, a ``Transform.backward``). PyTensor itself
registers only plainly versioned functions there, so a model without user registrations adds nothing."""


def user_registrations() -> tuple[tuple[str, type, Callable[..., Any]], ...]:
    """``(registry name, type, function)`` for every registration in ``GLOBAL_REGISTRIES`` that is
    not plainly versioned, in a stable order."""
    out = []
    for module, name in REGISTRIES:
        registry = _registry(module, name) if name in GLOBAL_REGISTRIES else None
        if registry is None:
            continue
        bound, _ = _types_bound_to_user_code(registry)
        for op_type in sorted(bound, key=lambda t: (t.__module__, t.__qualname__)):
            out.append((name, op_type, registry.registry[op_type]))
    return tuple(out)
