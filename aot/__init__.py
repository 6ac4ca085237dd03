"""Ahead-of-time compilation of PyMC postprocessing transforms."""

from .compiler import CompiledTransform, CompileTimings, CostStats, MemoryStats, load_executable
from .fingerprint import ModelFingerprint, fingerprint_model
from .key import TransformKey
from .precompile import TransformEntry, precompile
from .spec import OutputSpec, resolve_outputs
from .strategies import STRATEGY_NAMES, Strategy, get_strategy

__all__ = [
    "STRATEGY_NAMES",
    "CompileTimings",
    "CompiledTransform",
    "CostStats",
    "MemoryStats",
    "ModelFingerprint",
    "OutputSpec",
    "Strategy",
    "TransformEntry",
    "TransformKey",
    "fingerprint_model",
    "get_strategy",
    "load_executable",
    "precompile",
    "resolve_outputs",
]
