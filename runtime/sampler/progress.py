"""The host's view of a running sampler: a rich progress bar updated between chunks."""

from __future__ import annotations

from typing import Any

import numpy as np


class SamplerProgress:
    """Steps done, warmup or sampling, divergences and the mean step size; silent when disabled.

    Updated once per chunk (the executable runs without host callbacks), so it costs one
    small host update per call.
    """

    def __init__(self, enabled: bool, chains: int, tune: int, draws: int, done: int = 0) -> None:
        self.tune, self.total, self.divergences = tune, tune + draws, 0
        self._progress: Any = None
        if not enabled:
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("divergences {task.fields[divergences]}  step size {task.fields[step_size]}"),
            TimeRemainingColumn(),
        )
        self._task = self._progress.add_task(
            self._phase(done) + f" ({chains} chains)", total=self.total, completed=done, divergences=0, step_size="-"
        )
        self._chains = chains
        self._progress.start()

    def _phase(self, done: int) -> str:
        return "Warmup" if done < self.tune else "Sampling"

    def update(self, done: int, diverging: np.ndarray | None, step_size: np.ndarray | None) -> None:
        """After a chunk: ``done`` steps in all; ``diverging`` / ``step_size`` of its sampling steps."""
        if diverging is not None:
            self.divergences += int(np.sum(diverging))
        if self._progress is None:
            return
        size = f"{float(np.mean(step_size)):.3g}" if step_size is not None and np.size(step_size) else "-"
        self._progress.update(
            self._task,
            completed=done,
            description=self._phase(done) + f" ({self._chains} chains)",
            divergences=self.divergences,
            step_size=size,
        )

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
