"""When ``auto`` shards: a memory fallback over several accelerators, never on the CPU.

The rule (evidence: ``bench/sharded.py``, BENCHMARKS.md "Sharded"):

- CPU: not a candidate. XLA's CPU backend already spreads one device's work over the cores
  (intra-op threads), so host devices compete for the same cores, and what is left to win
  depends on how idle the cores are when the call runs, which no analysis of the executable
  predicts and a stored choice would outlive. Measured on the shared 2-core machine, 4 x 1000
  draws, two runs: the 20000 x 50 regression over 2 devices took 0.78-1.07x the time of 1
  device (0.59x once, on a quieter machine); the wide model was never faster over 2 or 4
  devices than auto's one-device ``batched(50)``. ``strategy="sharded(B)"`` is there for who
  knows their cores are idle.
- Several accelerators: weighed only when no one-device candidate fits the budget, as
  ``streamed`` is. The budget is per device, and so is XLA's memory analysis of a sharded
  executable: split D ways, the outputs need 1/D of each device. Speed on several GPUs is
  not measured here (no such machine was lent), so it is not chosen for speed.
- The batch: the largest B whose per-device peak (inputs and outputs over D, plus B draws'
  temporaries) fits, a divisor of the draws per device; halved (twice at most) if the
  compiled executable does not fit after all.

The auto key names the mesh it may shard over (``TransformKey.mesh``), so a process with
other devices chooses again instead of loading an executable for devices it lacks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cache.entry import Candidate, EntryMetadata
from .sharding import auto_mesh
from .strategies import Strategy, get_strategy
from .stream_fit import largest_divisor

if TYPE_CHECKING:
    from .auto import _Search

SHARD_RULE = "sharded: nothing fits one device; largest batch whose per-device peak fits (several accelerators)"


def is_sharded(label: str) -> bool:
    return label.startswith("sharded(")


def shard_batch(per_device_draws: int, devices: int, probe: EntryMetadata, budget: int) -> int:
    """The batch whose predicted per-device peak fits ``budget`` (the probe is one device's)."""
    m = probe.memory
    base = -(-(m.argument + m.output - m.alias) // devices)
    room = budget - base
    limit = per_device_draws if m.temp <= 0 else room // m.temp
    return largest_divisor(per_device_draws, limit) if limit >= 1 else 1


def sharded_candidates(search: _Search, probe: EntryMetadata) -> list[Candidate]:
    """Compile ``sharded(B)`` over ``auto``'s mesh; none where ``auto`` does not shard."""
    request = search.request
    chains, draws = request.key.chains_draws
    plan = auto_mesh(request.devices, request.device, chains, draws)
    if plan is None:
        return []
    per_device = chains * draws // plan.size
    b = shard_batch(per_device, plan.size, probe, search.budget)
    for _ in range(3):
        strategy = get_strategy("sharded", b)
        assert isinstance(strategy, Strategy)
        tried = search.attempt(strategy)
        if tried.metadata.device_peak <= search.budget or b == 1:
            break
        b = largest_divisor(per_device, max(1, b // 2))
    return [c for c in search.weighed() if is_sharded(c.strategy)]
