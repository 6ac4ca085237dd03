"""The host loop: ``init`` once, then ``chunk`` until warmup and draws are done.

Between calls the loop updates the progress bar and, with a checkpoint, writes the state
and the chunk's draws. The loop never changes what the executables compute, so a run in
chunks of any size, interrupted or not, gives the same draws bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...aot.sampler.resolve import LoadedProgram
from .checkpoint import Checkpoint, run_identity
from .counts import COUNTS
from .progress import SamplerProgress


@dataclass(frozen=True)
class SamplerRun:
    """What one run needs besides the executables."""

    tune: int
    draws: int
    chunk: int
    positions: Sequence[Any]
    keys: Any
    data: Sequence[Any]
    progressbar: bool = False
    checkpoint: str | Path | None = None


def _names(chunk: LoadedProgram) -> tuple[int, list[str]]:
    names = list(chunk.metadata.output_names)
    n_state = sum(1 for n in names if n.startswith("state."))
    return n_state, names[n_state:]


def _kept(outputs: Sequence[Any], first: int, n: int) -> list[np.ndarray]:
    """The sampling steps of one chunk's outputs: steps ``first`` to ``n`` along axis 1."""
    return [np.asarray(o)[:, first:n] for o in outputs]


def run_chunks(init: LoadedProgram, chunk: LoadedProgram, run: SamplerRun) -> dict[str, np.ndarray]:
    """Every output of the sampling steps, ``(chains, draws, ...)``, by name (values, then stats)."""
    n_state, names = _names(chunk)
    total = run.tune + run.draws
    checkpoint = None
    pieces: list[list[np.ndarray]] = []
    done, state = 0, None
    if run.checkpoint is not None:
        ident = run_identity(chunk.key.digest, run.draws, [*run.positions, run.keys, *run.data])
        checkpoint = Checkpoint(Path(run.checkpoint), ident)
        resumed = checkpoint.resume()
        if resumed is not None:
            done, state, pieces = resumed
            COUNTS["resumed_steps"] += done
    if state is None:
        state = list(init(*run.positions, run.keys, *run.data))
    chains = int(np.shape(run.keys)[0])
    progress = SamplerProgress(run.progressbar, chains, run.tune, run.draws, done)
    step_col = names.index("step_size") if "step_size" in names else None
    div_col = names.index("diverging") if "diverging" in names else None
    try:
        while done < total:
            n = min(run.chunk, total - done)
            out = chunk(*state, np.int32(n), *run.data)
            state, outputs = list(out[:n_state]), out[n_state:]
            kept = _kept(outputs, max(run.tune - done, 0), n)
            done += n
            pieces.append(kept)
            if checkpoint is not None:
                checkpoint.write(len(pieces) - 1, done, state, kept)
            progress.update(
                done,
                kept[div_col] if div_col is not None else None,
                np.asarray(outputs[step_col])[:, n - 1] if step_col is not None else None,
            )
    finally:
        progress.close()
    joined = [np.concatenate([p[i] for p in pieces], axis=1) for i in range(len(names))]
    return dict(zip(names, joined, strict=True))
