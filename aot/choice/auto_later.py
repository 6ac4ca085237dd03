"""One background thread for work a run need not wait for (``auto``'s remaining candidates).

Jobs run one at a time, in the order queued, on a non-daemon thread: the interpreter waits
for them at exit, so what a first run queued is stored before its process ends. The thread
ends when the queue is empty and the next :func:`submit` starts another. A job that fails is
logged and dropped: nothing the run itself needs depends on it.

The thread runs at the lowest CPU priority (``nice`` 19, Linux: per thread, inherited by the
threads it starts): it is to use cores the sampler leaves idle, not to slow the chains. On a
busy 2-core machine at normal priority its compiles took as long off the critical path as on
it (bench/first_run.py, regression: total 1.78x stock either way).

While a run postprocesses (:func:`held`, from the end of sampling to the end of
``pm.sample``) the thread stops at its next step (between building, lowering, compiling and
storing a candidate) until the run is done: a thread at ``nice`` 19 on a busy machine may
hold the GIL for a long time before it is scheduled again, stalling the run's Python work.
A cold ``pm.sample`` holds the jobs too while it lowers its sampler's programs
(``runtime.sampler.prefetch``): the Python work its first draw waits for goes first.
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
compiled_hooks: list[Callable[[int], None]] = []
"""Called with the number of executables a background job compiled (the runtime counts them)."""
recorded_hooks: list[Callable[[str], None]] = []
"""Called with a key's digest whose stored entry a background job replaced by another executable
(the runtime forgets what it holds for it)."""
_holds = 0
_unheld = threading.Condition(threading.Lock())


def report_compiles(count: int) -> None:
    """Tell :data:`compiled_hooks` that a background job compiled ``count`` executables."""
    for hook in list(compiled_hooks):
        hook(count)


def report_recorded(digest: str) -> None:
    """Tell :data:`recorded_hooks` that ``digest``'s stored entry now holds another executable."""
    for hook in list(recorded_hooks):
        hook(digest)


def hold() -> None:
    """Pause the background jobs at their next step until :func:`release` (one per hold)."""
    global _holds
    with _unheld:
        _holds += 1


def release() -> None:
    """End one :func:`hold`; the jobs go on once every hold has ended."""
    global _holds
    with _unheld:
        _holds = max(0, _holds - 1)
        if not _holds:
            _unheld.notify_all()


def held() -> bool:
    """Whether a run holds the background jobs."""
    with _unheld:
        return _holds > 0


def yield_to_runs(step: str = "") -> None:
    """Where a background job may pause: wait while a run holds the jobs (no-op elsewhere)."""
    if threading.current_thread() is not _worker:
        return
    with _unheld:
        _unheld.wait_for(lambda: _holds == 0)


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
