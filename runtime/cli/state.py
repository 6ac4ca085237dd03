"""Per-run state on the click context (flask's ``ScriptInfo``): the debug flag and the terminals."""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from typing import Any

import click

from .output import Output


@dataclass
class CliState:
    """What every command of one run shares: ``--debug`` and where output goes."""

    debug: bool = False
    output: Output = field(default_factory=Output)

    def load_model(self, ref: str) -> Any:
        """The ``pm.Model`` named by ``ref``; a mistake in it is one line (a traceback with --debug)."""
        from .errors import UserError
        from .modelref import ModelRefError, load_model

        try:
            return load_model(ref)
        except ModelRefError as exc:
            raise UserError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - the user's model code can raise anything
            if self.debug:
                traceback.print_exc()
            last = traceback.extract_tb(exc.__traceback__)[-1]
            raise UserError(
                f"the model code raised {type(exc).__name__}: {exc} ({last.filename}:{last.lineno})"
            ) from None


pass_state = click.make_pass_decorator(CliState, ensure=True)
