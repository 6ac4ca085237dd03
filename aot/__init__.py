"""Ahead-of-time compilation of PyMC postprocessing transforms.

A request (:mod:`.request`) names what to build; :func:`.resolve.resolve` turns it into an
entry -- read from the store and loaded (:mod:`.loader`), compiled (:mod:`.compiler`), or
chosen (:mod:`.auto`).

Names and submodules load on first use: a cache hit must not import :mod:`.compiler` or
:mod:`.graph` (they bring PyTensor's JAX dispatch, numpyro and ``pymc.sampling.jax``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

_EXPORTS = {
    "CompileTimings": "..cache.xla_stats",
    "CostStats": "..cache.xla_stats",
    "EntryMetadata": "..cache.entry",
    "MemoryStats": "..cache.xla_stats",
    "CompiledTransform": ".compiler",
    "load_executable": ".loader",
    "TransformEntry": ".entries",
    "ModelFingerprint": ".fingerprint",
    "fingerprint_model": ".fingerprint",
    "TransformKey": ".key",
    "TransformRequest": ".request",
    "make_request": ".request",
    "value_signature": ".request",
    "precompile": ".resolve",
    "OutputSpec": ".spec",
    "resolve_outputs": ".spec",
    "STRATEGY_NAMES": ".strategies",
    "Strategy": ".strategies",
    "get_strategy": ".strategies",
}

__all__ = [
    "STRATEGY_NAMES",
    "CompileTimings",
    "CompiledTransform",
    "CostStats",
    "EntryMetadata",
    "MemoryStats",
    "ModelFingerprint",
    "OutputSpec",
    "Strategy",
    "TransformEntry",
    "TransformKey",
    "TransformRequest",
    "fingerprint_model",
    "get_strategy",
    "load_executable",
    "make_request",
    "precompile",
    "resolve_outputs",
    "value_signature",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors only
    from ..cache.entry import EntryMetadata
    from ..cache.xla_stats import CompileTimings, CostStats, MemoryStats
    from .compiler import CompiledTransform
    from .entries import TransformEntry
    from .fingerprint import ModelFingerprint, fingerprint_model
    from .key import TransformKey
    from .loader import load_executable
    from .request import TransformRequest, make_request, value_signature
    from .resolve import precompile
    from .spec import OutputSpec, resolve_outputs
    from .strategies import STRATEGY_NAMES, Strategy, get_strategy


__getattr__ = lazy_attributes(__name__, _EXPORTS, globals(), submodules=True)
