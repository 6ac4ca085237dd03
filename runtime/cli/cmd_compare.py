"""``pymc-aot compare``: every strategy's predicted memory, auto's choice, and with --run the time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ...cache import CacheStore
from .errors import UserError, as_user_error
from .modelref import ref_label
from .options import PlotPathType, memory_budget_option, model_argument, shape_options
from .progress import progress_display
from .state import CliState, pass_state


@click.command()
@model_argument
@shape_options
@memory_budget_option
@click.option("--log-likelihood", is_flag=True, help="Compare the log-likelihood transform instead of the posterior.")
@click.option("--run", is_flag=True, help="Also run each on synthetic draws and report wall time.")
@click.option(
    "--plot",
    "plot_path",
    type=PlotPathType(),
    default=None,
    help='Draw the comparison to FILE (.png or .svg); needs matplotlib (pip install -e ".[plot]").',
)
@pass_state
def compare(
    state: CliState, model_ref: str, cache_dir: str | None, as_json: bool, plot_path: Path | None, **options: Any
) -> None:
    """Compile every strategy for MODEL and compare predicted memory (and, with --run, time).

    Every strategy computes the same numbers; they differ in peak memory and speed. The table
    marks what auto chooses under --memory-budget. Entries compiled here land in the cache, so
    the one you pick is ready.

    \b
    Examples:
      pymc-aot compare examples/regression.py:model --draws 1000 --run
      pymc-aot compare examples/regression.py:model --memory-budget 1GiB --plot compare.png
    """
    if plot_path is not None:
        _check_plotting()
    what = "log-likelihood" if options["log_likelihood"] else "posterior"
    with progress_display(state.output) as display:
        setup, task = display.task("setup", unit=""), display.task(what, unit="strategies")
        setup(f"loading {model_ref}")
        model = state.load_model(model_ref)
        setup("importing jax")
        from ...aot.choice.compare import compare as compare_strategies

        setup.done(f"loaded {ref_label(model_ref)}")
        with as_user_error():
            result = compare_strategies(
                model, **options, cache=CacheStore(cache_dir), model_name=ref_label(model_ref), progress=task
            )
        task.done(f"auto chooses {result.chosen}" if result.chosen else "nothing fits the budget")
    if plot_path is not None:
        result.plot(plot_path)
    if as_json:
        state.output.json(result.to_json())
    else:
        state.output.table(result.table())
    if plot_path is not None:
        click.echo(f"plot written to {plot_path}", err=True)


def _check_plotting() -> None:
    from ...plot import PlotUnavailableError, require_matplotlib

    try:
        require_matplotlib()
    except PlotUnavailableError as exc:
        raise UserError(str(exc)) from None
