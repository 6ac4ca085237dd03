"""The ``pymc-aot`` command: thin commands over the library API.

Exit codes: 0 success, 1 user error (one line on stderr), 2 internal error. Heavy
libraries (jax, pymc) are imported inside the commands that need them, so ``--help``,
``stats`` and ``inspect`` answer quickly. ``modelref`` loads a model from ``file.py:NAME``.

The top runtime room: may import ``runtime.transforms``, ``runtime.streams``, ``aot``,
``cache`` (and ``runtime.pymc``, which it does not need).
"""

from .app import cli, entry_point, main

__all__ = ["cli", "entry_point", "main"]
