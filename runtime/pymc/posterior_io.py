"""From an InferenceData group to arrays, and results back to the Dataset PyMC would return.

PyMC 5 (ArviZ 0.x ``InferenceData``) and PyMC 6 (xarray ``DataTree``, ArviZ 1.x) build the
results of ``pm.compute_log_likelihood`` / ``pm.compute_deterministics`` a little differently
(keyword names of ``dict_to_dataset``; PyMC 6 keeps the input's chain/draw coordinates, PyMC
5 numbers them from 0); :func:`results_dataset` follows the PyMC in use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pymc

SAMPLE_DIMS = ("chain", "draw")
PYMC_MAJOR = int(pymc.__version__.split(".")[0])


def as_dataset(group: Any) -> Any:
    """An xarray Dataset for a group: itself, or a DataTree node's dataset."""
    return group.to_dataset() if hasattr(group, "to_dataset") else group


def posterior_arrays(dataset: Any, names: Sequence[str]) -> dict[str, np.ndarray]:
    """``names``' values from ``dataset``, chain and draw first (absent names are left out)."""
    return {n: dataset[n].transpose(*SAMPLE_DIMS, ...).values for n in names if n in dataset}


def results_dataset(results: Mapping[str, Any], order: Sequence[str], model: Any, source: Any) -> Any:
    """The Dataset PyMC builds for ``results`` (``apply_function_over_dataset``'s last step).

    ``source``: the input Dataset (PyMC 6 takes the sample coordinates from its first
    free variable). Arrays are the executable's outputs, not copied (read-only, as from
    PyMC's JAX samplers).
    """
    from pymc.backends.arviz import coords_and_dims_for_inferencedata, dict_to_dataset

    coords, dims = coords_and_dims_for_inferencedata(model)
    data = {n: np.asarray(results[n]) for n in order}
    if PYMC_MAJOR >= 6:
        first = source[model.free_RVs[0].name]
        stacked = {d: first[d] for d in SAMPLE_DIMS}
        return dict_to_dataset(
            data,
            inference_library=pymc,
            dims=dims,
            coords={**coords, **stacked},
            sample_dims=list(SAMPLE_DIMS),
            skip_event_dims=True,
        )
    return dict_to_dataset(
        data, library=pymc, dims=dims, coords=coords, default_dims=list(SAMPLE_DIMS), skip_event_dims=True
    )


def add_group(idata: Any, name: str, dataset: Any) -> None:
    """Put ``dataset`` in ``idata`` as group ``name``, as ``compute_log_likelihood`` does."""
    if PYMC_MAJOR >= 6:
        idata[name] = dataset
    else:
        idata.add_groups({name: dataset})
