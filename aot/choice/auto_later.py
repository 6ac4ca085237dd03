"""One background thread for work a run need not wait for (``auto``'s remaining candidates).

Jobs run one at a time, in the order queued, on a non-daemon thread: the interpreter waits
for them at exit, so what a first run queued is stored before its process ends. The thread
ends when the queue is empty and the next :func:`submit` starts another. A job that fails is
logged and dropped: nothing the run itself needs depends on it.

The thread runs at the lowest CPU priority (``nice`` 19, Linux: per thread, inherited by the
threads it starts): it is to use cores the sampler leaves idle, not to slow the chains. On a
busy 2-core machine at normal priority its compiles took as long off the critical path as on
it (bench/first_run.py, regression: total 1.78x stock either way).
"""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from collections.abc import Callable

log = logging.getLogger("pymc_aot")

_jobs: deque[tuple[Callable[[], None], str]] = deque()
_lock = threading.Lock()
_idle = threading.Condition(_lock)
_worker: threading.Thread | None = None


def submit(job: Callable[[], None], what: str) -> None:
    """Run ``job`` in the background after those queued before it."""
    global _worker
    with _lock:
        _jobs.append((job, what))
        if _worker is None:
            _worker = threading.Thread(target=_work, name="pymc-aot-later", daemon=False)
            _worker.start()


def pending() -> int:
    """Jobs queued or running."""
    with _lock:
        return len(_jobs)  # a job leaves the queue once it has run


def wait(timeout: float | None = None) -> bool:
    """Block until every queued job has run; False if ``timeout`` seconds passed first."""
    with _idle:
        return _idle.wait_for(lambda: _worker is None, timeout)


def _lowest_priority() -> None:
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)  # this thread only, on Linux
    except (AttributeError, OSError):  # not on this platform: normal priority
        pass


def _work() -> None:
    global _worker
    _lowest_priority()
    while True:
        with _lock:
            if not _jobs:
                _worker = None
                _idle.notify_all()
                return
            job, what = _jobs[0]
        try:
            job()
        except Exception:
            log.warning("pymc-aot: background %s failed", what, exc_info=True)
        with _lock:
            _jobs.popleft()
