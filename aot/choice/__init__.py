"""Which entry serves a request: resolve it, choose a strategy, compare them.

Owns: ``resolve`` (a request to an entry: a disk hit, a compile, or auto's choice; and
``precompile``), ``auto`` (strategy="auto": compile candidates, keep the fastest that fits)
with ``stream_fit`` and ``shard_fit`` (the batch sizing of streamed and sharded candidates),
``compare`` (compile several strategies side by side).

May import: ``aot.build``, ``aot.identity``, ``aot.strategies``, ``aot.compat``,
``pymc_aot.cache`` (the top aot room; only ``pymc_aot.runtime`` sits above it).
"""

from __future__ import annotations

from ...lazy import lazy_attributes

__getattr__ = lazy_attributes(__name__, {}, globals(), submodules=True)  # ``room.module`` imports it on first use
