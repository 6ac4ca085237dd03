"""How a transform is run over the draws, and how much memory it may use.

Owns: ``strategies`` (the Strategy family: vectorized, batched(B), sequential, streamed(B),
sharded(B), their labels and ``get_strategy``), ``sharding`` (device requests, meshes, the
split of the chain axis), ``budget`` (the memory budget and ``MemoryBudgetError``).

May import: ``pymc_aot.cache`` only (the lowest aot room; ``aot.identity`` names a strategy
in the key, so strategies sit below it).
"""

from __future__ import annotations

from ...lazy import lazy_attributes

__getattr__ = lazy_attributes(__name__, {}, globals(), submodules=True)  # ``room.module`` imports it on first use
