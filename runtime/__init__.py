"""Run cached postprocessing transforms: lookup-or-compile, run, PyMC integration.

Attributes are imported on first use, so the command line (which lives here too) starts
without loading jax or pymc.
"""

from __future__ import annotations

from ..lazy import lazy_attributes

_EXPORTS = {
    "COUNTERS": ".engine",
    "clear_memo": ".engine",
    "get_store": ".engine",
    "log_likelihood": ".engine",
    "postprocess": ".engine",
    "TransformCache": ".transform_cache",
    "SampleError": ".validate",
    "disable": ".pymc_hooks",
    "enable": ".pymc_hooks",
    "enabled": ".pymc_hooks",
    "is_enabled": ".pymc_hooks",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_attributes(__name__, _EXPORTS, globals())
