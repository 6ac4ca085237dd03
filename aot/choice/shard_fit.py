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

``streamed(B)`` over D devices (each call's batch split over the mesh, B/D draws per device
from its block of the inputs, every piece copied off the device) follows the same rule:

- CPU: never a candidate, for the reasons above (and in memory, streaming on the CPU gains
  nothing; see ``aot.choice.auto``). ``strategy="streamed(B)", devices=N`` is there to be asked for.
- Several accelerators: the last fallback, weighed only where ``streamed(B)`` on one device
  does not fit either (its inputs are what does not fit: over D devices each holds 1/D of
  the samples, the data whole, and two batches of B/D draws). Not chosen for speed.
- The batch: B/D the largest divisor of the draws per device whose per-device peak fits
  and whose whole batch stays under ``STREAM_BATCH_BYTES``; halved as above.

The auto key names the mesh it may shard over (``TransformKey.mesh``), so a process with
other devices chooses again instead of loading an executable for devices it lacks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ...cache.entry import Candidate, EntryMetadata
from ..strategies.sharding import MeshPlan, auto_mesh
from ..strategies.strategies import Strategy, get_strategy
from .stream_fit import STREAM_BATCH_BYTES, fit_by_halving, is_streamed_over_devices, largest_divisor

if TYPE_CHECKING:
    from .search import Search

SHARD_RULE = "sharded: nothing fits one device; largest batch whose per-device peak fits (several accelerators)"
SHARD_STREAM_RULE = "streamed over devices: not even streamed fits one device; largest batch that fits each device"


def is_sharded(label: str) -> bool:
    return label.startswith("sharded(")


def shard_batch(per_device_draws: int, devices: int, probe: EntryMetadata, budget: int) -> int:
    """The batch whose predicted per-device peak fits ``budget`` (the probe is one device's)."""
    m = probe.memory
    base = -(-(m.argument + m.output - m.alias) // devices)
    room = budget - base
    limit = per_device_draws if m.temp <= 0 else room // m.temp
    return largest_divisor(per_device_draws, limit) if limit >= 1 else 1


def stream_shard_batch(per_device_draws: int, devices: int, probe: EntryMetadata, budget: int) -> int:
    """B/D: the draws each device streams per call, so that its block of the inputs, two such
    batches and their temporaries fit ``budget`` (the probe, ``batched(1)``, is one device's)."""
    per_output = sum(probe.output_bytes) // max(per_device_draws * devices, 1)
    per_draw = 2 * per_output + probe.memory.temp
    room = budget - -(-probe.memory.argument // devices)
    by_bytes = STREAM_BATCH_BYTES // (per_output * devices) if per_output else per_device_draws
    limit = min(per_device_draws, room // per_draw if per_draw else per_device_draws, by_bytes)
    return largest_divisor(per_device_draws, limit) if limit >= 1 else 1


def _auto_mesh(search: Search) -> MeshPlan | None:
    request = search.request
    return auto_mesh(request.devices, request.device, *request.key.chains_draws)


def _sized(name: str, b: int) -> Strategy:
    strategy = get_strategy(name, b)
    assert isinstance(strategy, Strategy)
    return strategy


def _fit_on_auto_mesh(
    search: Search, first: Callable[[int, int], int], make: Callable[[int, MeshPlan], Strategy]
) -> bool:
    """Compile candidates over ``auto``'s mesh, halving the per-device batch from ``first(per
    device draws, mesh size)``; False where ``auto`` does not shard."""
    plan = _auto_mesh(search)
    if plan is None:
        return False
    chains, draws = search.request.key.chains_draws
    per_device = chains * draws // plan.size
    fit_by_halving(
        search,
        first(per_device, plan.size),
        lambda b: make(b, plan),
        lambda b: largest_divisor(per_device, max(1, b // 2)),  # halved, still a divisor of its draws
    )
    return True


def sharded_candidates(search: Search, probe: EntryMetadata) -> list[Candidate]:
    """Compile ``sharded(B)`` over ``auto``'s mesh; none where ``auto`` does not shard."""
    if not _fit_on_auto_mesh(
        search, lambda n, d: shard_batch(n, d, probe, search.budget), lambda b, _: _sized("sharded", b)
    ):
        return []
    return [c for c in search.weighed() if is_sharded(c.strategy)]


def streamed_sharded_candidates(search: Search, probe: EntryMetadata) -> list[Candidate]:
    """Compile ``streamed(B)`` over ``auto``'s mesh (B/D draws per device a call); none where
    ``auto`` does not shard."""
    if not _fit_on_auto_mesh(
        search,
        lambda n, d: stream_shard_batch(n, d, probe, search.budget),
        lambda b, plan: _sized("streamed", b * plan.size).on_mesh(plan),
    ):
        return []
    return [c for c in search.weighed() if is_streamed_over_devices(c.strategy)]
