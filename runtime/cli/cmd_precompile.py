"""``pymc-aot precompile``: compile and store a model's transforms before sampling."""

from __future__ import annotations

from typing import Any

import click

from ...cache import CacheStore
from ...cache.entry import EntryMetadata
from ...render import entry_table
from ..modelref import ref_label
from .catalog import entry_json
from .errors import as_user_error
from .options import memory_budget_option, model_argument, shape_options
from .progress import progress_display
from .state import CliState, pass_state

STRATEGY_HELP = (
    "auto, vmap, scan, scan_vmap, vmap_scan, nested_scan, or batched/streamed/sharded with --batch-size"
    " (or written name(B))."
)


@click.command()
@model_argument
@shape_options
@click.option("--strategy", default="auto", show_default=True, help=STRATEGY_HELP)
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
    "--sampler",
    type=click.Choice(["numpyro", "blackjax"]),
    default=None,
    help="Also compile the NUTS sampler itself, as pm.sample(nuts_sampler=...) runs it inside "
    "enable(sampler=True): warmup and sampling in chunks (--tune, --target-accept, --chunk-size).",
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
    store = CacheStore(cache_dir)
    settings = {k: request.pop(k) for k in ("tune", "target_accept", "chunk_size")} | {"model_ref": model_ref}
    first = "deterministics" if inputs == "constrained" else "posterior"
    kinds = [first, "log-likelihood"] if log_likelihood else [first]
    with progress_display(state.output) as display:
        setup = display.task("setup", unit="")
        tasks = [display.task(kind) for kind in kinds]
        setup(f"loading {model_ref}")
        model = state.load_model(model_ref)
        setup("importing jax")
        from ... import aot

        setup.done(f"loaded {ref_label(model_ref)}")
        entries = []
        for task in tasks:
            options = _step_options(model, inputs, task.name, request)
            if options is None:
                task.done("nothing to compile")
                continue
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
            entries.append(entry)
        if sampler is not None:
            entries += _sampler_entries(display, model, store, sampler, request, settings)
    _report(state, store, entries, request, as_json)


def _sampler_entries(
    display: Any,
    model: Any,
    store: CacheStore,
    sampler: str,
    request: dict[str, Any],
    settings: dict[str, Any],
) -> list[Any]:
    """Compile (or find) the sampler's programs; entries shaped for the table and --json."""
    from ...aot.entries import TransformEntry
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
    state.output.echo(f"\n{request['chains']} chains x {request['draws']} draws; stored in {store.directory}")
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
