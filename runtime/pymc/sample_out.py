"""``pm.sample`` with ``enable(out="trace.zarr")``: the posterior and log-likelihood from the store.

PyMC builds its InferenceData with ``az.from_dict`` from whatever the postprocessing seams
return, and ``from_dict`` would read a store-backed array into memory whole. So the seams
write the store and hand PyMC :func:`placeholders` (zero-stride arrays of the right shape
and dtype, no memory); once ``sample_jax_nuts`` returns, :func:`sample_into_store` puts the
store's groups, read lazily, in place of the placeholder groups, keeping the dimensions,
coordinates and attributes PyMC gave them, and runs PyMC's convergence checks on the
real draws. PyMC's own groups (sample_stats, observed_data, constant_data) are untouched.
ArviZ 0.x ``InferenceData`` (PyMC 5); ArviZ 1.x ``DataTree`` is not handled here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ...aot.compat import inference_groups, replace_group
from ..streams.zarr_store import MARKER, open_dataset

GROUPS = ("posterior", "log_likelihood")


def placeholders(result: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Zero-stride stand-ins for store-backed arrays: right shape and dtype, no memory."""
    return {name: np.broadcast_to(np.zeros((), np.dtype(a.dtype)), a.shape) for name, a in result.items()}


def _from_store(placeholder: Any, out: Path, group: str) -> Any:
    """``placeholder``'s dataset with every variable read lazily from the store instead."""
    stored = open_dataset(out, group)
    replaced = placeholder.copy()
    for name, variable in placeholder.data_vars.items():
        lazy = stored[name].variable.copy(deep=False)
        lazy.dims = variable.dims  # PyMC's dims and coords (model coords), not the store's defaults
        lazy.attrs = dict(variable.attrs)
        replaced[name] = lazy
    return replaced


def _drop_stale_groups(out: Path, written: Mapping[str, Path]) -> None:
    """Groups an earlier run left in ``out`` that this run did not write (e.g. its log-likelihood)."""
    import zarr

    root = zarr.open_group(str(out), mode="a")
    for group in GROUPS:
        if group not in written and group in root and MARKER in root[group].attrs:
            del root[group]


def sample_into_store(
    sample: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], model: Any, written: dict[str, Path]
) -> Any:
    """Run ``sample`` (PyMC's ``sample_jax_nuts``) and swap the groups the seams wrote to disk
    (``written``: group -> store, filled while it runs) into its InferenceData."""
    checks = kwargs.get("compute_convergence_checks", True)
    idata = sample(*args, **{**kwargs, "compute_convergence_checks": False})  # not on placeholders
    groups = inference_groups(idata)
    for group, out in written.items():
        if group in groups:
            replace_group(idata, group, _from_store(groups[group], out, group))
    for out in set(written.values()):
        _drop_stale_groups(out, written)
    if checks:
        from pymc.stats.convergence import log_warnings, run_convergence_checks

        warns = run_convergence_checks(idata, model)
        if not kwargs.get("quiet", False):
            log_warnings(warns)
    return idata
