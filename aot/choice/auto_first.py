"""``auto`` on a run about to sample: compile what the rule needs now, the rest in the background.

The full search (:func:`.auto.choose`) compiles a probe (``batched(1)``) and four or five
candidates before anything runs: 8-10 compiles for a posterior and its log-likelihood,
where stock PyMC compiles one each. Inside ``pm.sample`` (``defer=True``) the choice is made
with one or two compiles:

1. ``vmap`` first. If it fits the budget and its temporaries (temp - alias) fit the working
   set, the rule's winner is known: every other candidate takes more sequential steps than
   vmap's one (with more than one draw per chain), so none can rank before it. Nothing else
   is needed to choose.
2. Else, if vmap fits the budget, the run uses it: it is what stock PyMC runs, and a second
   compile before the run (the rule's winner when vmap's temporaries exceed the working set)
   cost the first run more than it saved (bench/first_run.py: regression's postprocessing
   6.4x stock's with two compiles). The rule's choice is stored once the background has
   compiled every candidate; the next run uses it.
3. Else (vmap does not fit) the rule's *predicted* winner: the candidates the rule would weigh, sized from
   vmap's temporaries per draw (temp / draws, the probe's role), their temporaries
   predicted likewise (``batched(B)``: B draws', ``scan_vmap``: one per chain,
   ``nested_scan``: one), ranked by the rule. It is compiled; if it fits the budget, the
   run uses it.
4. Neither fits: the full search, as without ``defer``, and ``MemoryBudgetError`` if nothing
   fits (still before sampling). A run that fits is never refused: anything that fits
   means the probe, which the full search weighs too, fits.

The choice is stored with the candidates not compiled yet (``AutoChoice.pending``) and why
(``note``); one background thread (:mod:`.auto_later`, non-daemon: the interpreter waits
for it at exit) then runs the full search, reusing what was compiled, and stores the
complete choice, the rule's own winner, with every candidate's numbers: the next run loads
it and compiles nothing. A run stopped before that finishes left a choice with pending
candidates; the next run uses it and completes it in the background (:func:`resume`).
"""

from __future__ import annotations

import logging

from ...cache import CacheStore
from ...cache.auto_choice import Candidate
from ...cache.paths import human_bytes
from ..build.entries import TransformEntry, read_entry
from ..build.request import Progress, TransformRequest
from ..strategies.budget import MemoryBudgetError
from ..strategies.strategies import Strategy
from .auto import RULE, WORKING_SET, _candidate_strategies, _named, _pick, _rank, _Search, _weigh, record_choice
from .auto_later import report_compiles, report_recorded, submit, yield_to_runs
from .stream_fit import acceptable

log = logging.getLogger("pymc_aot")

_QUEUED: set[tuple[str, str]] = set()
"""(store directory, auto key digest) of the full searches queued or running in this process."""

LATER = ("batched(1)", "scan_vmap", "nested_scan", "batched(B)")
"""The candidates the full search adds to vmap (B from ``batched(1)``'s temp per draw)."""


def choose_first(
    request: TransformRequest, store: CacheStore | None, progress: Progress | None = None
) -> TransformEntry:
    """:func:`.auto.choose` for a run about to sample: a stored choice is used even with
    candidates pending (their completion is queued); a new one compiles what it needs now."""
    assert request.strategy is None and request.budget is not None, "choose_first() takes an auto request"
    found = read_entry(store, request.key)
    choice = found.metadata.auto if found is not None else None
    if found is not None and choice is not None and acceptable(choice, request):
        if choice.pending:
            resume(request, store)  # a run stopped before its candidates were all compiled
        return found
    search = _Search(request, store, progress)
    first = first_choice(search)
    if first is None:
        best, rule = _pick(search, search.attempt(_named("batched", 1)).metadata)
        return record_choice(search, best, rule)
    return later(search, record_choice(search, *first))


def first_choice(search: _Search) -> tuple[Candidate, str, tuple[str, ...], str] | None:
    """The winner to run now, the rule, what is pending and why; None: search in full now."""
    request = search.request
    if request.to_disk or search.store is None:
        return None  # streamed to disk: its own candidates; no store: nothing to finish later
    first = search.attempt(_named("vmap"))
    vmap = _weigh(first, search.fits(first.metadata))
    if vmap.fits and vmap.extra <= WORKING_SET and request.key.chains_draws[1] > 1:  # else a loop may take 1 step
        note = (
            f"vmap fits and its temporaries ({human_bytes(vmap.extra)}) fit the working set "
            f"({human_bytes(WORKING_SET)}): every other candidate takes more steps, so none can rank "
            "before it; the others are compiled in the background for the record"
        )
        return vmap, RULE, LATER, note
    if vmap.fits:  # stock PyMC's own strategy fits: a second compile before the run would cost more than it saves
        note = (
            f"vmap fits the budget and the run uses it (PyMC's own strategy) although its temporaries "
            f"({human_bytes(vmap.extra)}) exceed the working set ({human_bytes(WORKING_SET)}); the rule's "
            "choice is made in the background once every candidate is compiled, and may differ"
        )
        return vmap, RULE, LATER, note
    tried = search.attempt(_predicted(search, vmap))
    best = _weigh(tried, search.fits(tried.metadata))
    if not best.fits:
        return None
    note = (
        f"{best.strategy} predicted from vmap's temporaries per draw; the rule's choice is made "
        "in the background once every candidate is compiled, and may differ"
    )
    return best, RULE, tuple(label for label in LATER if label != best.strategy), note


def _predicted(search: _Search, vmap: Candidate) -> Strategy:
    """The rule's winner among the candidates vmap's numbers predict (vmap itself if it fits)."""
    chains, draws = search.request.key.chains_draws
    n = chains * draws
    per_draw = max(1, vmap.temp // max(n, 1))
    base = vmap.argument + vmap.output - vmap.alias
    guesses = [(vmap, _named("vmap"))] if vmap.fits else []
    for strategy in _candidate_strategies(n, base, per_draw, search.budget)[1:]:  # vmap is known
        temp = per_draw * {"scan_vmap": chains, "nested_scan": 1}.get(strategy.name, strategy.batch_size or 1)
        peak = base + temp
        guess = Candidate(strategy.label, strategy.steps(chains, draws), None, peak, vmap.argument, vmap.output,
                          temp, 0, None, None, peak <= search.budget)
        guesses.append((guess, strategy))
    fitting = [g for g in guesses if g[0].fits] or guesses
    return min(fitting, key=lambda g: _rank(g[0]))[1]


def later(search: _Search, entry: TransformEntry) -> TransformEntry:
    """Queue the full search of ``search`` (its graph and compiled candidates reused); ``entry``."""
    assert search.store is not None
    directory = search.store.directory
    _QUEUED.add((str(directory), search.request.key.digest))
    first = entry.metadata.auto.chosen if entry.metadata.auto is not None else None
    submit(lambda: _complete(search, directory, first), f"auto candidates of {search.request.key.digest[:12]}")
    return entry


def resume(request: TransformRequest, store: CacheStore | None) -> None:
    """Queue the completion of a stored choice whose candidates are not all compiled."""
    if store is not None and (str(store.directory), request.key.digest) not in _QUEUED:  # not being completed
        _QUEUED.add((str(store.directory), request.key.digest))
        search = _Search(request, None, None)
        search.graph.get(None)  # PyTensor's rewrites here, in the caller's thread; only JAX's work in the background
        directory = store.directory
        submit(lambda: _complete(search, directory), f"auto of {request.key.digest[:12]}")


def _complete(search: _Search, directory: object, first: str | None = None) -> None:
    """The full search, in the background, into a store of this thread's own; ``first``: the
    strategy the run uses (the runtime is told if the complete choice differs)."""
    store = CacheStore(str(directory))
    try:
        search.store, search.progress = store, yield_to_runs
        try:
            already = sum(t.entry is not None for t in search.tried.values())
            best, rule = _pick(search, search.attempt(_named("batched", 1)).metadata)
        except MemoryBudgetError as exc:  # cannot happen where the first choice fit; keep it
            log.warning("pymc-aot: auto kept its first choice: %s", exc)
            return
        report_compiles(record_choice(search, best, rule).compiles - already)
        if best.strategy != first:
            report_recorded(search.request.key.digest)
    finally:
        store.close()
        _QUEUED.discard((str(directory), search.request.key.digest))
