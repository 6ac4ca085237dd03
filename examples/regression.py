"""A regression whose deterministic mean is a large intermediate.

The 20000 x 50 design matrix lives in ``pm.Data``, so it is an argument of the compiled
transform, not a constant baked into it: ``pm.set_data`` with new rows of the same shape
reuses the cached executable. With 4 chains x 1000 draws the ``mu`` deterministic alone is
20000 x 4000 float64 values (640 MB), which is where the strategies differ.
"""

import numpy as np
import pymc as pm

N, P, G = 20_000, 50, 10


def make_model(n: int = N, p: int = P, groups: int = G) -> pm.Model:
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


model = make_model()
