"""``strategy="batched"``, ``"streamed"`` or ``"sharded"`` without a batch size: B sized as ``auto`` sizes it.

From the same probe as ``auto`` (``batched(1)``, compiled once and stored):

- ``batched``: the largest B, a divisor of chains x draws, whose predicted peak fits the budget
  and whose temporaries stay within ``auto``'s working set -- the smaller of the two sizes
  ``auto`` weighs (:func:`batch_sizes`).
- ``streamed``: the batch ``auto``'s streamed candidate gets (``stream_fit.stream_batch``).
- ``sharded``: over the devices asked for, the per-device batch ``auto``'s sharded candidate
  gets (``shard_fit.shard_batch``).

B is halved (twice at most) if the compiled executable does not fit after all; the entry is
stored under the family's own key (``"batched"`` with no batch size) with the choice, which
``inspect`` shows as ``batched:batched(B)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..strategies.sharding import plan_mesh
from ..strategies.strategies import Strategy, get_strategy
from .shard_fit import is_sharded, shard_batch
from .stream_fit import fit_by_halving, is_streamed, is_streamed_over_devices, largest_divisor, stream_batch

if TYPE_CHECKING:
    from ...cache.auto_choice import Candidate
    from ...cache.entry import EntryMetadata
    from .search import Search

RULES = {
    "batched": "batched without B: largest divisor B whose peak fits the budget and temp the working set",
    "streamed": "streamed without B: largest batch whose device peak fits (as auto's streamed candidate)",
    "sharded": "sharded without B: largest per-device batch whose per-device peak fits (as auto's)",
}


def batch_sizes(n: int, base: int, per_draw: int, budget: int, working_set: int) -> tuple[int, int]:
    """``auto``'s two batched sizes for ``n`` draws: the largest whose peak (``base`` plus
    ``per_draw`` temporaries a draw) fits ``budget``, and the largest that also keeps the
    temporaries within ``working_set``; each a divisor of ``n``."""
    room = budget - base
    b_fit = n if per_draw <= 0 else max(1, min(n, room // per_draw)) if room > 0 else 1
    b_cache = n if per_draw <= 0 else max(1, working_set // per_draw)
    if not n:
        return 1, 1
    return largest_divisor(n, b_fit), largest_divisor(n, min(b_cache, b_fit))


def _sized(name: str, b: int) -> Strategy:
    strategy = get_strategy(name, b)
    assert strategy is not None
    return strategy


def sized_candidates(search: Search, probe: EntryMetadata, family: str, working_set: int) -> list[Candidate]:
    """Compile ``family``'s candidate for the B ``auto`` would give it (halved if it does not
    fit); the family's candidates tried, weighed."""
    request, budget = search.request, search.budget
    chains, draws = request.key.chains_draws
    n = chains * draws
    if family == "batched":
        m = probe.memory
        b = batch_sizes(n, m.argument + m.output - m.alias, m.temp, budget, working_set)[1]
        fit_by_halving(search, b, lambda b: _sized("batched", b), lambda b: largest_divisor(n, max(1, b // 2)))
        return [c for c in search.weighed() if c.strategy.startswith("batched(")]
    if family == "streamed":
        b = stream_batch(chains, draws, probe, budget)
        fit_by_halving(search, b, lambda b: _sized("streamed", b), lambda b: max(1, b // 2))
        return [c for c in search.weighed() if is_streamed(c.strategy) and not is_streamed_over_devices(c.strategy)]
    plan = plan_mesh(request.devices, request.device.platform, chains, draws)
    per_device = n // plan.size
    b = shard_batch(per_device, plan.size, probe, budget)
    fit_by_halving(search, b, lambda b: _sized("sharded", b), lambda b: largest_divisor(per_device, max(1, b // 2)))
    return [c for c in search.weighed() if is_sharded(c.strategy)]
