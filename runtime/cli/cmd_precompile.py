"""``pymc-aot precompile``: compile and store a model's transforms before sampling."""

from __future__ import annotations

from typing import Any

import click

from ...cache import CacheStore
from ...cache.entry import EntryMetadata
from ...render import entry_table
from .catalog import entry_json
from .errors import UserError, as_user_error
from .modelref import ref_label
from .options import StrategyType, memory_budget_option, model_argument, shape_options
from .progress import progress_display
from .state import CliState, pass_state

STRATEGY_HELP = (
    "auto, vmap, scan, scan_vmap, vmap_scan, nested_scan, or batched/streamed/sharded with --batch-size"
    " (or written name(B)); without one, B is chosen as auto sizes it, under --memory-budget."
)


@click.command()
@model_argument
@shape_options
@click.option("--strategy", type=StrategyType(), default="auto", show_default=True, help=STRATEGY_HELP)
@memory_budget_option
@click.option(
    "--batch-size", type=click.IntRange(min=1), default=None, help="Draws per batch for batched/streamed/sharded."
)
@click.option(
    "--devices",
    type=click.IntRange(min=1),
    default=None,
    help="Devices for --strategy sharded (default: one per physical core on a CPU, every accelerator otherwise)"
    " or streamed (default: one).",
)
@click.option("--log-likelihood", is_flag=True, help="Also compile the pointwise log-likelihood transform.")
@click.option(
    "--from",
    "inputs",
    type=click.Choice(["unconstrained", "constrained"]),
    default="unconstrained",
    show_default=True,
    help="unconstrained: the sampler's raw draws (pm.sample with numpyro/blackjax). constrained: "
    "idata.posterior, for pm.compute_deterministics and, with --log-likelihood, pm.compute_log_likelihood "
    "(PyMC's NUTS, nutpie).",
)
@click.option(
    "--predictive",
    is_flag=True,
    help="Also compile the posterior predictive (pm.sample_posterior_predictive after pm.sample; "
    "--var-names then names what it draws).",
)
@click.option(
    "--sampler",
    type=click.Choice(["numpyro", "blackjax"]),
    default=None,
    help="Also compile the NUTS sampler itself, as pm.sample(nuts_sampler=...) runs it inside "
    "enable(): warmup and sampling in chunks (--tune, --target-accept, --chunk-size).",
)
@click.option("--tune", type=click.IntRange(min=0), default=1000, show_default=True, help="Warmup steps (--sampler).")
@click.option("--target-accept", type=float, default=0.8, show_default=True, help="NUTS target acceptance (--sampler).")
@click.option(
    "--chunk-size",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="Steps per sampler call (--sampler).",
)
@pass_state
def precompile(
    state: CliState,
    model_ref: str,
    cache_dir: str | None,
    as_json: bool,
    log_likelihood: bool,
    inputs: str,
    predictive: bool,
    sampler: str | None,
    **request: Any,
) -> None:
    """Compile and store the postprocessing of MODEL before sampling, and say what it will cost.

    MODEL is path/to/file.py:NAME or package.module:NAME, where NAME is a pm.Model or a
    function returning one (default NAME: model). A second identical run finds the entry
    already cached and compiles nothing. With --strategy auto (the default) the candidates are
    compiled and the fastest whose predicted peak fits --memory-budget is kept; if none fits,
    the command fails (exit 1) saying what is needed, what is available and what would fit.

    \b
    Example:
      pymc-aot precompile examples/regression.py:model --draws 2000 --log-likelihood
      pymc-aot precompile examples/regression.py:model --from constrained --log-likelihood
      pymc-aot precompile examples/regression.py:model --sampler numpyro --tune 1000 --draws 1000
    """
    _check_strategy(request["strategy"], request["batch_size"])
    store = CacheStore(cache_dir)
    settings = {k: request.pop(k) for k in ("tune", "target_accept", "chunk_size")} | {"model_ref": model_ref}
    first = "deterministics" if inputs == "constrained" else "posterior"
    kinds = [first, "log-likelihood"] if log_likelihood else [first]
    kinds += ["predictive"] if predictive else []
    with progress_display(state.output) as display:
        setup = display.task("setup", unit="")
        tasks = [display.task(kind) for kind in kinds]
        setup(f"loading {model_ref}")
        model = state.load_model(model_ref)
        setup("importing jax")
        from ... import aot

        setup.done(f"loaded {ref_label(model_ref)}")
        entries = [e for task in tasks if (e := _step(aot, model, store, model_ref, task, inputs, request))]
        if sampler is not None:
            entries += _sampler_entries(display, model, store, sampler, request, settings)
    _report(state, store, entries, request, as_json)
    unstored = [e for e in entries if not e.cached and not e.stored]
    if unstored:
        why = "it is read-only" if store.read_only else "it cannot be written; see the warning above"
        raise UserError(f"nothing stored for {len(unstored)} of {len(entries)} transforms in {store.directory}: {why}")


def _step(aot: Any, model: Any, store: CacheStore, model_ref: str, task: Any, inputs: str, request: dict) -> Any:
    """One transform's entry (None where there is nothing to compile)."""
    if task.name == "predictive":
        return _predictive(model, store, model_ref, task, request)
    options = _step_options(model, inputs, task.name, request)
    if options is None:
        task.done("nothing to compile")
        return None
    with as_user_error():
        entry = aot.precompile(
            model,
            **options,
            inputs=inputs,
            log_likelihood=task.name == "log-likelihood",
            cache=store,
            model_name=ref_label(model_ref),
            progress=task,
        )
    task.done(f"{_how(entry)}: {entry.strategy}")
    return entry


def _check_strategy(strategy: str, batch_size: int | None) -> None:
    """The strategy and --batch-size fit together, before anything loads."""
    from ...cache.entry import SIZED_STRATEGIES

    name, sized = strategy.split("(")[0], "(" in strategy
    if name in SIZED_STRATEGIES and not sized and batch_size is None:
        raise UserError(f"--strategy {name} needs --batch-size B (or write {name}(B))")
    if batch_size is not None and (name not in SIZED_STRATEGIES or sized):
        sized_names = ", ".join(SIZED_STRATEGIES)
        raise UserError(f"--batch-size applies to {sized_names} written without a size, not {strategy!r}")


def _predictive(model: Any, store: CacheStore, model_ref: str, task: Any, request: dict[str, Any]) -> Any:
    """The posterior predictive step: ``--var-names`` are what it draws (default: PyMC's)."""
    from ...aot.build.options import RequestOptions
    from ...aot.choice.predictive import precompile_predictive

    options = RequestOptions.pick({**request, "model_name": ref_label(model_ref)})
    with as_user_error():
        entry = precompile_predictive(
            model, options, chains=request["chains"], draws=request["draws"], cache=store, progress=task
        )
    task.done(f"{_how(entry)}: {entry.strategy}")
    return entry


def _sampler_entries(
    display: Any,
    model: Any,
    store: CacheStore,
    sampler: str,
    request: dict[str, Any],
    settings: dict[str, Any],
) -> list[Any]:
    """Compile (or find) the sampler's programs; entries shaped for the table and --json."""
    from ...aot.build.entries import TransformEntry
    from ...aot.sampler.precompile import precompile_sampler

    task, model_name = display.task("sampler", unit=""), ref_label(settings.pop("model_ref"))
    task(f"{sampler}: compiling (logp, init, chunk)")
    with as_user_error():
        programs = precompile_sampler(
            model, sampler, chains=request["chains"], cache=store, model_name=model_name, **settings
        )
    task.done(
        f"{sampler}: " + ", ".join(f"{p} {'already cached' if v.cached else 'stored'}" for p, v in programs.items())
    )
    return [
        TransformEntry(key=v.key, metadata=v.metadata, cached=v.cached, stored=True, location=str(store.directory))
        for v in programs.values()
    ]


def _how(entry: Any) -> str:
    return "already cached" if entry.cached else "stored" if entry.stored else "compiled (not stored)"


def _report(state: CliState, store: CacheStore, entries: list[Any], request: dict[str, Any], as_json: bool) -> None:
    if as_json:
        docs = [_entry_doc(store, e) for e in entries]
        state.output.json({"location": str(store.directory), "entries": docs})
        return
    state.output.table(entry_table(entries))
    where = "stored in" if all(e.cached or e.stored for e in entries) else "NOT stored in"
    state.output.echo(f"\n{request['chains']} chains x {request['draws']} draws; {where} {store.directory}")
    state.output.echo("peak = input + output + temp - aliased (XLA's memory analysis, before anything runs)")


def _step_options(model: Any, inputs: str, step: str, request: dict[str, Any]) -> dict[str, Any] | None:
    """The options of one step; from the constrained posterior, ``--var-names`` picks
    deterministics in one step and observed variables in the other. None: nothing to compile."""
    if inputs != "constrained":
        return request
    variables = model.deterministics if step == "deterministics" else model.observed_RVs
    pool = [v.name for v in variables]
    names = request.get("var_names")
    chosen = pool if names is None else [n for n in names if n in pool]
    if not chosen:
        return None
    return {**request, "var_names": None if names is None else chosen, "keep_untransformed": False}


def _entry_doc(store: CacheStore, entry: Any) -> dict[str, Any]:
    doc = store.metadata(entry.digest)
    if doc is None:
        return {"key": entry.digest, "cached": False, "stored": False}
    return entry_json(EntryMetadata.from_json(doc), cached=entry.cached)
