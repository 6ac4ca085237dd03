"""The compiled sampler against stock PyMC, in distribution: blackjax and vectorized chains are
different XLA programs, so not bitwise (numpyro with one chain per device is: test_sampler_stock_bits).

Means and standard deviations within 4 Monte Carlo standard errors (of the two runs together),
divergences within noise, over several seeds. Long: ``@pytest.mark.slow``.
"""

from __future__ import annotations

import numpy as np
import pytest
from idata_helpers import from_dict

SEEDS = (11, 12)


def _model(name):
    import zoo

    if name == "eight_schools":
        from bench.models import eight_schools

        return eight_schools()
    return getattr(zoo, name)()


def _sample(model, sampler, seed, **driver):
    import pymc as pm

    from pymc_aot.aot.compat import sampler_options

    with model:
        return pm.sample(
            draws=500, tune=500, chains=2, nuts_sampler=sampler, random_seed=seed, progressbar=False,
            compute_convergence_checks=False, **(sampler_options(driver) if driver else {}),
        )


def _flat(idata):
    """Every scalar of the posterior: name -> (chain, draw) array."""
    out = {}
    for name, var in idata.posterior.items():
        values = var.values.reshape(*var.shape[:2], -1)
        for i in range(values.shape[-1]):
            out[f"{name}[{i}]"] = values[..., i]
    return out


def _ess(x):
    import arviz as az

    return float(np.ravel(az.ess(x, method="mean"))[0])


def _mcse(x):
    """MCSE of the mean, and of the sd by the delta method over the squared deviations (as ArviZ
    does; its own ``mcse(method="sd")`` fails on plain arrays with this NumPy)."""
    sq = (x - x.mean()) ** 2
    mcse_var = sq.std() / np.sqrt(_ess(sq))
    return x.std() / np.sqrt(_ess(x)), mcse_var / (2 * x.std())


def compare(stock, ours):
    """Variables whose mean or sd differ by more than 4 MCSE."""
    bad = []
    a, b = _flat(stock), _flat(ours)
    for name in a:
        (ma, sa), (mb, sb) = _mcse(a[name]), _mcse(b[name])
        if abs(a[name].mean() - b[name].mean()) > 4 * np.hypot(ma, mb):
            bad.append(f"{name} mean {a[name].mean():.3f} vs {b[name].mean():.3f}")
        if abs(a[name].std() - b[name].std()) > 4 * np.hypot(sa, sb):
            bad.append(f"{name} sd {a[name].std():.3f} vs {b[name].std():.3f}")
    return bad


def test_compare_fails_on_a_shifted_posterior():

    rng = np.random.default_rng(0)
    x = from_dict({"posterior": {"a": rng.normal(size=(2, 500))}})
    assert compare(x, from_dict({"posterior": {"a": rng.normal(size=(2, 500))}})) == []
    assert compare(x, from_dict({"posterior": {"a": 0.5 + rng.normal(size=(2, 500))}}))


@pytest.mark.slow
@pytest.mark.distribution
@pytest.mark.parametrize("sampler", ["numpyro", "blackjax"])
@pytest.mark.parametrize("name", ["eight_schools", "scalars", "regression_data"])
def test_in_distribution_against_stock(name, sampler, cache_dir):
    from pymc_aot import runtime

    model = _model(name)
    div_stock = div_ours = 0
    for seed in SEEDS:
        stock = _sample(model, sampler, seed)
        with runtime.enabled(strategy="vmap"):  # the compiled sampler: on by default
            ours = _sample(model, sampler, seed)
        assert compare(stock, ours) == [], (name, sampler, seed)
        div_stock += int(stock.sample_stats["diverging"].sum())
        div_ours += int(ours.sample_stats["diverging"].sum())
    assert abs(div_stock - div_ours) <= 4 * np.sqrt(div_stock + div_ours) + 5, (div_stock, div_ours)


@pytest.mark.slow
@pytest.mark.distribution
def test_vectorized_chains_in_distribution_against_stock(cache_dir):
    """The default (parallel: one chain per device) is checked above; vectorized is another program."""
    from pymc_aot import runtime

    model = _model("eight_schools")
    for seed in SEEDS:
        stock = _sample(model, "numpyro", seed)
        with runtime.enabled(strategy="vmap"):
            ours = _sample(model, "numpyro", seed, chain_method="vectorized")
        assert compare(stock, ours) == [], seed
