"""Ctrl-C always stops a command and exits 130, keeping what was stored before it.

Python raises ``KeyboardInterrupt`` wherever the main thread happens to be; inside a garbage
collector callback (JAX's ``_xla_gc_callback``) or a ``__del__`` it is printed as "Exception
ignored" and the work goes on. So the handler also remembers the interrupt: every progress step
checks it (:func:`stop_if_interrupted`), and the command's exit code is 130 whatever happened
after it. Every store is one database transaction, so stopping between steps keeps each stored
entry whole.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

EXIT_INTERRUPTED = 130
"""What shells expect of a command stopped by SIGINT (128 + 2)."""

_seen = threading.Event()


def _on_sigint(signum: int, frame: Any) -> None:
    _seen.set()
    raise KeyboardInterrupt


def interrupted() -> bool:
    """Whether Ctrl-C came during the current command."""
    return _seen.is_set()


def stop_if_interrupted() -> None:
    """Raise ``KeyboardInterrupt`` again if one came and was swallowed on the way."""
    if _seen.is_set():
        raise KeyboardInterrupt


@contextmanager
def interrupts_stop() -> Iterator[None]:
    """Route SIGINT to the handler above while a command runs (main thread only)."""
    _seen.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
