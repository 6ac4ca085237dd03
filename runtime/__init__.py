"""Run cached postprocessing transforms: lookup-or-compile, run, PyMC integration.

Attributes are imported on first use, so the command line (which lives here too) starts
without loading jax or pymc.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "COUNTERS": "runtime.engine",
    "clear_memo": "runtime.engine",
    "get_store": "runtime.engine",
    "log_likelihood": "runtime.engine",
    "postprocess": "runtime.engine",
    "SampleError": "runtime.validate",
    "disable": "runtime.pymc_hooks",
    "enable": "runtime.pymc_hooks",
    "enabled": "runtime.pymc_hooks",
    "is_enabled": "runtime.pymc_hooks",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'runtime' has no attribute {name!r}")
