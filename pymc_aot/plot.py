"""Pictures of a strategy comparison, with matplotlib (the optional ``plot`` extra).

Predicted peak per strategy as stacked bars (inputs and outputs, then temporaries), the
memory budget as a line, the strategy ``auto`` chooses marked, and, when the comparison was
timed, the measured run time beside it.
"""

from __future__ import annotations

import functools
import io
from pathlib import Path
from typing import Any

from .render import duration, human_bytes

MISSING = 'plotting needs matplotlib, which is not installed: pip install -e ".[plot]"'
FORMATS = (".png", ".svg")
BYTE_UNITS = (("GiB", 1024.0**3), ("MiB", 1024.0**2), ("KiB", 1024.0), ("bytes", 1.0))
TIME_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6))
BASE, TEMP, CHOSEN_BASE, CHOSEN_TEMP, BUDGET = "#c6dbef", "#4a7fb5", "#fdd0a2", "#e6550d", "#b2182b"


class PlotUnavailableError(ImportError):
    """matplotlib is missing; the message says how to install it."""


def require_matplotlib() -> None:
    """Raise :class:`PlotUnavailableError` (one line) unless matplotlib can be imported."""
    try:
        import matplotlib.figure  # noqa: F401
    except ImportError:
        raise PlotUnavailableError(MISSING) from None


@functools.cache
def _figure_class() -> type:
    """A ``Figure`` that a notebook shows inline as the last line of a cell, also where pyplot
    (and with it IPython's own figure formatter) was never imported."""
    from matplotlib.figure import Figure

    class ComparisonFigure(Figure):
        def _repr_png_(self) -> bytes:
            return _render(self, "png")

        def _repr_svg_(self) -> str:
            return _render(self, "svg").decode()

    return ComparisonFigure


def _render(figure: Any, fmt: str) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt, dpi=100 if fmt == "png" else None)
    return buffer.getvalue()


def comparison_figure(comparison: Any) -> Any:
    """A ``matplotlib.figure.Figure`` of an ``aot.choice.compare.Comparison`` (shown inline in Jupyter)."""
    require_matplotlib()
    Figure = _figure_class()

    results = list(comparison.results)
    height = 1.6 + 0.42 * len(results)
    figure = Figure(figsize=(11 if comparison.timed else 8, height), layout="constrained")
    if comparison.timed:
        peak_ax, time_ax = figure.subplots(1, 2, sharey=True, width_ratios=[3, 2])
        _times(time_ax, comparison, results)
    else:
        peak_ax = figure.subplots()
    _peaks(peak_ax, comparison, results)
    chosen = f"auto chooses {comparison.chosen}" if comparison.chosen else "nothing fits the budget"
    figure.suptitle(
        f"{comparison.model_name}: {comparison.kind}, {comparison.chains} chains x {comparison.draws} draws ({chosen})",
        fontsize=11,
    )
    return figure


def _unit(largest: float, units: tuple[tuple[str, float], ...]) -> tuple[str, float]:
    """The largest unit not above ``largest`` (the axis then shows round numbers of it)."""
    return next(((name, scale) for name, scale in units if largest >= scale), units[-1])


def _peaks(ax: Any, comparison: Any, results: list[Any]) -> None:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    peaks = [r.memory.peak for r in results]
    top = max(peaks) * 1.3
    budget_shown = comparison.budget <= max(top, 1)
    if budget_shown:
        top = max(top, comparison.budget * 1.08)
    unit, scale = _unit(top, BYTE_UNITS)
    rows = range(len(results))
    chosen = [r.strategy == comparison.chosen for r in results]
    temps = [r.memory.temp / scale for r in results]
    bases = [p / scale - t for p, t in zip(peaks, temps, strict=True)]
    ax.barh(rows, bases, color=[CHOSEN_BASE if c else BASE for c in chosen])
    ax.barh(rows, temps, left=bases, color=[CHOSEN_TEMP if c else TEMP for c in chosen])
    for i, peak in enumerate(peaks):
        over = peak > comparison.budget
        ax.text(
            peak / scale,
            i,
            f" {human_bytes(peak)}" + ("  over budget" if over else ""),
            va="center",
            fontsize=8,
            color=BUDGET if over else "black",
        )
    handles = [
        Patch(color=BASE, label="inputs + outputs - aliased"),
        Patch(color=TEMP, label="temporaries"),
        Patch(color=CHOSEN_TEMP, label="auto's choice"),
    ]
    if budget_shown:
        ax.axvline(comparison.budget / scale, color=BUDGET, linestyle="--")
        handles.append(Line2D([], [], color=BUDGET, linestyle="--", label=f"budget {human_bytes(comparison.budget)}"))
    else:
        ax.annotate(
            f"budget {human_bytes(comparison.budget)} →",
            xy=(1, 1.01),
            xycoords="axes fraction",
            ha="right",
            va="bottom",
            fontsize=8,
            color=BUDGET,
        )
    ax.set_xlim(0, top / scale)
    ax.set_yticks(list(rows), [r.strategy for r in results])
    for label, c in zip(ax.get_yticklabels(), chosen, strict=True):
        label.set_fontweight("bold" if c else "normal")
    ax.invert_yaxis()
    ax.set_xlabel(f"predicted peak memory, {unit} (XLA's memory analysis, before anything runs)")
    ax.figure.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8, frameon=False)
    ax.grid(axis="x", alpha=0.3)


def _times(ax: Any, comparison: Any, results: list[Any]) -> None:
    times = [r.run_seconds or 0.0 for r in results]
    unit, scale = _unit(max(times or [1.0]), TIME_UNITS)
    colors = [CHOSEN_TEMP if r.strategy == comparison.chosen else TEMP for r in results]
    ax.barh(range(len(results)), [t / scale for t in times], color=colors)
    for i, r in enumerate(results):
        text = f" {duration(r.run_seconds)}" if r.run_seconds is not None else " not run"
        ax.text((r.run_seconds or 0.0) / scale, i, text, va="center", fontsize=8)
    ax.set_xlim(0, max(times or [1.0]) / scale * 1.3 or 1.0)
    ax.set_xlabel(f"measured run time, {unit} (synthetic draws)")
    ax.grid(axis="x", alpha=0.3)


def save_figure(figure: Any, path: str | Path) -> Path:
    """Write ``figure`` as PNG or SVG, by ``path``'s extension."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"the plot's format follows its extension: .png or .svg, got {path.name!r}")
    figure.savefig(path, format=path.suffix.lower()[1:], dpi=150)
    return path
