"""Ahead-of-time compilation of PyMC postprocessing transforms.

A request (:mod:`.request`) names what to build; :func:`.resolve.resolve` turns it into an
entry -- read from the store, compiled (:mod:`.compiler`), or chosen (:mod:`.auto`).
"""

from ..cache.entry import CompileTimings, CostStats, EntryMetadata, MemoryStats
from .compiler import CompiledTransform, load_executable
from .entries import TransformEntry
from .fingerprint import ModelFingerprint, fingerprint_model
from .key import TransformKey
from .request import TransformRequest, make_request, value_signature
from .resolve import precompile
from .spec import OutputSpec, resolve_outputs
from .strategies import STRATEGY_NAMES, Strategy, get_strategy

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
