"""Ahead-of-time compilation of PyMC postprocessing transforms."""

from aot.compiler import CompiledTransform, CompileTimings, CostStats, MemoryStats, load_executable
from aot.fingerprint import ModelFingerprint, fingerprint_model
from aot.key import TransformKey
from aot.precompile import TransformEntry, precompile
from aot.spec import OutputSpec, resolve_outputs
from aot.strategies import STRATEGY_NAMES, Strategy, get_strategy

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
