"""Run an executable and deliver its outputs: on the device, into host memory, or to a sink.

A ``streamed(B)`` executable computes one batch of B flattened draws per call (its first
argument is the batch's start). :func:`stream` calls it once per batch and hands each batch
to a sink (preallocated NumPy arrays, or a Zarr store) while the device computes the next:
the next call is dispatched before the previous batch is read back, so the copy to the host
overlaps the compute, and the device holds the inputs plus two batches' outputs at most.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import numpy as np

from ..cache.entry import EntryMetadata


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


def batch_starts(n: int, batch: int) -> Iterator[tuple[int, int]]:
    """``(start, first_new)`` per call: the last start is clamped to ``n - batch`` (as the
    executable clamps it), so its first ``first_new - start`` rows were written already."""
    for k in range(math.ceil(n / batch) if batch else 0):
        yield min(k * batch, n - batch), k * batch


def stream(executable: Any, n: int, batch: int, arguments: Sequence[Any], sink: BatchSink) -> None:
    """Every batch of ``n`` draws into ``sink``; batch k+1 computes while batch k is copied."""
    pending: tuple[int, int, Sequence[Any]] | None = None
    for start, first_new in batch_starts(n, batch):
        outs = executable(np.int32(start), *arguments)  # dispatched; runs while we copy below
        for out in outs:
            out.copy_to_host_async()
        if pending is not None:
            _drain(sink, *pending)
        pending = (start, first_new, outs)  # the previous batch's device buffers are released here
    if pending is not None:
        _drain(sink, *pending)


def _drain(sink: BatchSink, start: int, first_new: int, outs: Sequence[Any]) -> None:
    skip = first_new - start
    sink.write(first_new, [np.asarray(out)[skip:] for out in outs])


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
    stream(executable, metadata.chains * metadata.draws, metadata.stream_batch, arguments, sink)
    return sink.finish()
