"""The benchmark models (float64; 4 chains x 1000 draws unless a script says otherwise).

Every builder takes a ``scale`` in (0, 1] so the smoke tests can run them tiny.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from pymc_aot import examples


def _n(full: int, scale: float, least: int = 2) -> int:
    return max(least, round(full * scale))


def report_shapes(scale: float = 1.0) -> pm.Model:
    """Five free variables shaped like the original report, n=468, plus a deterministic."""
    n = _n(468, scale)
    with pm.Model() as model:
        a = pm.Normal("a", 0, 1)
        b = pm.HalfNormal("b", 1)
        c = pm.Normal("c", 0, 1, shape=n)
        d = pm.Normal("d", 0, 1, shape=(7, n))
        e = pm.Normal("e", 0, 1, shape=(2, 9, n))
        pm.Deterministic("f", a + b * c + d.sum(axis=0) + e.mean(axis=(0, 1)))
    return model


def regression(scale: float = 1.0) -> pm.Model:
    """20000 x 50 design matrix in pm.Data, group effects, a deterministic mean over all rows."""
    return examples.regression(_n(20_000, scale, 20), _n(50, scale, 3), 10)


def wide_hierarchical(scale: float = 1.0) -> pm.Model:
    """40 groups x (intercept, slope, scale) = 120+ free variables, a deterministic per group,
    and a 8000 x 50 design matrix (3.2 MB) in pm.Data: hundreds of graph nodes, slow to compile."""
    groups, rows, p = _n(40, scale), _n(8000, scale, 40), _n(50, scale, 3)
    rng = np.random.default_rng(7)
    X = rng.normal(size=(rows, p))
    gid = np.arange(rows) % groups
    y = rng.normal(size=rows)
    with pm.Model() as model:
        x = pm.Data("x", X)
        yobs = pm.Data("y_obs", y)
        w = pm.Normal("w", 0, 1, shape=p)
        base = x @ w
        mu_a = pm.Normal("mu_a", 0, 1)
        sd_a = pm.HalfNormal("sd_a", 1)
        preds = []
        for k in range(groups):
            a = pm.Normal(f"a_{k}", mu_a, sd_a)
            b = pm.Normal(f"b_{k}", 0, 1)
            s = pm.HalfNormal(f"s_{k}", 1)
            rows_k = np.flatnonzero(gid == k)
            mean_k = pm.Deterministic(f"mean_{k}", a + b * base[rows_k])
            pm.Normal(f"y_{k}", mean_k, s, observed=yobs[rows_k])
            preds.append(a + b)
        pm.Deterministic("effects", pt.stack(preds))
    return model


def time_series(scale: float = 1.0) -> pm.Model:
    """An AR(2) process over T=1000 steps (a PyTensor Scan in its graph) plus a Scan deterministic."""
    steps = _n(1000, scale, 5)
    rng = np.random.default_rng(3)
    with pm.Model() as model:
        rho = pm.Normal("rho", 0, 0.3, shape=2)
        sigma = pm.HalfNormal("sigma", 1)
        ar = pm.AR("ar", rho=rho, sigma=sigma, init_dist=pm.Normal.dist(0, 1), constant=False, steps=steps)
        decay = pm.Beta("decay", 2, 2)
        import pytensor

        smoothed, _ = pytensor.scan(
            lambda x_t, acc, d: d * acc + x_t, sequences=[ar], outputs_info=[pt.zeros(())], non_sequences=[decay]
        )
        pm.Deterministic("smoothed", smoothed)
        pm.Normal("obs", ar, 0.5, observed=rng.normal(size=steps + 2))
    return model


def eight_schools(scale: float = 1.0) -> pm.Model:
    """Eight schools, non-centred (``scale`` does not apply)."""
    return examples.eight_schools()


MODELS: dict[str, Callable[[float], pm.Model]] = {
    "report_shapes": report_shapes,
    "regression": regression,
    "wide_hierarchical": wide_hierarchical,
    "time_series": time_series,
    "eight_schools": eight_schools,
}


def lkj_dims(scale: float = 1.0) -> pm.Model:
    """LKJ correlations (value shapes PyTensor does not know statically) over a ``dims=`` mean."""
    n = max(3, _n(6, scale, 3))
    rng = np.random.default_rng(6)
    with pm.Model(coords={"d": range(n), "obs": range(_n(200, scale))}) as model:
        pm.LKJCorr("corr", n=n, eta=2.0)
        chol, _, _ = pm.LKJCholeskyCov("chol", n=n, eta=2.0, sd_dist=pm.Exponential.dist(1.0, shape=n))
        mu = pm.Normal("mu", 0, 1, dims="d")
        pm.MvNormal("y", mu, chol=chol, observed=rng.normal(size=(_n(200, scale), n)), dims=("obs", "d"))
    return model


def ar_steps(scale: float = 1.0) -> pm.Model:
    """AR(2) with ``shape=T`` taken from the data (no static shape)."""
    series = np.random.default_rng(7).normal(size=_n(500, scale, 5))
    with pm.Model() as model:
        data = pm.Data("series", series)
        rho = pm.Normal("rho", 0, 0.3, shape=2)
        ar = pm.AR("ar", rho=rho, sigma=1.0, init_dist=pm.Normal.dist(0, 1), shape=data.shape[0])
        pm.Normal("obs", ar, 0.5, observed=data)
    return model


def dims_regression(scale: float = 1.0) -> pm.Model:
    """A regression over mutable ``dims=`` coords (``pm.Data`` with dims): shapes known only from the data."""
    rows, k = _n(1000, scale), _n(8, scale)
    rng = np.random.default_rng(8)
    with pm.Model(coords={"obs": range(rows), "k": range(k)}) as model:
        x = pm.Data("x", rng.normal(size=(rows, k)), dims=("obs", "k"))
        beta = pm.Normal("beta", 0, 1, dims="k")
        sigma = pm.HalfNormal("sigma", 1)
        mu = pm.Deterministic("mu", x @ beta, dims="obs")
        pm.Normal("y", mu, sigma, observed=rng.normal(size=rows), dims="obs")
    return model


PREFLIGHT_MODELS: dict[str, Callable[[float], pm.Model]] = {
    "lkj_dims": lkj_dims,
    "ar_steps": ar_steps,
    "dims_regression": dims_regression,
}
"""Models whose value variables have no static shape (issue 28): the warm preflight's case."""
