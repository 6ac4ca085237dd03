"""Resumable runs: after each chunk, the sampler state and the draws so far, on disk.

A checkpoint is a directory (``run.zarr`` or any name): one ``chunk-NNNNNN.npz`` per chunk
of draws and stats, ``state-NNNNNN.npz`` after it, and ``progress.json`` written last (by
``os.replace``), naming the run and the chunks that are complete. A run killed at any point
resumes from the last complete chunk; files beyond it are ignored and overwritten. A
directory holding another run (another model, data, seed, settings or executable) is
started over, never mixed in.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = 1


def run_identity(program_digest: str, draws: int, arrays: Sequence[Any]) -> str:
    """What makes two runs the same run: the chunk executable, the draws, every input's bytes."""
    h = hashlib.sha256(f"{FORMAT}:{program_digest}:{draws}".encode())
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a))
        h.update(f"{a.dtype}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _save_npz(path: Path, arrays: Sequence[np.ndarray]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        np.savez(fh, *arrays)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _load_npz(path: Path) -> list[np.ndarray]:
    with np.load(path) as f:
        return [f[f"arr_{i}"] for i in range(len(f.files))]


@dataclass
class Checkpoint:
    """One run's checkpoint directory."""

    directory: Path
    identity: str

    def resume(self) -> tuple[int, list[np.ndarray], list[list[np.ndarray]]] | None:
        """``(steps done, state, [outputs of each complete chunk])`` or None to start over."""
        try:
            doc = json.loads((self.directory / "progress.json").read_text())
            if doc.get("format") != FORMAT or doc.get("run") != self.identity:
                return None
            chunks = [_load_npz(self.directory / f"chunk-{i:06d}.npz") for i in range(int(doc["chunks"]))]
            state = _load_npz(self.directory / f"state-{int(doc['chunks']):06d}.npz")
            return int(doc["done"]), state, chunks
        except (OSError, ValueError, KeyError):
            return None

    def write(self, index: int, done: int, state: Sequence[Any], outputs: Sequence[Any]) -> None:
        """Chunk ``index`` (from 0) is complete: ``done`` steps, the state after it, its outputs."""
        self.directory.mkdir(parents=True, exist_ok=True)
        _save_npz(self.directory / f"chunk-{index:06d}.npz", [np.asarray(o) for o in outputs])
        _save_npz(self.directory / f"state-{index + 1:06d}.npz", [np.asarray(s) for s in state])
        doc = {"format": FORMAT, "run": self.identity, "chunks": index + 1, "done": done}
        tmp = self.directory / "progress.json.tmp"
        tmp.write_text(json.dumps(doc))
        os.replace(tmp, self.directory / "progress.json")
        old = self.directory / f"state-{index:06d}.npz"
        if index and old.exists():
            old.unlink()
