"""Ahead-of-time compilation of PyMC postprocessing transforms.

A request (:mod:`.build.request`) names what to build; :func:`.choice.resolve.resolve` turns
it into an entry -- read from the store and loaded (:mod:`.build.loader`), compiled
(:mod:`.build.compiler`), or chosen (:mod:`.choice.auto`).

Rooms, lowest first (each imports only itself and the rooms before it; tests/test_layers.py):
``compat.py`` (a leaf), ``strategies/`` (how draws are run, the memory budget), ``identity/``
(the model hash and the key), ``build/`` (request to compiled entry), ``choice/`` (resolve,
auto, compare). This module is their lazy facade.

Names and submodules load on first use: a cache hit must not import :mod:`.build.compiler` or
:mod:`.build.graph` (they bring PyTensor's JAX dispatch, numpyro and ``pymc.sampling.jax``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

_EXPORTS = {
    "CompileTimings": "..cache.xla_stats",
    "CostStats": "..cache.xla_stats",
    "EntryMetadata": "..cache.entry",
    "MemoryStats": "..cache.xla_stats",
    "CompiledTransform": ".build.compiler",
    "load_executable": ".build.loader",
    "TransformEntry": ".build.entries",
    "ModelFingerprint": ".identity.fingerprint",
    "fingerprint_model": ".identity.fingerprint",
    "TransformKey": ".identity.key",
    "TransformRequest": ".build.request",
    "make_request": ".build.request",
    "value_signature": ".build.request",
    "precompile": ".choice.resolve",
    "OutputSpec": ".identity.spec",
    "resolve_outputs": ".identity.spec",
    "STRATEGY_NAMES": ".strategies.strategies",
    "Strategy": ".strategies.strategies",
    "get_strategy": ".strategies.strategies",
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
    from .build.compiler import CompiledTransform
    from .build.entries import TransformEntry
    from .build.loader import load_executable
    from .build.request import TransformRequest, make_request, value_signature
    from .choice.resolve import precompile
    from .identity.fingerprint import ModelFingerprint, fingerprint_model
    from .identity.key import TransformKey
    from .identity.spec import OutputSpec, resolve_outputs
    from .strategies.strategies import STRATEGY_NAMES, Strategy, get_strategy


__getattr__ = lazy_attributes(__name__, _EXPORTS, globals(), submodules=True)
