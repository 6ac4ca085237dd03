"""PyMC's seams: ``enable()`` routes PyMC's own postprocessing through the cache.

Owns: ``pymc_hooks`` (enable/disable/enabled), ``hook_state`` (the active options),
``pymc_jax_seams`` (the replacements of ``pymc.sampling.jax`` internals),
``pymc_compute_hooks`` (``pm.compute_log_likelihood`` and friends), ``sample_out``
(``pm.sample`` into a Zarr store), ``posterior_io`` (InferenceData / DataTree in and out).

May import: ``runtime.transforms``, ``runtime.streams``, ``pymc_aot.aot``, ``pymc_aot.cache``.
"""

from __future__ import annotations

from ...lazy import lazy_attributes

__getattr__ = lazy_attributes(__name__, {}, globals(), submodules=True)  # ``room.module`` imports it on first use
