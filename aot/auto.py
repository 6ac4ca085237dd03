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

Nothing fits: :class:`MemoryBudgetError`, with what is needed, what is available and what
would make it fit.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..cache import CacheStore
from ..cache.paths import human_bytes
from .budget import MemoryBudgetError, describe
from .compiler import CompiledTransform, Progress
from .graph import TransformGraph, build_transform
from .key import make_key
from .precompile import TransformRequest, compile_and_store
from .strategies import Strategy, get_strategy


@dataclass(frozen=True)
class AutoResult:
    """The auto entry's metadata and, when it was just compiled, the live executable."""

    metadata: dict[str, Any]
    executable: Any | None
    payload: bytes | None
    cached: bool
    compiles: int = 0


def _largest_divisor(n: int, limit: int) -> int:
    limit = max(1, min(n, limit))
    for b in range(limit, 0, -1):
        if n % b == 0:
            return b
    return 1


def _request_for(request: TransformRequest, strategy: Strategy) -> TransformRequest:
    if request.spec.kind == "log_likelihood":
        strategy = dataclasses.replace(strategy, donate=False)
    key = make_key(request.fingerprint, request.spec, strategy, request.key.values, request.device)
    return dataclasses.replace(request, strategy=strategy, key=key)


class _SharedGraph:
    """Builds the transform's graph once for every candidate that needs compiling."""

    def __init__(self, model: Any, request: TransformRequest) -> None:
        self.model, self.request = model, request
        self.graph: TransformGraph | None = None

    def get(self, say: Progress | None) -> TransformGraph:
        if self.graph is None:
            if say:
                say("building graph")
            self.graph = build_transform(self.model, self.request.spec, self.request.fingerprint)
        return self.graph


def _entry(
    model: Any,
    request: TransformRequest,
    store: CacheStore | None,
    progress: Progress | None,
    model_name: str | None,
    shared: _SharedGraph | None = None,
) -> tuple[dict[str, Any], CompiledTransform | None]:
    if store is not None:
        meta = store.metadata(request.key.digest)
        if meta is not None:
            return meta, None
    say = (lambda step: progress(f"{request.strategy.label}: {step}")) if progress else None
    graph = shared.get(say) if shared is not None else None
    compiled, _ = compile_and_store(model, request, store, say, model_name, graph)
    meta = compiled.metadata(model_name or request.fingerprint.model_name)
    return {**meta, "digest": request.key.digest}, compiled


WORKING_SET = 4 * 1024**2
"""Temporaries up to this size stay in cache (a few MiB of L2/L3 on current CPUs)."""


def _candidate_strategies(n: int, base: int, per_draw: int, budget: int) -> list[Strategy]:
    room = budget - base
    b_fit = n if per_draw <= 0 else max(1, min(n, room // per_draw)) if room > 0 else 1
    b_cache = n if per_draw <= 0 else max(1, WORKING_SET // per_draw)
    sizes = {_largest_divisor(n, b_fit), _largest_divisor(n, min(b_cache, b_fit))} if n else {1}
    # batched(n) is vmap with a loop around it: vmap stands for it
    return [get_strategy("vmap"), get_strategy("scan_vmap"), get_strategy("nested_scan")] + [
        get_strategy("batched", b) for b in sorted(sizes, reverse=True) if b < n
    ]


def _summary(label: str, meta: dict[str, Any], budget: int, chains: int, draws: int) -> dict[str, Any]:
    memory, cost = meta["memory"], meta.get("cost", {})
    return {
        "strategy": label,
        "steps": _steps(label, chains, draws),
        "key": meta.get("digest"),
        "peak": memory["peak"],
        "argument": memory["argument"],
        "output": memory["output"],
        "temp": memory["temp"],
        "alias": memory["alias"],
        "flops": cost.get("flops"),
        "bytes_accessed": cost.get("bytes_accessed"),
        "fits": memory["peak"] <= budget,
    }


def _steps(label: str, chains: int, draws: int) -> int:
    """Sequential steps a strategy takes over ``chains`` x ``draws``."""
    if label.startswith("batched("):
        b = int(label[len("batched(") : -1])
        return -(-chains * draws // b)
    return {"vmap": 1, "scan_vmap": chains, "scan": draws, "vmap_scan": draws}.get(label, chains * draws)


def _rank(candidate: dict[str, Any]) -> tuple[int, int, int]:
    extra = candidate["temp"] - candidate["alias"]  # what the call needs beyond its outputs
    if extra <= WORKING_SET:
        return (0, candidate["steps"], candidate["peak"])
    return (1, extra, candidate["peak"])


def preflight_message(request: TransformRequest, evidence: list[dict[str, Any]], budget: int,
                      output_sizes: dict[str, int]) -> str:
    best = min(evidence, key=lambda c: c["peak"])
    chains, draws = request.key.chains_draws
    biggest = sorted(output_sizes.items(), key=lambda kv: -kv[1])[:3]
    parts = [
        f"postprocessing the {request.spec.kind} of {chains} chains x {draws} draws needs at least "
        f"{describe(best['peak'])} but the memory budget is {describe(budget)} on {request.device.platform}.",
        f"Best candidate {best['strategy']}: input {human_bytes(best['argument'])}, output "
        f"{human_bytes(best['output'])}, temp {human_bytes(best['temp'])}.",
        "To make it fit: keep fewer draws (outputs grow with chains x draws)",
    ]
    if biggest and request.spec.kind == "posterior":
        parts[-1] += ", drop large variables with var_names (largest: " + ", ".join(
            f"{n} {human_bytes(b)}" for n, b in biggest) + ")"
    if request.device.platform != "cpu":
        parts[-1] += ", postprocess on the CPU backend"
    parts[-1] += ", or raise memory_budget."
    return " ".join(parts)


def resolve_auto(
    model: Any,
    request: TransformRequest,
    budget: int,
    store: CacheStore | None,
    progress: Progress | None = None,
    model_name: str | None = None,
) -> AutoResult:
    """The auto entry for ``request`` (whose strategy is :data:`AUTO`) under ``budget`` bytes."""
    digest = request.key.digest
    if store is not None:
        found = store.get(digest)
        if found is not None and found[1].get("auto", {}).get("peak", budget + 1) <= budget:
            return AutoResult(found[1], None, found[0], cached=True)
    chains, draws = request.key.chains_draws
    n = chains * draws
    shared = _SharedGraph(model, request)
    probe_request = _request_for(request, get_strategy("batched", 1))
    probe_meta, probe = _entry(model, probe_request, store, progress, model_name, shared)
    memory = probe_meta["memory"]
    base = memory["argument"] + memory["output"] - memory["alias"]
    evidence: list[dict[str, Any]] = [_summary("batched(1)", probe_meta, budget, chains, draws)]
    compiled: dict[str, CompiledTransform | None] = {"batched(1)": probe}
    metas = {"batched(1)": probe_meta}
    for strategy in _candidate_strategies(n, base, memory["temp"], budget):
        if strategy.label in metas:
            continue
        meta, live = _entry(model, _request_for(request, strategy), store, progress, model_name, shared)
        metas[strategy.label], compiled[strategy.label] = meta, live
        evidence.append(_summary(strategy.label, meta, budget, chains, draws))
    fitting = [c for c in evidence if c["fits"]]
    if not fitting:
        sizes = dict(zip(probe_meta["output_names"], probe_meta.get("output_bytes", []), strict=False))
        raise MemoryBudgetError(preflight_message(request, evidence, budget, sizes))
    chosen = min(fitting, key=_rank)
    label = chosen["strategy"]
    live = compiled[label]
    if live is not None:
        payload, executable = live.payload, live.executable
    else:
        found = store.get(metas[label]["digest"]) if store is not None else None
        if found is None:  # evicted between the two reads: build it again
            chosen_request = _request_for(request, get_strategy(label))
            meta, live = _entry(model, chosen_request, None, progress, model_name, shared)
            payload, executable = live.payload, live.executable
        else:
            payload, executable = found[0], None
    bookkeeping = ("digest", "format", "executable_size", "executable_sha256")
    meta = {k: v for k, v in metas[label].items() if k not in bookkeeping}
    meta["key"] = request.key.parts()
    meta["auto"] = {
        "chosen": label,
        "chosen_key": metas[label].get("digest"),
        "peak": chosen["peak"],
        "budget": budget,
        "rule": f"fits the budget; temp - alias <= {WORKING_SET} bytes then fewest steps, else smallest",
        "candidates": evidence,
    }
    if store is not None:
        store.put(digest, payload, meta)
        meta = store.metadata(digest) or meta
    compiles = sum(live is not None for live in compiled.values())
    return AutoResult(meta, executable, payload, cached=False, compiles=compiles)
