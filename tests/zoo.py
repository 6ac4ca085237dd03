"""Test models covering the transforms, shapes and graph features PyMC users meet."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
from pymc.distributions.transforms import ordered


def _rng() -> np.random.Generator:
    """Each builder draws its data from the same seed, so two builds are the same model."""
    return np.random.default_rng(20261202)


def scalars() -> pm.Model:
    with pm.Model(name="scalars") as m:
        mu = pm.Normal("mu", 0, 1)
        sigma = pm.HalfNormal("sigma", 1)
        pm.Normal("y", mu, sigma, observed=_rng().normal(size=20))
    return m


def shapes_and_bounds() -> pm.Model:
    """Vectors and matrices under log, logodds and interval transforms, with deterministics."""
    with pm.Model() as m:
        v = pm.Normal("v", 0, 1, shape=4)
        mat = pm.Exponential("mat", 1.0, shape=(2, 3))
        p = pm.Beta("p", 2, 2, shape=3)
        u = pm.Uniform("u", -1.0, 3.0)
        pm.Deterministic("combo", v.sum() + mat.sum(axis=0) * p + u)
        pm.Normal("y", v[:3] * p, 1.0, observed=_rng().normal(size=(5, 3)))
    return m


def simplex_ordered() -> pm.Model:
    with pm.Model() as m:
        w = pm.Dirichlet("w", a=np.ones(4))
        cut = pm.Normal("cut", 0, 3, shape=3, transform=ordered,
            initval=np.array([-1.0, 0.0, 1.0], dtype=pytensor.config.floatX),
        )
        pm.Deterministic("wsum", pt.cumsum(w))
        pm.Normal("y", cut.sum() + w[0], 1.0, observed=_rng().normal(size=8))
    return m


def lkj() -> pm.Model:
    with pm.Model() as m:
        chol, _corr, _stds = pm.LKJCholeskyCov(
            "chol", n=3, eta=2.0, sd_dist=pm.Exponential.dist(1.0, shape=3), compute_corr=True
        )
        mu = pm.Normal("mu", 0, 1, shape=3)
        pm.MvNormal("y", mu, chol=chol, observed=_rng().normal(size=(10, 3)))
    return m


def zerosum() -> pm.Model:
    with pm.Model(coords={"g": range(5)}) as m:
        eff = pm.ZeroSumNormal("eff", sigma=1.0, dims="g")
        pm.Normal("y", eff, 1.0, observed=_rng().normal(size=5), dims="g")
    return m


def regression_data() -> pm.Model:
    """pm.Data design matrix and observations: data are executable arguments."""
    X = _rng().normal(size=(50, 3))
    with pm.Model() as m:
        x = pm.Data("x", X)
        yobs = pm.Data("yobs", X @ np.array([1.0, -2.0, 0.5]) + _rng().normal(size=50))
        beta = pm.Normal("beta", 0, 1, shape=3)
        sigma = pm.HalfNormal("sigma", 1)
        mu = pm.Deterministic("mu", x @ beta)
        pm.Normal("y", mu, sigma, observed=yobs, shape=x.shape[0])
    return m


def time_series() -> pm.Model:
    """An AR process plus a deterministic computed by a PyTensor Scan."""
    with pm.Model() as m:
        rho = pm.Normal("rho", 0, 0.5, shape=2)
        ar = pm.AR("ar", rho=rho, sigma=1.0, init_dist=pm.Normal.dist(0, 1), constant=False, steps=12)
        decay = pm.Beta("decay", 2, 2)

        def step(x_t, acc, d):
            return d * acc + x_t

        smoothed = pytensor.scan(step, sequences=[ar], outputs_info=[pt.zeros(())], non_sequences=[decay])[0]
        pm.Deterministic("smoothed", smoothed)
        pm.Normal("y", ar, 1.0, observed=_rng().normal(size=14))
    return m


ZOO: dict[str, Callable[[], pm.Model]] = {
    "scalars": scalars,
    "shapes_and_bounds": shapes_and_bounds,
    "simplex_ordered": simplex_ordered,
    "lkj": lkj,
    "zerosum": zerosum,
    "regression_data": regression_data,
    "time_series": time_series,
}


def draws_for(model: pm.Model, chains: int = 2, draws: int = 7, seed: int = 0) -> list[np.ndarray]:
    """Unconstrained synthetic draws, one array per value variable, in model order."""
    rng = np.random.default_rng(seed)
    point = model.initial_point()
    out = []
    for v in model.value_vars:
        base = np.asarray(point[v.name])
        noise = rng.normal(scale=0.3, size=(chains, draws, *base.shape))
        out.append((base + noise).astype(v.dtype))
    return out
