"""Example models, shared by ``examples/`` and ``bench/`` (importing this imports pymc)."""

from __future__ import annotations

import numpy as np
import pymc as pm


def regression(n: int = 20_000, p: int = 50, groups: int = 10) -> pm.Model:
    """A regression whose deterministic mean is a large intermediate.

    The ``n`` x ``p`` design matrix lives in ``pm.Data``, so it is an argument of the compiled
    transform, not a constant baked into it: ``pm.set_data`` with new rows of the same shape
    reuses the cached executable. With 4 chains x 1000 draws the ``mu`` deterministic alone is
    n x 4000 float64 values (640 MB at the default n), which is where the strategies differ.
    """
    rng = np.random.default_rng(42)
    X = rng.normal(size=(n, p))
    group = rng.integers(0, groups, size=n)
    y = X @ rng.normal(size=p) * 0.1 + rng.normal(size=groups)[group] + rng.normal(size=n)
    with pm.Model() as model:
        x = pm.Data("x", X)
        g = pm.Data("group", group)
        yobs = pm.Data("y_obs", y)
        beta = pm.Normal("beta", 0, 1, shape=p)
        group_sd = pm.HalfNormal("group_sd", 1)
        group_effect = pm.Normal("group_effect", 0, group_sd, shape=groups)
        sigma = pm.HalfNormal("sigma", 1)
        mu = pm.Deterministic("mu", x @ beta + group_effect[g])
        pm.Normal("y", mu, sigma, observed=yobs, shape=x.shape[0])
    return model


def eight_schools() -> pm.Model:
    """Eight schools, non-centred: a tiny model for trying pymc-aot."""
    y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
    sigma = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
    with pm.Model(coords={"school": [f"s{i}" for i in range(8)]}) as model:
        mu = pm.Normal("mu", 0, 5)
        tau = pm.HalfCauchy("tau", 5)
        z = pm.Normal("z", 0, 1, dims="school")
        theta = pm.Deterministic("theta", mu + tau * z, dims="school")
        pm.Normal("obs", theta, sigma, observed=y, dims="school")
    return model
