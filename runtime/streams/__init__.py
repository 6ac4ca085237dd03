"""Moving draws through a compiled transform in pieces, and where they land.

Owns: ``streaming`` (run a loaded transform per batch of draws, chain segments),
``zarr_store`` (the Zarr v3 sink of ``out=``), ``sharded_input`` (placing inputs on a mesh).

May import: ``pymc_aot.aot`` and ``pymc_aot.cache`` (the lowest runtime room).
"""

from __future__ import annotations

from ...lazy import lazy_attributes

__getattr__ = lazy_attributes(__name__, {}, globals(), submodules=True)  # ``room.module`` imports it on first use
