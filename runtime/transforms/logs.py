"""The ``pymc_aot`` logger: one line per transform, shown beside PyMC's own output.

``logging.getLogger("pymc_aot")`` says, at INFO, whether a transform was a cache hit (read from
disk), a miss (compiled, and whether it was stored), and at DEBUG each compile step and each
in-memory hit. Like PyMC's own ``pymc`` logger, it prints to stderr at INFO when the program has
not configured logging (no handler on the root logger); configure logging, or set the level of
``pymc_aot``, to change that.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

log = logging.getLogger("pymc_aot")


class _CurrentStderr(logging.StreamHandler):
    """A ``StreamHandler`` on whatever ``sys.stderr`` is when a record is written (notebooks swap it)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def show_beside_pymc() -> None:
    """PyMC's rule for its ``pymc`` logger: INFO on stderr unless logging is configured."""
    if not logging.root.handlers and not log.handlers and log.level == logging.NOTSET:
        log.setLevel(logging.INFO)
        log.addHandler(_CurrentStderr())


def describe(request: Any) -> str:
    """``posterior transform (auto) of model 'eight_schools'``."""
    return f"{request.spec.kind} transform ({request.label}) of model {request.model_name or '-'!r}"
