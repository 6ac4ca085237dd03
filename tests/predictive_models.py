"""Models for the posterior predictive's distribution tests: discrete observed variables,
mixtures, censored, truncated, a CustomDist with ``dist=``, time series (besides tests/zoo.py)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pymc as pm
import pytensor.tensor as pt


def _rng() -> np.random.Generator:
    return np.random.default_rng(20261203)


def poisson() -> pm.Model:
    with pm.Model() as m:
        a = pm.Normal("a", 1.0, 0.5)
        b = pm.Normal("b", 0.0, 0.3)
        x = pm.Data("x", np.linspace(-1, 1, 6))
        pm.Poisson("y", pt.exp(a + b * x), observed=_rng().poisson(3, size=6))
    return m


def bernoulli() -> pm.Model:
    with pm.Model() as m:
        a = pm.Normal("a", 0.0, 1.0, shape=4)
        pm.Bernoulli("y", logit_p=a, observed=_rng().integers(0, 2, size=4))
    return m


def categorical() -> pm.Model:
    with pm.Model() as m:
        p = pm.Dirichlet("p", a=np.ones(4))
        pm.Categorical("y", p=p, observed=_rng().integers(0, 4, size=5))
    return m


def mixture() -> pm.Model:
    with pm.Model() as m:
        w = pm.Dirichlet("w", a=np.ones(2))
        mu = pm.Normal("mu", [-2.0, 2.0], 1.0, shape=2)
        comps = pm.Normal.dist(mu=mu, sigma=1.0, shape=2)
        pm.Mixture("y", w=w, comp_dists=comps, observed=_rng().normal(size=4))
    return m


def censored() -> pm.Model:
    with pm.Model() as m:
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.Censored("y", pm.Normal.dist(mu, 1.0), lower=-1.0, upper=1.0, observed=np.clip(_rng().normal(size=4), -1, 1))
    return m


def truncated() -> pm.Model:
    """A truncated Exponential (inverse-CDF draws); a truncated Normal has no JAX draw in PyTensor
    (``truncated_normal``): PyMC's path, see test_predictive_hook."""
    with pm.Model() as m:
        lam = pm.HalfNormal("lam", 1.0)
        pm.Truncated("y", pm.Exponential.dist(lam), upper=2.0, observed=np.abs(_rng().uniform(0, 2, size=4)))
    return m


def custom_dist() -> pm.Model:
    def dist(mu, sigma, size):
        return pt.exp(pm.Normal.dist(mu, sigma, size=size))

    with pm.Model() as m:
        mu = pm.Normal("mu", 0.0, 0.5)
        sigma = pm.HalfNormal("sigma", 0.5)
        pm.CustomDist("y", mu, sigma, dist=dist, observed=np.exp(_rng().normal(size=4)))
    return m


def random_walk() -> pm.Model:
    with pm.Model() as m:
        sigma = pm.HalfNormal("sigma", 1.0)
        pm.GaussianRandomWalk(
            "y", sigma=sigma, init_dist=pm.Normal.dist(0, 1), steps=7, observed=_rng().normal(size=8).cumsum()
        )
    return m


MODELS: dict[str, Callable[[], pm.Model]] = {
    "poisson": poisson,
    "bernoulli": bernoulli,
    "categorical": categorical,
    "mixture": mixture,
    "censored": censored,
    "truncated": truncated,
    "custom_dist": custom_dist,
    "random_walk": random_walk,
}
