"""Options and parameter types shared by the commands, each defined once."""

from __future__ import annotations

import os
import re
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
    """A file ending in .png or .svg (the picture's format follows the extension), in a directory
    that exists and can be written: checked before anything loads, never created."""

    name = "FILE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        path = Path(value)
        if path.suffix.lower() not in (".png", ".svg"):
            self.fail(f"the plot's format follows its extension: .png or .svg, got {path.name!r}", param, ctx)
        folder = path.parent if str(path.parent) else Path(".")
        if not folder.is_dir():
            self.fail(f"the directory {str(folder)!r} does not exist (it is not created for you)", param, ctx)
        if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
            self.fail(f"cannot write {str(path)!r}: permission denied", param, ctx)
        return path


class MemoryBudgetType(click.ParamType):
    """Bytes (``1073741824``), a size (``12GiB``) or a fraction in (0, 1] of free device memory (``0.5``)."""

    name = "SIZE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from ...cache import parse_size

        text = str(value).strip()
        try:
            fraction = float(text)
        except ValueError:
            fraction = None
        if fraction is not None and "." in text:
            if not 0 < fraction <= 1:
                self.fail(f"a fraction of free memory must be in (0, 1], got {text!r}", param, ctx)
            return text
        try:
            parse_size(text)
        except ValueError as exc:
            self.fail(f"{exc} (or a fraction of free memory such as 0.5)", param, ctx)
        return text


STRATEGY_CHOICES = ("auto", "vmap", "scan", "scan_vmap", "vmap_scan", "nested_scan", "batched", "streamed", "sharded")
"""What ``--strategy`` accepts (``aot.strategies.STRATEGY_NAMES`` and auto; a test keeps them equal)."""


class StrategyType(click.ParamType):
    """A strategy name, or a sized one written ``name(B)``: checked by name here, without JAX."""

    name = "NAME"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from ...cache.entry import SIZED_STRATEGIES

        text = str(value).strip()
        match = re.fullmatch(r"(\w+)(?:\((\d+)\))?", text)
        if not match or match.group(1) not in STRATEGY_CHOICES:
            self.fail(f"unknown strategy {text!r}; choose {', '.join(STRATEGY_CHOICES)} (sized: name(B))", param, ctx)
        if match.group(2) is not None and (match.group(1) not in SIZED_STRATEGIES or int(match.group(2)) < 1):
            self.fail(f"{text!r}: only {', '.join(SIZED_STRATEGIES)} take a batch size, a positive integer", param, ctx)
        return text


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
    type=MemoryBudgetType(),
    default=None,
    help="For auto: bytes, a size (12GiB) or a fraction of free device memory (0.5); default 80% of it.",
)

shape_options = _stack(
    click.option("--chains", default=4, show_default=True, type=click.IntRange(min=1), help="Chains sampled."),
    click.option("--draws", default=1000, show_default=True, type=click.IntRange(min=1), help="Draws kept per chain."),
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
