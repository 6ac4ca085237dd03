"""Options and parameter types shared by the commands, each defined once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


class ModelRefType(click.ParamType):
    """``path/to/file.py:NAME`` or ``package.module:NAME``; checked here, loaded by the command."""

    name = "MODEL"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from .modelref import ModelRefError, split_ref

        try:
            split_ref(str(value))
        except ModelRefError as exc:
            self.fail(str(exc), param, ctx)
        return str(value)


class NameListType(click.ParamType):
    """``a,b , c`` -> ``["a", "b", "c"]``."""

    name = "NAMES"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> list[str]:
        if isinstance(value, list):
            return value
        names = [n.strip() for n in str(value).split(",") if n.strip()]
        if not names:
            self.fail(f"expected comma-separated variable names, got {value!r}", param, ctx)
        return names


class PlotPathType(click.ParamType):
    """A file ending in .png or .svg (the picture's format follows the extension)."""

    name = "FILE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        path = Path(value)
        if path.suffix.lower() not in (".png", ".svg"):
            self.fail(f"the plot's format follows its extension: .png or .svg, got {path.name!r}", param, ctx)
        return path


def _stack(*options: Callable[[F], F]) -> Callable[[F], F]:
    def apply(func: F) -> F:
        for option in reversed(options):
            func = option(func)
        return func

    return apply


model_argument = click.argument("model_ref", metavar="MODEL", type=ModelRefType())

cache_dir_option = click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    default=None,
    envvar="PYMC_AOT_CACHE_DIR",
    help="Cache root (default: $PYMC_AOT_CACHE_DIR, else ~/.cache/pymc-aot).",
)

json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")

memory_budget_option = click.option(
    "--memory-budget",
    metavar="SIZE",
    default=None,
    help="For auto: bytes, a size (12GiB) or a fraction of free device memory (0.5); default 80% of it.",
)

shape_options = _stack(
    click.option("--chains", default=4, show_default=True, type=click.IntRange(min=1), help="Chains sampled."),
    click.option("--draws", default=1000, show_default=True, type=click.IntRange(min=0), help="Draws kept per chain."),
    click.option(
        "--var-names", type=NameListType(), default=None, help="Comma-separated posterior variables (default: all)."
    ),
    click.option("--keep-untransformed", is_flag=True, help="Also return transformed values (the *__ variables)."),
    click.option(
        "--backend", type=click.Choice(["cpu", "gpu"]), default=None, help="Device to compile for (default: JAX's)."
    ),
    cache_dir_option,
    json_option,
)
"""The options of every command that compiles: MODEL's shapes, outputs, device, cache and --json."""
