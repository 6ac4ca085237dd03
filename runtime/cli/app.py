"""The ``pymc-aot`` group, its commands, and how failures become exit codes."""

from __future__ import annotations

import sys
import traceback
import warnings
from collections.abc import Sequence

import click

from ...cache import CacheConfigError, CachePermissionError
from ...cache.bundle import BundleError
from .cmd_clear import clear
from .cmd_compare import compare
from .cmd_doctor import doctor
from .cmd_export import export
from .cmd_import import import_
from .cmd_inspect import inspect
from .cmd_keygen import keygen
from .cmd_precompile import precompile
from .cmd_push import push
from .cmd_stats import stats
from .interrupts import EXIT_INTERRUPTED, interrupted, interrupts_stop
from .state import CliState, pass_state


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--debug", is_flag=True, help="Show full tracebacks, including your model code's.")
@click.version_option(package_name="pymc-aot")
@pass_state
def cli(state: CliState, debug: bool) -> None:
    """Ahead-of-time compiled, cached postprocessing for PyMC's JAX samplers.

    \b
    Before a long run:   pymc-aot precompile model.py:model --chains 4 --draws 2000
    What is cached:      pymc-aot inspect
    Which strategy fits: pymc-aot compare model.py:model --run --plot compare.png
    What is wrong:       pymc-aot doctor
    """
    state.debug = debug


for command in (precompile, inspect, compare, stats, clear, doctor, keygen, export, import_, push):
    cli.add_command(command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and map failures to exit codes 1 (user), 2 (internal) and 130 (Ctrl-C)."""
    with interrupts_stop(), warnings.catch_warnings():
        # ArviZ 0.x (PyMC 5) announces its 1.0 refactor on import: five lines before every command's output
        warnings.filterwarnings("ignore", message=r"\s*ArviZ is undergoing a major refactor", category=FutureWarning)
        code = _run(argv)
    if interrupted():
        click.echo("pymc-aot: interrupted; entries stored before it are kept", err=True)
        return EXIT_INTERRUPTED
    return code


def _run(argv: Sequence[str] | None) -> int:
    state = CliState()
    try:
        # standalone_mode=False: click returns ctx.exit()'s code instead of exiting
        code = cli.main(
            args=list(argv) if argv is not None else None, prog_name="pymc-aot", standalone_mode=False, obj=state
        )
    except (CachePermissionError, CacheConfigError, BundleError) as exc:
        click.echo(_prefixed(str(exc)), err=True)
        return 1
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except click.exceptions.Abort as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):  # click turns Ctrl-C into Abort
            return EXIT_INTERRUPTED
        click.echo("aborted", err=True)
        return 1
    except click.ClickException as exc:  # includes usage errors: a user error, one line
        click.echo(_prefixed(exc.format_message()), err=True)
        return 1
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except Exception as exc:  # noqa: BLE001 - anything else is our bug
        if state.debug:
            traceback.print_exc()
        click.echo(
            f"pymc-aot: internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)", err=True
        )
        return 2
    return code if isinstance(code, int) else 0


def _prefixed(message: str) -> str:
    """``pymc-aot: message``, unless the message already starts with the name ("pymc-aot refuses ...")."""
    return message if message.startswith("pymc-aot") else f"pymc-aot: {message}"


def entry_point() -> None:
    sys.exit(main())
