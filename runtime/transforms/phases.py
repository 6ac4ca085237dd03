"""Where one run's time went: seconds per step, for ``RuntimeCounters.last_phases``."""

from __future__ import annotations

import time
from collections.abc import Callable


class Phases:
    """Seconds spent in each step of one run, in the order the steps happened, and the
    bookkeeping (``later``) that can wait until the executable has been started."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.later: list[Callable[[], None]] = []
        self._last = time.perf_counter()

    def finish(self, step: str = "bookkeeping") -> None:
        """Run the deferred bookkeeping (while the device computes); its time is ``step``'s."""
        for task in self.later:
            task()
        self.later.clear()
        self.mark(step)

    def mark(self, step: str) -> None:
        """The time since the previous mark was spent on ``step``."""
        now = time.perf_counter()
        self.seconds[step] = self.seconds.get(step, 0.0) + now - self._last
        self._last = now
