"""Run an executable and deliver its outputs: on the device, into host memory, or to a sink.

A ``streamed(B)`` executable computes one batch of B flattened draws per call (its first
argument is the batch's start). :func:`stream` calls it once per batch and hands each batch
to a sink (preallocated NumPy arrays, or a Zarr store) while the device computes the next:
the next call is dispatched before the previous batch is read back, so the copy to the host
overlaps the compute, and the device holds the inputs plus two batches' outputs at most.

Over a mesh (``streamed(B)`` with ``devices=``) each device holds a block of the samples and
computes B/D draws of it per call; each device's piece of a batch goes to the sink on its
own, at the rows of its block (:class:`MeshLayout`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ...aot.strategies.sharding import split_axis_named
from ...cache.entry import EntryMetadata


class BatchSink(Protocol):
    """Where batches of flattened draws go; ``finish`` gives the result by output name."""

    def write(self, first: int, batch: Sequence[np.ndarray]) -> None:
        """Rows ``first .. first + len(batch[i])`` of every output, in flattened-draw order."""

    def finish(self) -> dict[str, Any]: ...


class HostArrays:
    """Preallocated NumPy arrays shaped ``(chains, draws, *shape)``, filled batch by batch."""

    def __init__(self, names: Sequence[str], shapes: Sequence[tuple[tuple[int, ...], str]]) -> None:
        pairs = zip(names, shapes, strict=True)
        self.arrays = {name: np.empty(shape, np.dtype(dtype)) for name, (shape, dtype) in pairs}
        self._flat = [a.reshape((a.shape[0] * a.shape[1], *a.shape[2:])) for a in self.arrays.values()]

    def write(self, first: int, batch: Sequence[np.ndarray]) -> None:
        for flat, rows in zip(self._flat, batch, strict=True):
            flat[first : first + len(rows)] = rows

    def finish(self) -> dict[str, Any]:
        return self.arrays


def chain_segments(first: int, rows: int, draws: int) -> Iterator[tuple[int, int, int, int]]:
    """``(chain, draw_start, draw_stop, row_offset)`` pieces of flattened rows ``first .. first + rows``."""
    done = 0
    while done < rows and draws:
        chain, draw = divmod(first + done, draws)
        take = min(rows - done, draws - draw)
        yield chain, draw, draw + take, done
        done += take


@dataclass(frozen=True)
class Block:
    """One device's block of the samples: its chains from ``chain0``, ``width`` draws from ``draw0``."""

    chain0: int
    draw0: int
    width: int

    def runs(self, first: int, rows: int, draws: int) -> Iterator[tuple[int, int, int]]:
        """``(flat_first, offset, count)``: the block's flattened rows ``first .. first + rows`` as
        runs of contiguous rows of the whole ``(chains, draws)`` samples (flattened too)."""
        run: list[int] | None = None
        for chain, start, stop, offset in chain_segments(first, rows, self.width):
            flat = (self.chain0 + chain) * draws + self.draw0 + start
            if run is not None and run[0] + run[2] == flat:
                run[2] += stop - start
                continue
            if run is not None:
                yield run[0], run[1], run[2]
            run = [flat, offset, stop - start]
        if run is not None:
            yield run[0], run[1], run[2]


@dataclass(frozen=True)
class MeshLayout:
    """Where each device's block lies (by device id) in samples of ``draws`` draws per chain."""

    draws: int
    blocks: Mapping[int, Block]


def mesh_layout(device_ids: Sequence[int], split_axis: int, chains: int, draws: int) -> MeshLayout:
    """The blocks of ``chains`` x ``draws`` samples split evenly along ``split_axis`` (0 chains,
    1 draws) over the devices ``device_ids``, in mesh order (``aot.strategies.sharding.MeshPlan``)."""
    d = len(device_ids)
    if split_axis == 0:
        blocks = {i: Block(p * chains // d, 0, draws) for p, i in enumerate(device_ids)}
    else:
        blocks = {i: Block(0, p * draws // d, draws // d) for p, i in enumerate(device_ids)}
    return MeshLayout(draws, blocks)


def batch_starts(n: int, batch: int) -> Iterator[tuple[int, int]]:
    """``(start, first_new)`` per call: the last start is clamped to ``n - batch`` (as the
    executable clamps it), so its first ``first_new - start`` rows were written already."""
    for k in range(math.ceil(n / batch) if batch else 0):
        yield min(k * batch, n - batch), k * batch


def stream(
    executable: Any, n: int, batch: int, arguments: Sequence[Any], sink: BatchSink, layout: MeshLayout | None = None
) -> None:
    """Every batch of ``n`` draws into ``sink``; batch k+1 computes while batch k is copied.
    Over a mesh (``layout``), ``n`` and ``batch`` count each device's draws."""
    pending: tuple[int, int, Sequence[Any]] | None = None
    for start, first_new in batch_starts(n, batch):
        outs = executable(np.int32(start), *arguments)  # dispatched; runs while we copy below
        for out in outs:
            out.copy_to_host_async()
        if pending is not None:
            _drain(sink, layout, *pending)
        pending = (start, first_new, outs)  # the previous batch's device buffers are released here
    if pending is not None:
        _drain(sink, layout, *pending)


def _drain(sink: BatchSink, layout: MeshLayout | None, start: int, first_new: int, outs: Sequence[Any]) -> None:
    skip = first_new - start
    if layout is None:
        sink.write(first_new, [np.asarray(out)[skip:] for out in outs])
        return
    pieces = [{shard.device.id: shard.data for shard in out.addressable_shards} for out in outs]
    for device_id, block in layout.blocks.items():
        rows = [np.asarray(piece[device_id])[skip:] for piece in pieces]
        count = len(rows[0]) if rows else 0
        for flat, offset, size in block.runs(first_new, count, layout.draws):
            sink.write(flat, [r[offset : offset + size] for r in rows])


def run_loaded(
    executable: Any, metadata: EntryMetadata, arguments: Sequence[Any], sink: BatchSink | None
) -> dict[str, Any]:
    """Run ``executable`` on ``arguments``: device arrays, or what ``sink`` makes of them.

    A streamed executable needs a sink (host arrays, if the caller gave none); another
    executable's whole outputs go to ``sink`` in one write when there is one.
    """
    names = metadata.output_names
    if metadata.stream_batch is None:
        outs = executable(*arguments)
        if sink is None:
            return dict(zip(names, outs, strict=True))
        n = metadata.chains * metadata.draws
        flat = [np.asarray(o).reshape((n, *o.shape[2:])) for o in outs]
        sink.write(0, flat)
        return sink.finish()
    sink = sink if sink is not None else HostArrays(names, metadata.result_shapes)
    n, batch = metadata.chains * metadata.draws, metadata.stream_batch
    if metadata.mesh_devices is None:
        stream(executable, n, batch, arguments, sink)
    else:  # each device streams its own block: n/D draws, B/D per call
        d = metadata.device_count
        layout = mesh_layout(
            metadata.mesh_devices, split_axis_named(metadata.key.get("mesh", "")), metadata.chains, metadata.draws
        )
        stream(executable, n // d, batch // d, arguments, sink, layout)
    return sink.finish()
