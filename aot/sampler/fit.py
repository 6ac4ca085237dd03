"""Whether a compiled sampler run fits the memory budget, known before it samples.

What a run holds at its peak: the ``chunk`` program's own peak (XLA's memory analysis, stored
with the entry: the state, one chunk of draws and statistics, its temporaries) plus the draws
and statistics kept for the whole run (``chains x draws`` of each, gathered on the host; on a
CPU that is the same memory).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...cache.entry import EntryMetadata
from ...cache.paths import human_bytes
from ..strategies.budget import MemoryBudgetError, exact_size


@dataclass(frozen=True)
class SamplerNeed:
    """Bytes a run needs: the chunk program's peak and the draws kept."""

    chunk_peak: int
    draws_kept: int

    @property
    def total(self) -> int:
        return self.chunk_peak + self.draws_kept


def sampler_need(chunk: EntryMetadata, draws: int) -> SamplerNeed:
    """What a run of ``draws`` draws with the ``chunk`` program needs (its outputs are
    ``(chains, K, ...)``: the state first, then one chunk of draws and statistics)."""
    steps = int(chunk.key["settings"]["chunk"])
    kept = sum(
        size // steps * draws
        for name, size in zip(chunk.output_names, chunk.output_bytes, strict=True)
        if not name.startswith("state.")
    )
    return SamplerNeed(chunk.memory.peak, kept)


def check_sampler_fits(chunk: EntryMetadata, draws: int, budget: int, platform: str) -> SamplerNeed:
    """``MemoryBudgetError`` naming what is needed and what is available, before any sampling."""
    need = sampler_need(chunk, draws)
    if need.total <= budget:
        return need
    settings = chunk.key["settings"]
    m = chunk.memory
    raise MemoryBudgetError(
        f"sampling {settings['chains']} chains x ({settings['tune']} tune + {draws} draws) with the compiled "
        f"{settings['sampler']} sampler needs at least {exact_size(need.total)} but the memory budget is "
        f"{exact_size(budget)} on {platform}: its chunk program {human_bytes(need.chunk_peak)} (input "
        f"{human_bytes(m.argument)}, output {human_bytes(m.output)}, temp {human_bytes(m.temp)}) and the draws "
        f"kept {human_bytes(need.draws_kept)}. To make it fit: fewer chains or draws, a smaller "
        f"enable(chunk_size=...) (now {settings['chunk']}), or raise memory_budget."
    )
