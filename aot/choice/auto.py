"""``strategy="auto"``: choose a strategy from XLA's memory analysis before anything runs.

1. Probe: compile ``batched(1)``; its temp bytes are what one draw needs.
2. Candidates: ``vmap``, ``scan_vmap``, ``nested_scan`` and ``batched(B)`` for the largest
   B dividing chains*draws whose predicted peak (base + B * per-draw temp) fits the budget,
   and for the largest whose temp fits the working set.
3. Keep the candidates whose predicted peak (argument + output + temp - alias) fits. Pick,
   among those whose temporaries (temp - aliased) fit a cache-sized working set
   (``WORKING_SET``), the one with the fewest sequential steps; if none does, the one with
   the smallest temporaries.
   Why: postprocessing is memory-bound. On the 20000 x 50 regression (``pymc-aot compare
   --run``, 4 x 1000 draws) time follows the temp working set -- batched(10) 1.6 MiB temp
   1.12 s, batched(100) 15 MiB 1.33 s, scan_vmap 153 MiB 2.0 s, vmap 610 MiB 2.4 s -- while
   on small models the per-step overhead of a loop is what costs, so the fewest steps win.
   (XLA's cost analysis counts a loop body once, so flops and bytes accessed cannot rank
   loops against vmap.)
4. Store the choice and every candidate's numbers under the ``auto`` key, so a later run
   loads the winner without compiling the losers again.

Streaming (``streamed(B)``, one call per batch of B draws; each batch leaves the device
while the next computes). Its device peak is inputs + two batches' outputs + temp (XLA's
analysis of the batch executable, plus the second batch in flight); the whole result is
assembled off the device: in host memory, or with ``out=`` in a Zarr store on disk.

5. With ``out=`` (``request.to_disk``) only ``streamed`` is weighed, on every platform: the
   result is going to disk anyway, and streaming it there keeps the device (and, on the
   CPU, the machine) at inputs + a few batches instead of the whole output, while each
   batch's write overlaps the next batch's compute.
6. In memory, ``sharded(B)`` over several accelerators is the first fallback when nothing
   fits one device (never on the CPU; see :mod:`.shard_fit`). Then ``streamed``: weighed
   only when no device-resident candidate fits, and only on an accelerator, where the
   host has memory of its own; there it fits if its device peak fits the budget and the
   whole result fits 80% of the host's free memory. On the CPU the device *is* host
   memory: streaming into NumPy needs the whole output in the same RAM plus batches in
   flight, never less than ``batched``, so it is not a candidate there; only ``out=``
   (disk) helps. Last, where even one device cannot hold the inputs: ``streamed(B)`` over
   several accelerators (never on the CPU; see :mod:`.shard_fit`).
7. The batch: the largest B whose device peak fits the budget and whose outputs stay
   under ``STREAM_BATCH_BYTES`` (host buffers and Zarr chunks), rounded to divide the
   draws (or a whole number of chains) so batches line up with Zarr chunks. If the
   compiled batch does not fit after all, B is halved (twice at most).

Nothing fits: :class:`MemoryBudgetError`, with what is needed, what is available and what
would make it fit (``out=`` when the outputs alone are what does not fit).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...cache import CacheStore
from ...cache.auto_choice import AutoChoice, Candidate
from ...cache.entry import EntryMetadata
from ...cache.paths import human_bytes
from ..build.entries import TransformEntry, compile_and_store, read_entry, read_metadata
from ..build.request import Progress, TransformRequest
from ..strategies.budget import MemoryBudgetError, exact_size
from ..strategies.strategies import Strategy, get_strategy
from .shard_fit import SHARD_RULE, SHARD_STREAM_RULE, sharded_candidates, streamed_sharded_candidates
from .sized import RULES, batch_sizes, sized_candidates
from .stream_fit import (
    acceptable,
    device_is_host,
    fit_by_halving,
    host_budget,
    is_streamed,
    is_streamed_over_devices,
    stream_batch,
    streaming_advice,
)

if TYPE_CHECKING:
    from ..build.graph import TransformGraph

WORKING_SET = 4 * 1024**2
"""Temporaries up to this size stay in cache (a few MiB of L2/L3 on current CPUs)."""

RULE = f"fits the budget; temp - alias <= {WORKING_SET} bytes then fewest steps, else smallest"
STREAM_RULE = "streamed: largest batch whose device peak fits (out=, or in memory when nothing else fits off-CPU)"


class _Search:
    """The candidates of one ``auto`` request: compiled (or found) once each, weighed on demand."""

    def __init__(self, request: TransformRequest, store: CacheStore | None, progress: Progress | None) -> None:
        self.request, self.store, self.progress = request, store, progress
        self.budget = request.budget or 0
        self.graph = _SharedGraph(request)
        self.tried: dict[str, _Tried] = {}

    def attempt(self, strategy: Strategy) -> _Tried:
        candidate = self.request.with_strategy(strategy)
        if candidate.label not in self.tried:
            self.tried[candidate.label] = _try(candidate, self.store, self.graph, self.progress)
        return self.tried[candidate.label]

    def fits(self, metadata: EntryMetadata) -> bool:
        if metadata.device_peak > self.budget:
            return False
        in_memory = metadata.stream_batch is not None and not self.request.to_disk
        return not in_memory or metadata.host_bytes <= host_budget()

    def weighed(self) -> list[Candidate]:
        return [_weigh(t, self.fits(t.metadata)) for t in self.tried.values()]


class _SharedGraph:
    """Builds the transform's graph once for every candidate that needs compiling."""

    def __init__(self, request: TransformRequest) -> None:
        self.request = request
        self.graph: TransformGraph | None = None

    def get(self, say: Progress | None) -> TransformGraph:
        if self.graph is None:
            if say:
                say("building graph")
            from ..build.graph import build_transform  # a build: PyTensor's JAX dispatch is needed now

            r = self.request
            self.graph = build_transform(r.model, r.spec, r.fingerprint)
        return self.graph


@dataclass(frozen=True, eq=False)  # never compared; identity equality and hash
class _Tried:
    """A candidate's request and metadata; ``entry`` when it was compiled just now."""

    request: TransformRequest
    metadata: EntryMetadata
    entry: TransformEntry | None


def _named(name: str, batch_size: int | None = None) -> Strategy:
    strategy = get_strategy(name, batch_size)
    assert strategy is not None
    return strategy


def _candidate_strategies(n: int, base: int, per_draw: int, budget: int) -> list[Strategy]:
    sizes = set(batch_sizes(n, base, per_draw, budget, WORKING_SET))
    # batched(n) is vmap with a loop around it: vmap stands for it
    return [_named("vmap"), _named("scan_vmap"), _named("nested_scan")] + [
        _named("batched", b) for b in sorted(sizes, reverse=True) if b < n
    ]


def _try(request: TransformRequest, store: CacheStore | None, graph: _SharedGraph, progress: Progress | None) -> _Tried:
    """A candidate's stored metadata (its executable is not read), or a compile of it."""
    metadata = read_metadata(store, request.key.digest)
    if metadata is not None:
        return _Tried(request, metadata, None)
    say = (lambda step: progress(f"{request.label}: {step}")) if progress else None
    entry = compile_and_store(request, store, say, graph.get(say))
    return _Tried(request, entry.metadata, entry)


def _weigh(tried: _Tried, fits: bool) -> Candidate:
    metadata = tried.metadata
    memory, cost = metadata.memory, metadata.cost
    assert tried.request.strategy is not None
    return Candidate(
        strategy=tried.request.label,
        steps=tried.request.strategy.steps(*tried.request.key.chains_draws),
        key=metadata.digest,
        peak=metadata.device_peak,
        argument=memory.argument,
        output=memory.output,
        temp=memory.temp,
        alias=memory.alias,
        flops=cost.flops,
        bytes_accessed=cost.bytes_accessed,
        fits=fits,
        host_bytes=metadata.host_bytes,
    )


def _rank(candidate: Candidate) -> tuple[int, int, int]:
    if candidate.extra <= WORKING_SET:
        return (0, candidate.steps, candidate.peak)
    return (1, candidate.extra, candidate.peak)


def preflight_message(request: TransformRequest, candidates: list[Candidate], output_sizes: dict[str, int]) -> str:
    """Why nothing fits ``request.budget``, and what would make it fit."""
    best = min(candidates, key=lambda c: c.peak)
    chains, draws = request.key.chains_draws
    budget, platform = request.budget or 0, request.device.platform
    biggest = sorted(output_sizes.items(), key=lambda kv: -kv[1])[:3]
    parts = [
        f"postprocessing the {request.spec.kind} of {chains} chains x {draws} draws needs at least "
        f"{exact_size(best.peak)} but the memory budget is {exact_size(budget)} on {platform}.",
        f"Best candidate {best.strategy}: input {human_bytes(best.argument)}, output "
        f"{human_bytes(best.output)}, temp {human_bytes(best.temp)}.",
        *streaming_advice(request, candidates, sum(output_sizes.values())),
        "To make it fit: keep fewer draws (outputs grow with chains x draws)",
    ]
    if biggest and request.spec.kind == "posterior":
        parts[-1] += ", drop large variables with var_names (largest: " + ", ".join(
            f"{n} {human_bytes(b)}" for n, b in biggest) + ")"
    if platform != "cpu":
        parts[-1] += ", postprocess on the CPU backend"
    parts[-1] += ", or raise memory_budget."
    return " ".join(parts)


def _winner(tried: _Tried, store: CacheStore | None, graph: _SharedGraph, progress: Progress | None) -> TransformEntry:
    """The chosen candidate with its executable: live, from the store, or rebuilt if evicted meanwhile."""
    if tried.entry is not None:
        return tried.entry
    found = read_entry(store, tried.request.key)
    if found is not None:
        return found
    return compile_and_store(tried.request, None, progress, graph.get(progress))


def _streamed_candidates(search: _Search, probe: EntryMetadata) -> list[Candidate]:
    """Compile streamed(B) for the batch predicted to fit; halve B (twice at most) if it does not."""
    b = stream_batch(*search.request.key.chains_draws, probe, search.budget)
    fit_by_halving(search, b, lambda b: _named("streamed", b), lambda b: max(1, b // 2))
    return [c for c in search.weighed() if is_streamed(c.strategy) and not is_streamed_over_devices(c.strategy)]


def _pick(search: _Search, probe: EntryMetadata) -> tuple[Candidate, str]:
    """The winning candidate and the rule that chose it; ``MemoryBudgetError`` if none fits."""
    request, budget = search.request, search.budget
    chains, draws = request.key.chains_draws
    if not request.to_disk:
        base = probe.memory.argument + probe.memory.output - probe.memory.alias
        for strategy in _candidate_strategies(chains * draws, base, probe.memory.temp, budget):
            search.attempt(strategy)
        fitting = [c for c in search.weighed() if c.fits and not is_streamed(c.strategy)]
        if fitting:
            return min(fitting, key=_rank), RULE
        fitting = [c for c in sharded_candidates(search, probe) if c.fits]  # several accelerators only
        if fitting:
            return min(fitting, key=lambda c: (c.steps, c.peak)), SHARD_RULE
    if request.to_disk or not device_is_host(request):
        fitting = [c for c in _streamed_candidates(search, probe) if c.fits]
        if fitting:
            return min(fitting, key=lambda c: (c.steps, c.peak)), STREAM_RULE
        fitting = [c for c in streamed_sharded_candidates(search, probe) if c.fits]  # several accelerators
        if fitting:
            return min(fitting, key=lambda c: (c.steps, c.peak)), SHARD_STREAM_RULE
    raise MemoryBudgetError(preflight_message(request, search.weighed(), probe.output_sizes))


def _pick_sized(search: _Search, probe: EntryMetadata, family: str) -> tuple[Candidate, str]:
    """``family``'s candidate for the B ``auto`` would size (see ``aot.choice.sized``)."""
    fitting = [c for c in sized_candidates(search, probe, family, WORKING_SET) if c.fits]
    if not fitting:
        raise MemoryBudgetError(preflight_message(search.request, search.weighed(), probe.output_sizes))
    return min(fitting, key=lambda c: (c.steps, c.peak)), RULES[family]


def choose(request: TransformRequest, store: CacheStore | None, progress: Progress | None = None) -> TransformEntry:
    """The ``auto`` entry of ``request``: the stored choice if it still holds (see
    :func:`acceptable`) and is complete, else a new one (a run about to sample chooses with
    fewer compiles: :mod:`.auto_first`; a choice it left pending is completed here)."""
    assert request.strategy is None and request.budget is not None, "choose() takes an auto request"
    found = read_entry(store, request.key)
    choice = found.metadata.auto if found is not None else None
    if found is not None and choice is not None and acceptable(choice, request) and not choice.pending:
        return found
    search = _Search(request, store, progress)
    probe = search.attempt(_named("batched", 1)).metadata
    best, rule = _pick(search, probe) if request.family is None else _pick_sized(search, probe, request.family)
    return record_choice(search, best, rule)


def record_choice(
    search: _Search, best: Candidate, rule: str, pending: tuple[str, ...] = (), note: str = ""
) -> TransformEntry:
    """Store ``best`` (its executable, every candidate's numbers) under the auto key."""
    request, store = search.request, search.store
    chosen = search.tried[best.strategy]
    winner = _winner(chosen, store, search.graph, search.progress)
    rebuilt = chosen.entry is None and not winner.cached
    choice = AutoChoice(
        best.strategy, best.key, best.peak, search.budget, rule, tuple(search.weighed()), pending, note
    )
    metadata = dataclasses.replace(
        winner.metadata, key=request.key.parts(), digest=request.key.digest, auto=choice, executable_size=None
    )
    stored = store.put(request.key.digest, winner.payload, metadata.to_json()) if store is not None else False
    return TransformEntry(
        request.key,
        metadata,
        cached=False,
        stored=stored,
        location=str(store.directory) if store is not None else "",
        compiles=sum(t.entry is not None for t in search.tried.values()) + int(rebuilt),
        payload=winner.payload,
        executable=winner.executable,
    )
