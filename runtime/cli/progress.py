"""Progress of long commands on stderr: a rich display in a terminal, timestamped lines elsewhere.

The library reports progress as strings, ``"batched(16): compiling"`` or ``"lowering"``; a
``Task`` is such a callback for one transform, and counts the candidates it has seen.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from .interrupts import stop_if_interrupted
from .output import Output


class Task:
    """The progress callback of one transform: ``task("vmap: compiling")``, then ``task.done("stored")``."""

    def __init__(self, display: _Display, name: str, unit: str) -> None:
        self.display, self.name, self.unit = display, name, unit
        self.labels: list[str] = []
        self.started = False

    def __call__(self, step: str) -> None:
        stop_if_interrupted()
        label, sep, _ = step.partition(": ")
        if sep and label not in self.labels:
            self.labels.append(label)
        self.display.show(self, step)
        self.started = True

    @property
    def count(self) -> str:
        n = len(self.labels)
        return f"{n} {self.unit}" if n else ""

    def done(self, summary: str) -> None:
        self.display.finish(self, summary)


class _Display:
    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.tasks: list[Task] = []
        self.finished: set[int] = set()

    def task(self, name: str, unit: str = "candidates") -> Task:
        made = Task(self, name, unit)
        self.tasks.append(made)
        return made

    def show(self, task: Task, step: str) -> None:
        raise NotImplementedError

    def finish(self, task: Task, summary: str, *, mark: str = "done") -> None:
        self.finished.add(id(task))
        self.show(task, summary)

    def abort(self) -> None:
        """Mark the task that was running as failed and those after it as not run (the error follows)."""
        unfinished = [t for t in self.tasks if id(t) not in self.finished]
        for i, task in enumerate(unfinished):
            self.finish(task, "failed" if i == 0 else "not run", mark="failed" if i == 0 else "skipped")


class LineDisplay(_Display):
    """``  [  9.16 s] posterior: batched(1): building graph``: one line per step, no control characters."""

    def show(self, task: Task, step: str) -> None:
        prefix = f"{task.name}: " if task.name else ""
        click.echo(f"  [{time.perf_counter() - self.start:6.2f} s] {prefix}{step}", err=True)


def _status_column() -> Any:
    from rich.progress import SpinnerColumn
    from rich.text import Text

    class StatusColumn(SpinnerColumn):
        """A spinner while running, a green tick when done, a red cross when it failed, a dot if not run."""

        def render(self, task: Any) -> Any:
            marks = {"failed": Text("✗", style="red"), "skipped": Text("·", style="dim")}
            return marks.get(task.fields.get("mark", ""), None) or super().render(task)

    return StatusColumn


class RichDisplay(_Display):
    """One row per transform: spinner, name, bar, candidates so far, current step, elapsed time."""

    def __init__(self, console: Any) -> None:
        super().__init__()
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        _StatusColumn = _status_column()
        self.progress = Progress(
            _StatusColumn(finished_text="[green]✓"),
            TextColumn("[bold]{task.description:<14}"),
            BarColumn(bar_width=24),
            TextColumn("{task.fields[count]:>14}"),
            TimeElapsedColumn(),
            TextColumn("{task.fields[step]}", markup=False),
            console=console,
        )
        self.ids: dict[int, Any] = {}

    def _id(self, task: Task) -> Any:
        if id(task) not in self.ids:
            self.ids[id(task)] = self.progress.add_task(
                task.name or "pymc-aot", start=False, total=None, count="", step="", mark=""
            )
        return self.ids[id(task)]

    def task(self, name: str, unit: str = "candidates") -> Task:
        made = super().task(name, unit)
        self.progress.update(self._id(made), step="waiting")
        return made

    def show(self, task: Task, step: str) -> None:
        task_id = self._id(task)
        if not task.started:
            self.progress.start_task(task_id)
        self.progress.update(task_id, step=step, count=task.count, completed=max(len(task.labels) - 1, 0))

    def finish(self, task: Task, summary: str, *, mark: str = "done") -> None:
        self.finished.add(id(task))
        task_id = self._id(task)
        if mark == "skipped":
            self.progress.update(task_id, step=summary, mark=mark)
            return
        if not task.started:
            self.progress.start_task(task_id)
        self.progress.update(task_id, step=summary, count=task.count, total=1, completed=1, mark=mark)
        self.progress.stop_task(task_id)


@contextmanager
def progress_display(output: Output) -> Iterator[_Display]:
    """A rich display when stderr is a terminal, timestamped lines when it is not (CI logs, pipes)."""
    if not output.stderr_is_terminal():
        yield LineDisplay()
        return
    display = RichDisplay(output.stderr)
    with display.progress:
        try:
            yield display
        except BaseException:
            display.abort()
            raise
    output.stderr.print()  # a blank line between the finished display and what follows
