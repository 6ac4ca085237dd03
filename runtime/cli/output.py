"""Where a command's results go: rich tables in a terminal, plain text in a pipe, JSON on request."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, TextIO

import click

from ...render import Table


class Output:
    """stdout and stderr of one run; rich only where a terminal will read it."""

    def __init__(self) -> None:
        self._stdout: Any = None
        self._stderr: Any = None

    @property
    def stdout(self) -> Any:
        """A rich console on (the current) ``sys.stdout``."""
        if self._stdout is None:
            from rich.console import Console

            self._stdout = Console(highlight=False)
        return self._stdout

    @property
    def stderr(self) -> Any:
        """A rich console on ``sys.stderr`` (progress goes there)."""
        if self._stderr is None:
            from rich.console import Console

            self._stderr = Console(stderr=True, highlight=False)
        return self._stderr

    def stdout_is_terminal(self) -> bool:
        return _may_be_terminal(sys.stdout) and self.stdout.is_terminal

    def stderr_is_terminal(self) -> bool:
        return _may_be_terminal(sys.stderr) and self.stderr.is_terminal

    def echo(self, text: str = "") -> None:
        click.echo(text)

    def table(self, table: Table, indent: str = "") -> None:
        if self.stdout_is_terminal():
            if indent:
                from rich.padding import Padding

                self.stdout.print(Padding(table.rich(), (0, 0, 0, len(indent))))
            else:
                self.stdout.print(table.rich())
        else:
            click.echo(table.text(indent))

    def json(self, doc: Any) -> None:
        click.echo(json.dumps(doc, indent=2))

    def problem(self, text: str) -> None:
        click.echo(f"pymc-aot: {text}", err=True)


def _may_be_terminal(stream: TextIO) -> bool:
    """False when rich would surely say "not a terminal" (a pipe, a file): spares importing rich."""
    if os.environ.get("FORCE_COLOR") or os.environ.get("TTY_COMPATIBLE") == "1":
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
