"""``python -m pymc_aot``: the ``pymc-aot`` command."""

from .runtime.cli import entry_point

entry_point()
