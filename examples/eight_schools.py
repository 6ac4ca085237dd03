"""Eight schools, non-centred: a tiny model for trying pymc-aot."""

import numpy as np
import pymc as pm

y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
sigma = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])

with pm.Model(coords={"school": [f"s{i}" for i in range(8)]}) as model:
    mu = pm.Normal("mu", 0, 5)
    tau = pm.HalfCauchy("tau", 5)
    z = pm.Normal("z", 0, 1, dims="school")
    theta = pm.Deterministic("theta", mu + tau * z, dims="school")
    pm.Normal("obs", theta, sigma, observed=y, dims="school")
