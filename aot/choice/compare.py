"""Compare the strategies for one transform: predicted memory, what ``auto`` picks, and time.

``compare`` compiles (or finds in the cache) every strategy, asks ``auto`` which one it would
choose under the memory budget, and with ``run=True`` times each on synthetic draws. The
:class:`Comparison` it returns prints as a table, shows as HTML in Jupyter, converts to
JSON and plots (``Comparison.plot``, with the optional ``plot`` extra).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from ...cache import CacheStore
from ...render import Table, duration, human_bytes, seconds
from ..build.compiler import MemoryStats, Progress, load_executable
from ..build.entries import TransformEntry
from ..build.naming import caller_label
from ..build.options import RequestOptions
from ..build.request import resolve_device
from ..identity.fingerprint import fingerprint_model
from ..strategies.budget import MemoryBudgetError, resolve_budget
from ..strategies.strategies import get_strategy
from .auto import WORKING_SET
from .resolve import precompile_with

FIXED = ("vmap", "scan", "scan_vmap", "vmap_scan", "nested_scan")


def strategy_labels(chains: int, draws: int, extra: Sequence[str] = ()) -> list[str]:
    """The strategies compared: the five named ones, then ``batched(B)`` by B, B in 10, 100,
    1000 (below chains x draws) and chains x draws itself, plus ``extra`` (auto's candidates)."""
    n = chains * draws
    sizes = {b for b in (10, 100, 1000) if b < n} | ({n} if n else set())
    batched = {f"batched({b})" for b in sizes} | {s for s in extra if s.startswith("batched(")}
    named = list(FIXED) + [s for s in extra if s not in FIXED and not s.startswith("batched(")]
    return named + sorted(batched, key=lambda s: int(s[len("batched(") : -1]))


@dataclass(frozen=True)
class StrategyResult:
    """One strategy's numbers: XLA's memory and cost analysis, compile time, and run time."""

    strategy: str
    chain_map: str
    draw_map: str
    key: str
    memory: MemoryStats
    flops: float | None
    compile_seconds: float | None
    cached: bool
    run_seconds: float | None = None


@dataclass(frozen=True)
class Comparison:
    """Every strategy for one transform, the budget, and what ``auto`` chooses under it."""

    model_name: str
    kind: str
    chains: int
    draws: int
    budget: int
    chosen: str | None
    results: tuple[StrategyResult, ...]
    timed: bool = False

    @property
    def smallest(self) -> str:
        """The strategy with the smallest predicted peak."""
        return min(self.results, key=lambda r: r.memory.peak).strategy

    def to_json(self) -> dict[str, Any]:
        rows = []
        for r in self.results:
            row = {
                "strategy": r.strategy,
                "chains": r.chain_map,
                "draws": r.draw_map,
                "key": r.key,
                "memory": r.memory.as_dict(),
                "flops": r.flops,
                "compile_seconds": r.compile_seconds,
                "cached": r.cached,
                "fits": r.memory.peak <= self.budget,
                "chosen": r.strategy == self.chosen,
                "smallest_peak": r.strategy == self.smallest,
            }
            if self.timed:
                row["run_seconds"] = r.run_seconds
            rows.append(row)
        return {
            "model_name": self.model_name,
            "kind": self.kind,
            "chains": self.chains,
            "draws": self.draws,
            "budget": self.budget,
            "chosen": self.chosen,
            "strategies": rows,
        }

    def table(self) -> Table:
        # no flops column: XLA counts a loop body once, so a loop's flops cannot be set beside vmap's
        headers = ["strategy", "chains", "draws", "peak", "temp", "output", "fits", "compile"]
        rows = []
        for r in self.results:
            mark = " *" if r.strategy == self.chosen else ""
            row = [
                r.strategy + mark,
                r.chain_map,
                r.draw_map,
                human_bytes(r.memory.peak),
                human_bytes(r.memory.temp),
                human_bytes(r.memory.output),
                "yes" if r.memory.peak <= self.budget else "no",
                "cached" if r.cached else seconds(r.compile_seconds),
            ]
            rows.append(row + ([duration(r.run_seconds)] if self.timed else []))
        budget = human_bytes(self.budget)
        chosen = (
            f"* auto's choice under the budget of {budget}, by a rule, not by timing: the fewest sequential steps "
            f"whose temp fits a {human_bytes(WORKING_SET)} working set, else the smallest temp"
            if self.chosen
            else f"nothing fits the budget of {budget}"
        )
        caption = (
            f"{chosen}\n{self.kind}, {self.chains} chains x {self.draws} draws; "
            "peak = input + output + temp - aliased (XLA's memory analysis)"
        )
        return Table.of(headers + (["run"] if self.timed else []), rows, caption)

    def __str__(self) -> str:
        return self.table().text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return self.table().html()

    def plot(self, path: Any = None) -> Any:
        """A matplotlib figure: predicted peak per strategy, the budget, the choice (and run times);
        saved to ``path`` (.png or .svg) if given. Needs matplotlib (``pip install -e ".[plot]"``)."""
        from ...plot import comparison_figure, save_figure

        figure = comparison_figure(self)
        if path is not None:
            save_figure(figure, path)
        return figure


def compare(
    model: Any,
    *,
    chains: int = 4,
    draws: int = 1000,
    var_names: Sequence[str] | None = None,
    keep_untransformed: bool = False,
    log_likelihood: bool = False,
    backend: str | None = None,
    cache: CacheStore | str | None = None,
    memory_budget: int | float | str | None = None,
    run: bool = False,
    progress: Progress | None = None,
    model_name: str | None = None,
) -> Comparison:
    """Compile every strategy for the transform and compare them (see :class:`Comparison`).

    Entries land in the cache, so the one you pick is ready; ``auto``'s own entry is stored
    too. ``run=True`` also times each executable on synthetic draws (see :func:`time_run`): the
    call alone, inputs already on the device.
    """
    say = progress or (lambda _: None)
    store = cache if isinstance(cache, CacheStore) else CacheStore(cache)
    device = resolve_device(backend)
    budget = resolve_budget(memory_budget, device)
    options = RequestOptions.pick(locals()).replace(memory_budget=None)
    shape: dict[str, Any] = {"chains": chains, "draws": draws, "cache": store}
    chosen, extra = _auto_choice(model, options, shape, store, budget, say)
    results = []
    for label in strategy_labels(chains, draws, extra):
        say_label = lambda s, lb=label: say(f"{lb}: {s}")
        entry = precompile_with(model, options.replace(strategy=label), **shape, progress=say_label)
        if entry.cached:
            say(f"{label}: cached")
        run_seconds = None
        if run:
            say(f"{label}: running")
            run_seconds = time_run(model, entry, store, device)
        results.append(_result(label, entry, run_seconds))
    kind = "log_likelihood" if log_likelihood else "posterior"
    name = model_name or getattr(model, "name", "") or caller_label(model) or "model"
    return Comparison(name, kind, chains, draws, budget, chosen, tuple(results), timed=run)


def _auto_choice(
    model: Any, options: RequestOptions, shape: dict[str, Any], store: CacheStore, budget: int, say: Progress
) -> tuple[str | None, list[str]]:
    """What ``auto`` chooses under ``budget`` (None if nothing fits) and the candidates it compiled."""
    try:
        entry = precompile_with(model, options.replace(strategy="auto", memory_budget=budget), **shape, progress=say)
    except MemoryBudgetError:
        return None, []
    chosen = entry.strategy.removeprefix("auto:")
    meta = store.metadata(entry.digest) or {}
    candidates = [c["strategy"] for c in meta.get("auto", {}).get("candidates", [])]
    return chosen, candidates or [chosen]


def _result(label: str, entry: TransformEntry, run_seconds: float | None) -> StrategyResult:
    strategy = get_strategy(label)
    return StrategyResult(
        strategy=label,
        chain_map=strategy.chain_map,
        draw_map=strategy.draw_map,
        key=entry.digest,
        memory=entry.memory,
        flops=entry.cost.flops,
        compile_seconds=None if entry.cached else entry.timings.get("total"),
        cached=entry.cached,
        run_seconds=run_seconds,
    )


def synthetic_draws(entry: TransformEntry, seed: int = 0) -> list[np.ndarray]:
    """Small random values shaped and typed like the entry's inputs (fine for any transform)."""
    rng = np.random.default_rng(seed)
    return [rng.normal(scale=0.1, size=shape).astype(dtype) for _, shape, dtype in entry.key.values]


def time_run(model: Any, entry: TransformEntry, store: CacheStore, device: Any, repeats: int = 3) -> float | None:
    """Seconds one call of the stored executable takes on synthetic draws: after a warm-up, the
    fastest of up to ``repeats`` calls (fewer once they add up to a second). None if the entry
    could not be stored (a read-only or unwritable cache)."""
    found = store.get(entry.digest)
    if found is None:
        return None
    payload, meta = found
    executable = load_executable(payload, int(meta["n_args"]), len(meta["output_names"]), device)
    fingerprint = fingerprint_model(model)
    data = [jax.device_put(fingerprint.data[i].get_value(borrow=True), device) for i in meta["data_indices"]]
    draws = synthetic_draws(entry)

    def once() -> float:
        args = jax.block_until_ready([jax.device_put(a, device) for a in draws])  # donated: fresh each call
        start = time.perf_counter()
        jax.block_until_ready(executable(*args, *data))
        return time.perf_counter() - start

    once()  # warm-up
    times = [once()]
    while len(times) < repeats and sum(times) < 1.0:
        times.append(once())
    return min(times)
