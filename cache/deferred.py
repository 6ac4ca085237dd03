"""Bookkeeping a caller need not wait for: run in order on one background thread, a moment later.

A hit's usage record is a write, and writing means opening diskcache (~20 ms of SQLite and
Python); the hit's result does not depend on it. Tasks run one at a time, in the order
given, on a thread that starts ``delay`` seconds after the first task (a thread that starts
at once takes the GIL from the caller's next few milliseconds). :meth:`DeferredWrites.wait`
runs what is queued at once and returns when it is done; the store calls it before any other
use of its database (every store of that directory in the process shares one queue), and the
interpreter calls it at exit, so no write is lost by exiting.
"""

from __future__ import annotations

import _thread
import atexit
import logging
import os
import threading
import weakref
from collections import deque
from collections.abc import Callable

log = logging.getLogger("pymc_aot.cache")

DELAY = 0.1
"""Seconds between the first queued task and the start of the work."""


class DeferredWrites:
    """A queue of store writes, drained by one background thread."""

    def __init__(self, delay: float = DELAY) -> None:
        self.delay = delay
        self._reset()
        atexit.register(_wait_at_exit, weakref.ref(self))

    def _reset(self) -> None:
        self._guard = threading.Lock()
        self._tasks: deque[Callable[[], None]] = deque()
        self._running = False
        self._worker: int | None = None  # the worker's thread id, once it runs
        self._idle = threading.Event()
        self._idle.set()
        self._now = threading.Event()

    def submit(self, task: Callable[[], None]) -> None:
        """Run ``task`` after those submitted before it, on the background thread."""
        with self._guard:
            self._tasks.append(task)
            if not self._running:
                self._running = True
                self._idle.clear()
                self._now.clear()
                # not threading.Thread: its start() waits until the new thread is scheduled, which
                # on a busy machine costs the caller milliseconds; the atexit hook waits for it
                _thread.start_new_thread(self._drain, ())

    def _drain(self) -> None:
        self._worker = threading.get_ident()
        self._now.wait(self.delay)
        while True:
            with self._guard:
                if not self._tasks:
                    self._running, self._worker = False, None
                    self._idle.set()
                    return
                task = self._tasks.popleft()
            try:
                task()
            except Exception:  # bookkeeping never fails a run; the store warns itself
                log.debug("pymc-aot: deferred store write failed", exc_info=True)

    def wait(self) -> None:
        """Run what is queued now and return when it has run (at once on the background thread)."""
        if self._worker == threading.get_ident():
            return
        with self._guard:
            running = self._running
        if running:
            self._now.set()
            self._idle.wait()


_BY_DIRECTORY: dict[str, DeferredWrites] = {}
_BY_DIRECTORY_GUARD = threading.Lock()


def _forget_in_child() -> None:
    """A forked child has no worker thread, and the parent runs what was queued before the fork."""
    global _BY_DIRECTORY_GUARD
    _BY_DIRECTORY_GUARD = threading.Lock()
    for writes in _BY_DIRECTORY.values():
        writes._reset()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def writes_for(directory: str) -> DeferredWrites:
    """The one queue of this process for the store in ``directory``: every ``CacheStore`` of
    that directory waits for it, so none reads around a write another one has queued."""
    with _BY_DIRECTORY_GUARD:
        return _BY_DIRECTORY.setdefault(directory, DeferredWrites())


def _wait_at_exit(ref: weakref.ReferenceType[DeferredWrites]) -> None:
    writes = ref()
    if writes is not None:
        writes.wait()
