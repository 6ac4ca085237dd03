"""Three real-world-sized models for bench/first_run.py, on small synthetic data made here.

- ``radon``: the hierarchical radon model (varying intercepts by county, a floor slope, a
  county-level uranium predictor) with coords and dims, 85 counties x ~900 houses.
- ``gp_latent``: a latent Gaussian process (ExpQuad, ``pm.gp.Latent``) with a Poisson
  likelihood on 60 points: a Cholesky factor in postprocessing.
- ``lkj``: a correlated multivariate normal with an ``LKJCholeskyCov`` prior (4 dimensions,
  200 observations): the Cholesky factor, correlations and standard deviations as deterministics.
"""

from __future__ import annotations

import numpy as np
import pymc as pm


def _n(full: int, scale: float, least: int = 2) -> int:
    return max(least, round(full * scale))


def radon(scale: float = 1.0) -> pm.Model:
    counties, houses = _n(85, scale, 5), _n(919, scale, 40)
    rng = np.random.default_rng(11)
    county = rng.integers(0, counties, size=houses)
    floor = rng.integers(0, 2, size=houses).astype(float)
    uranium = rng.normal(size=counties)
    log_radon = 1.5 - 0.7 * floor + 0.7 * uranium[county] + rng.normal(0, 0.7, size=houses)
    coords = {"county": [f"c{i}" for i in range(counties)], "obs_id": np.arange(houses)}
    with pm.Model(coords=coords) as model:
        floor_idx = pm.Data("floor_idx", floor, dims="obs_id")
        county_idx = pm.Data("county_idx", county, dims="obs_id")
        u = pm.Data("uranium", uranium, dims="county")
        g = pm.Normal("g", 0.0, 10.0, shape=2)
        sigma_a = pm.Exponential("sigma_a", 1.0)
        z = pm.Normal("z", 0.0, 1.0, dims="county")
        a = pm.Deterministic("a", g[0] + g[1] * u + z * sigma_a, dims="county")
        b = pm.Normal("b", 0.0, 1.0)
        theta = pm.Deterministic("theta", a[county_idx] + b * floor_idx, dims="obs_id")
        sigma = pm.Exponential("sigma", 1.0)
        pm.Normal("y", theta, sigma, observed=log_radon, dims="obs_id")
    return model


def gp_latent(scale: float = 1.0) -> pm.Model:
    n = _n(60, scale, 8)
    rng = np.random.default_rng(12)
    x = np.linspace(0, 10, n)[:, None]
    counts = rng.poisson(np.exp(np.sin(x[:, 0])))
    with pm.Model(coords={"x": np.arange(n)}) as model:
        ell = pm.Gamma("ell", 2.0, 1.0)
        eta = pm.HalfNormal("eta", 1.0)
        gp = pm.gp.Latent(cov_func=eta**2 * pm.gp.cov.ExpQuad(1, ell))
        f = gp.prior("f", X=x, dims="x")
        pm.Deterministic("rate", pm.math.exp(f), dims="x")
        pm.Poisson("y", pm.math.exp(f), observed=counts, dims="x")
    return model


def lkj(scale: float = 1.0) -> pm.Model:
    d, n = 4, _n(200, scale, 20)
    rng = np.random.default_rng(13)
    cov = np.array([[1.0, 0.5, 0.2, 0.0], [0.5, 1.0, 0.3, 0.1], [0.2, 0.3, 1.0, 0.4], [0.0, 0.1, 0.4, 1.0]])
    data = rng.multivariate_normal(np.arange(d, dtype=float), cov, size=n)
    with pm.Model(coords={"dim": list("abcd"), "dim_": list("abcd"), "obs": np.arange(n)}) as model:
        chol, corr, stds = pm.LKJCholeskyCov(
            "chol", n=d, eta=2.0, sd_dist=pm.Exponential.dist(1.0, shape=d), compute_corr=True
        )
        pm.Deterministic("corr", corr, dims=("dim", "dim_"))
        pm.Deterministic("stds", stds, dims="dim")
        mu = pm.Normal("mu", 0.0, 5.0, dims="dim")
        pm.MvNormal("y", mu, chol=chol, observed=data, dims=("obs", "dim"))
    return model


REAL_WORLD = {"radon": radon, "gp_latent": gp_latent, "lkj": lkj}
