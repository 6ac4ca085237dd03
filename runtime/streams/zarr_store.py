"""Postprocessed draws in a Zarr store on disk, written batch by batch, read back lazily.

Layout: one group per kind (``posterior``, ``log_likelihood``, as ArviZ names its groups),
one array per output shaped ``(chain, draw, *shape)``, chunked along draws, dimensions
named as ArviZ names them (``chain``, ``draw``, ``<name>_dim_<i>``), no compression
(posterior draws are noise to a compressor; raw chunks keep writes at disk speed).

A group is complete only when its ``pymc_aot`` attribute says so, and that attribute is
written last: a writer killed mid-way leaves ``complete: false`` (or no attribute), and
:func:`open_store` / :func:`open_dataset` refuse it with :class:`IncompleteStoreError`.
Opening the group with xarray or zarr directly skips this check.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .streaming import chain_segments

MARKER = "pymc_aot"
CHUNK_BYTES = 64 * 1024**2
"""A chunk of one output holds at most this many bytes (and at most one batch of draws)."""

OutPath = str | os.PathLike[str]


class IncompleteStoreError(ValueError):
    """A Zarr group whose writer did not finish (or that pymc-aot did not write)."""


def _zarr() -> Any:
    try:
        import zarr
    except ImportError:
        raise ImportError('out= writes a Zarr store and needs zarr: pip install -e ".[zarr]"') from None
    return zarr


def check_target(out: Any) -> Path:
    """``out`` as a path that is a Zarr store or does not exist yet; a clear error otherwise."""
    if not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"out: expected a path to a Zarr store (str or os.PathLike), got {type(out).__name__}")
    path = Path(out)
    is_store = path.is_dir() and ((path / "zarr.json").is_file() or not any(path.iterdir()))
    if path.exists() and not is_store:
        raise ValueError(f"out: {str(path)!r} exists and is not a Zarr (v3) store; choose a new path or remove it")
    _zarr()
    return path


class ZarrWriter:
    """Writes one group of ``out``: arrays created up front, batches as they come, marker last."""

    def __init__(
        self,
        out: OutPath,
        group: str,
        names: Sequence[str],
        shapes: Sequence[tuple[tuple[int, ...], str]],
        batch: int,
        info: dict[str, Any],
    ) -> None:
        zarr = _zarr()
        self.path, self.group_name, self.info = check_target(out), group, info
        root = zarr.open_group(str(self.path), mode="a")
        self.group = root.create_group(group, overwrite=True, attributes={MARKER: {"complete": False}})
        pairs = zip(names, shapes, strict=True)
        self.arrays = [self._create(name, shape, dtype, batch) for name, (shape, dtype) in pairs]

    def _create(self, name: str, shape: tuple[int, ...], dtype: str, batch: int) -> Any:
        _, draws, *event = shape
        dt = np.dtype(dtype)
        per_draw = max(1, int(np.prod(event, dtype=np.int64)) * dt.itemsize)
        chunk = max(1, min(draws, batch, CHUNK_BYTES // per_draw))
        return self.group.create_array(
            name,
            shape=shape,
            chunks=(1, chunk, *event),
            dtype=dt,
            compressors=None,
            fill_value=np.nan if dt.kind in "fc" else 0,
            dimension_names=("chain", "draw", *(f"{name}_dim_{i}" for i in range(len(event)))),
            config={"write_empty_chunks": True},
        )

    def write(self, first: int, batch: Sequence[np.ndarray]) -> None:
        for array, rows in zip(self.arrays, batch, strict=True):
            draws = array.shape[1]
            for chain, start, stop, offset in chain_segments(first, len(rows), draws):
                array[chain, start:stop] = rows[offset : offset + stop - start]

    def finish(self) -> dict[str, Any]:
        """Mark the group complete (the last write) and give its arrays, opened read-only."""
        self.group.attrs.update({MARKER: {**self.info, "complete": True}})
        with warnings.catch_warnings():  # zarr 3 notes that consolidation is not in its spec yet; xarray uses it
            warnings.filterwarnings("ignore", message="Consolidated metadata is currently not part")
            _zarr().consolidate_metadata(str(self.path))  # xarray and ArviZ open it without a warning
        return open_store(self.path, self.group_name)


def _completion(path: Path, group: str) -> dict[str, Any]:
    """The group's marker; ``IncompleteStoreError`` when the store or the marker says not done."""
    meta = path / group / "zarr.json"
    where = f"{str(path)!r} group {group!r}"
    if not meta.is_file():
        raise IncompleteStoreError(f"{where}: no such group in a Zarr store (nothing was written there)")
    try:
        marker = json.loads(meta.read_text()).get("attributes", {}).get(MARKER)
    except (OSError, ValueError) as exc:
        raise IncompleteStoreError(f"{where}: unreadable group metadata ({exc}); the write did not finish") from None
    if not isinstance(marker, dict) or marker.get("complete") is not True:
        raise IncompleteStoreError(
            f"{where} is incomplete: the process writing it stopped before the end. "
            "Its draws are partly missing; postprocess again to rewrite it."
        )
    return marker


def open_store(out: OutPath, group: str = "posterior") -> dict[str, Any]:
    """The arrays of a complete group by name (``zarr.Array``, read lazily, read-only)."""
    path = Path(out)
    marker = _completion(path, group)
    opened = _zarr().open_group(str(path), mode="r")[group]
    return {name: opened[name] for name in marker.get("outputs", sorted(opened.array_keys()))}


def open_dataset(out: OutPath, group: str = "posterior") -> Any:
    """A complete group as an ``xarray.Dataset`` whose variables read lazily from the store."""
    import xarray as xr

    path = Path(out)
    _completion(path, group)
    consolidated = (path / "zarr.json").is_file() and "consolidated_metadata" in (path / "zarr.json").read_text()
    ds = xr.open_dataset(  # cache=False: reading a variable does not pin it in memory
        str(path), engine="zarr", group=group, consolidated=consolidated, chunks=None, mask_and_scale=False, cache=False
    )
    return ds.assign_coords(chain=np.arange(ds.sizes["chain"]), draw=np.arange(ds.sizes["draw"]))
