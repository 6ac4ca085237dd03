"""Our posterior predictive draws against stock ``pm.sample_posterior_predictive``'s, in distribution.

The random draws cannot equal PyMC's (another RNG). Per model and seed, each of the two samples
is drawn from its own bootstrap of one posterior (iid draws from the same mixture, so the
two-sample tests' null holds exactly); every variable and observation gets a two-sample test
(``predictive_stats``), Holm-corrected per model and seed. Each test prints its p-values'
rejection count at 5% uncorrected, so a run with ``-s`` reports the rejection rate.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
from idata_helpers import from_dict
from predictive_models import MODELS
from predictive_stats import holm, per_observation_pvalues
from pymc.backends.arviz import coords_and_dims_for_inferencedata
from zoo import ZOO

import pymc_aot
from pymc_aot.aot.predictive.forward import default_outputs

DRAWS = 600
SEEDS = (1, 2, 3)
FAMILY_ALPHA = 0.001
QUICK = {"poisson", "mixture", "regression_data"}
ALL = {**ZOO, **MODELS}


def _posterior(model: pm.Model) -> dict[str, np.ndarray]:
    """A posterior to condition on: prior draws of the free variables and deterministics."""
    prior = pm.sample_prior_predictive(draws=DRAWS, model=model, random_seed=7).prior
    return {str(k): v.values for k, v in prior.data_vars.items()}


def _bootstrap(post: dict[str, np.ndarray], rng: np.random.Generator) -> dict[str, np.ndarray]:
    idx = rng.integers(0, DRAWS, size=DRAWS)
    return {k: v[:, idx] for k, v in post.items()}


def _check(name: str, tmp_path) -> None:
    model = ALL[name]()
    post = _posterior(model)
    names = default_outputs(model)
    pvalues: list[float] = []
    family_min = []
    for seed in SEEDS:
        rng = np.random.default_rng(100 + seed)
        ours = pymc_aot.posterior_predictive(
            model, _bootstrap(post, rng), random_seed=seed, strategy="vmap", cache=tmp_path
        )
        coords, dims = coords_and_dims_for_inferencedata(model)  # PyMC sees the dims unchanged
        trace = from_dict({"posterior": _bootstrap(post, rng)}, coords=coords, dims=dims)
        stock = pm.sample_posterior_predictive(
            trace, model=model, random_seed=seed, progressbar=False, return_inferencedata=False
        )
        found = per_observation_pvalues(ours, stock, names)
        pvalues += found
        family_min.append(float(holm(found).min()))
    rejected = sum(p < 0.05 for p in pvalues)
    print(f"\nPREDICTIVE-DIST {name}: {len(pvalues)} tests, {rejected} below 0.05 uncorrected "
          f"({rejected / len(pvalues):.3f}); smallest Holm-adjusted p per seed {family_min}")
    assert min(family_min) >= FAMILY_ALPHA, f"{name}: our draws differ from PyMC's (Holm-adjusted p {family_min})"


@pytest.mark.parametrize("name", sorted(QUICK))
def test_matches_pymc_in_distribution(name: str, tmp_path) -> None:
    _check(name, tmp_path)


@pytest.mark.slow
@pytest.mark.distribution
@pytest.mark.parametrize("name", sorted(set(ALL) - QUICK))
def test_matches_pymc_in_distribution_slow(name: str, tmp_path) -> None:
    _check(name, tmp_path)
