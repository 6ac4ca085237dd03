"""Run cached postprocessing transforms: lookup-or-compile, run, PyMC integration.

Rooms, lowest first (each imports only itself, the rooms before it and ``aot``/``cache``;
tests/test_layers.py): ``streams/`` (draws in batches, the Zarr sink, inputs on a mesh),
``transforms/`` (the in-process transform cache, ``postprocess``), ``pymc/`` (PyMC's seams,
``enable``), ``cli/`` (the command).

Attributes are imported on first use, so the command line (which lives here too) starts
without loading jax or pymc.
"""

from __future__ import annotations

from ..lazy import lazy_attributes

_EXPORTS = {
    "COUNTERS": ".transforms.engine",
    "clear_memo": ".transforms.engine",
    "get_store": ".transforms.engine",
    "log_likelihood": ".transforms.engine",
    "postprocess": ".transforms.engine",
    "TransformCache": ".transforms.transform_cache",
    "SampleError": ".transforms.validate",
    "disable": ".pymc.pymc_hooks",
    "enable": ".pymc.pymc_hooks",
    "enabled": ".pymc.pymc_hooks",
    "is_enabled": ".pymc.pymc_hooks",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_attributes(__name__, _EXPORTS, globals())
