"""``postprocess(out=...)``'s result: an ``xarray.Dataset`` with the model's dims and coords, read lazily."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .zarr_store import OutPath, _completion, open_dataset


def open_model_dataset(out: OutPath, group: str, model: Any) -> Any:
    """The complete ``group`` of ``out`` as PyMC names it: dims from ``model.named_vars_to_dims``
    (else ``NAME_dim_i``), coords from ``model.coords``; every variable still reads from the store."""
    import xarray as xr

    stored = open_dataset(out, group)
    named_dims = getattr(model, "named_vars_to_dims", None) or {}
    variables = {}
    order = _completion(Path(out), group).get("outputs") or list(stored.data_vars)  # the transform's order
    for name in order:
        lazy = stored[name].variable.copy(deep=False)
        dims = tuple(named_dims.get(name) or ())
        event = lazy.ndim - 2
        lazy.dims = ("chain", "draw", *(dims if len(dims) == event else (f"{name}_dim_{i}" for i in range(event))))
        variables[name] = lazy
    coords: dict[str, Any] = {"chain": stored["chain"].values, "draw": stored["draw"].values}
    sizes = {d: n for v in variables.values() for d, n in zip(v.dims, v.shape, strict=True)}
    for dim, values in (getattr(model, "coords", None) or {}).items():
        if dim in sizes and values is not None and len(values) == sizes[dim]:
            coords[dim] = np.asarray(values)
    return xr.Dataset(variables, coords=coords, attrs=dict(stored.attrs))
