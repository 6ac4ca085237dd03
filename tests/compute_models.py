"""Models and posteriors for the tests of ``pm.compute_log_likelihood`` / ``pm.compute_deterministics``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pymc as pm
from pymc.backends.arviz import coords_and_dims_for_inferencedata
from zoo import draws_for

from pymc_aot import runtime
from pymc_aot.runtime.pymc.posterior_io import PYMC_MAJOR


def two_observed(variant: int = 0) -> pm.Model:
    """Coords, pm.Data, a log-transformed scale, two observed variables, two deterministics.

    ``variant`` 1 changes the deterministic's formula and the Student-t's degrees of freedom:
    the same names and shapes, other numbers.
    """
    rng = np.random.default_rng(5)
    with pm.Model(coords={"obs": range(6), "k": ["a", "b"]}) as m:
        x = pm.Data("x", rng.normal(size=6), dims="obs")
        b = pm.Normal("b", 0, 1, dims="k")
        s = pm.HalfNormal("s", 1)
        slope = b[1] * x if variant == 0 else -b[1] * x
        mu = pm.Deterministic("mu", b[0] + slope, dims="obs")
        pm.Deterministic("scale2", s**2)
        pm.Normal("y1", mu, s, observed=rng.normal(size=6), dims="obs")
        pm.StudentT("y2", nu=4 + variant, mu=b.sum(), sigma=s, observed=rng.normal(size=3))
    return m


def constrained_posterior(
    model: pm.Model, cache: str | Path, chains: int = 2, draws: int = 7, seed: int = 0
) -> dict[str, np.ndarray]:
    """A posterior as ``idata.posterior`` holds it: free variables (constrained) and deterministics.

    Made from synthetic unconstrained draws by the posterior transform (checked against PyMC's
    own in the rest of the suite); here they are only inputs that PyMC and pymc-aot share.
    """
    samples = draws_for(model, chains=chains, draws=draws, seed=seed)
    result = runtime.postprocess(model, samples, strategy="vmap", cache=str(cache))
    return {k: np.array(v) for k, v in result.items()}


def make_idata(model: pm.Model, posterior: dict[str, np.ndarray]) -> Any:
    """InferenceData (PyMC 5) or DataTree (PyMC 6) with the model's coords and dims."""
    coords, dims = coords_and_dims_for_inferencedata(model)
    if PYMC_MAJOR >= 6:
        from arviz_base import from_dict

        return from_dict({"posterior": posterior}, coords=coords, dims=dims)
    import arviz as az

    return az.from_dict(posterior=posterior, coords=coords, dims=dims)


def group(idata: Any, name: str) -> Any:
    """A group of ``idata`` as an xarray Dataset."""
    found = idata[name]
    return found.to_dataset() if hasattr(found, "to_dataset") else found
