"""How pymc-aot shows numbers: byte and flop units, times, and tables as text, HTML or rich.

A leaf module: it imports neither jax nor pymc (rich only when a rich table is asked for),
so the command line, the library's notebook display and ``bench/`` share it.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from .cache.entry import strategy_label as entry_label
from .cache.paths import human_bytes

__all__ = [
    "ENTRY_HEADERS",
    "EntryLike",
    "Table",
    "duration",
    "entry_row",
    "entry_table",
    "flops",
    "human_bytes",
    "memory_scope",
    "memory_total",
    "peak_cell",
    "seconds",
    "shape",
    "strategy_label",
    "when",
]


def flops(x: float | None) -> str:
    """``3.24e7`` -> ``"32.4M"``; ``None`` -> ``"-"``."""
    if x is None:
        return "-"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.1f}{unit}"
    return f"{x:.0f}"


def seconds(x: float | None, digits: int = 2) -> str:
    """``0.4412`` -> ``"0.44 s"``; ``None`` -> ``"-"``."""
    return "-" if x is None else f"{x:.{digits}f} s"


def duration(x: float | None) -> str:
    """A short duration at a readable scale: ``"1.24 s"``, ``"3.1 ms"``, ``"85 µs"``; ``None`` -> ``"-"``."""
    if x is None:
        return "-"
    if x >= 1:
        return f"{x:.2f} s"
    if x >= 1e-3:
        return f"{x * 1e3:.1f} ms"
    return f"{x * 1e6:.0f} µs"


def when(ts: float | None) -> str:
    """A Unix time as ``2026-12-02 12:37`` (local time); ``None`` -> ``"-"``."""
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else "-"


def shape(chains: int | None, draws: int | None) -> str:
    """``4, 1000`` -> ``"4x1000"``."""
    return "-" if chains is None or draws is None else f"{chains}x{draws}"


def strategy_label(key_parts: Mapping[str, Any], auto: Mapping[str, Any] | None = None) -> str:
    """``batched(10)``, ``streamed(8)``, ``auto:batched(16)``, ``batched:batched(16)`` (B chosen) or the
    strategy's name, from stored key parts."""
    name = key_parts.get("strategy")
    if auto:
        return f"{name}:{auto['chosen']}"
    return entry_label(str(name), key_parts.get("batch_size"))


@dataclass(frozen=True)
class Table:
    """Rows of text under headers: the first column reads left-aligned, the rest right-aligned."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""

    @classmethod
    def of(cls, headers: Sequence[str], rows: Iterable[Sequence[Any]], caption: str = "") -> Table:
        return cls(tuple(headers), tuple(tuple(str(c) for c in row) for row in rows), caption)

    def text(self, indent: str = "") -> str:
        """Plain text with a dashed rule under the headers (what a pipe or a log gets)."""
        widths = [max([len(h), *(len(r[i]) for r in self.rows)]) for i, h in enumerate(self.headers)]

        def line(cells: Sequence[str]) -> str:
            padded = (c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True)))
            return (indent + "  ".join(padded)).rstrip()

        lines = [line(self.headers), indent + "  ".join("-" * w for w in widths), *(line(r) for r in self.rows)]
        return "\n".join(lines + ([indent + self.caption] if self.caption else []))

    def markdown(self) -> str:
        """A GitHub-flavoured markdown table (what BENCHMARKS.md and the README hold)."""
        align = ["---"] + ["--:"] * (len(self.headers) - 1)
        lines = ["| " + " | ".join(row) + " |" for row in (self.headers, tuple(align), *self.rows)]
        return "\n".join(lines + (["", self.caption] if self.caption else []))

    def html(self) -> str:
        """A compact HTML table (what Jupyter shows): no colours of its own, so light and dark themes
        both read it; classes ``pymc-aot`` (the table) and ``pymc-aot-caption`` for a stylesheet."""
        cell = 'class="pymc-aot-{0}" style="text-align:{0}; padding:1px 8px"'

        def tr(cells: Sequence[str], tag: str) -> str:
            inner = "".join(
                f"<{tag} {cell.format('left' if i == 0 else 'right')}>{html.escape(c)}</{tag}>"
                for i, c in enumerate(cells)
            )
            return f"<tr>{inner}</tr>"

        body = "".join(tr(r, "td") for r in self.rows)
        lines = "<br>".join(html.escape(line) for line in self.caption.splitlines())
        style = 'style="caption-side:bottom; text-align:left"'
        caption = f'<caption class="pymc-aot-caption" {style}>{lines}</caption>' if self.caption else ""
        return f'<table class="pymc-aot">{caption}<thead>{tr(self.headers, "th")}</thead><tbody>{body}</tbody></table>'

    def rich(self) -> Any:
        """A ``rich.table.Table`` (what a terminal gets)."""
        from rich import box
        from rich.table import Table as RichTable
        from rich.text import Text

        table = RichTable(
            box=box.SIMPLE_HEAD,
            show_edge=False,
            padding=(0, 0, 0, 1),
            pad_edge=False,
            caption=self.caption or None,
            caption_justify="left",
        )
        for i, header in enumerate(self.headers):
            # a terminal too narrow folds a value onto two lines; never "…" (a cut key is a wrong key)
            table.add_column(header, justify="left" if i == 0 else "right", overflow="fold")
        for row in self.rows:
            table.add_row(*(Text(c) for c in row))
        return table


def memory_scope(mesh_devices: Sequence[int] | None) -> str:
    """How to read an entry's memory figures: "" on one device; "per device (N devices)" for a
    sharded executable, whose XLA memory analysis is one device's share of the SPMD program."""
    if not mesh_devices:
        return ""
    n = len(mesh_devices)
    return f"per device ({n} device{'s' if n != 1 else ''})"


def peak_cell(peak: int, mesh_devices: Sequence[int] | None) -> str:
    """A peak as a table shows it: "9.0 KiB per device x2" for a sharded executable."""
    if not mesh_devices:
        return human_bytes(peak)
    return f"{human_bytes(peak)} per device x{len(mesh_devices)}"


def memory_total(peak: int, mesh_devices: Sequence[int] | None) -> str:
    """The peak summed over a sharded executable's devices (every device runs the same program
    on an even share, so N times one device's); "" on one device."""
    if not mesh_devices:
        return ""
    n = len(mesh_devices)
    return f"{human_bytes(n * peak)} over all {n} devices"


class _Memory(Protocol):
    argument: int
    output: int
    temp: int

    @property
    def peak(self) -> int: ...


class _Cost(Protocol):
    flops: float | None


class _Key(Protocol):
    kind: str


class _Placement(Protocol):
    mesh_devices: Sequence[int] | None


class EntryLike(Protocol):
    """What ``entry_row`` reads: ``aot.TransformEntry`` has all of it."""

    key: _Key
    digest: str
    strategy: str
    memory: _Memory
    cost: _Cost
    timings: Mapping[str, float]
    cached: bool
    metadata: _Placement


ENTRY_HEADERS = ("transform", "key", "strategy", "input", "output", "temp", "peak", "flops", "compile")


def entry_row(entry: EntryLike) -> tuple[str, ...]:
    """One precompiled transform, as ``pymc-aot precompile`` and a notebook show it."""
    m = entry.memory
    return (
        entry.key.kind,
        entry.digest[:12],
        entry.strategy,
        human_bytes(m.argument),
        human_bytes(m.output),
        human_bytes(m.temp),
        human_bytes(m.peak),
        flops(entry.cost.flops),
        "cached" if entry.cached else seconds(entry.timings.get("total", 0.0)),
    )


def entry_table(entries: Iterable[EntryLike], caption: str = "") -> Table:
    entries = list(entries)
    if any(e.metadata.mesh_devices for e in entries):  # XLA analyses an executable on a mesh per device
        caption = "; ".join(filter(None, [caption, "sharded: input, output, temp and peak are per device"]))
    return Table.of(ENTRY_HEADERS, (entry_row(e) for e in entries), caption)
