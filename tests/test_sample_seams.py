"""pm.sample under enable(): pymc.dims data, the preflight under the fallback, its compiles counted,
and input shapes taken without compiling a PyTensor function."""

from __future__ import annotations

import warnings

import numpy as np
import pymc as pm
import pytest
from test_pymc_integration import FAST, assert_same_idata
from zoo import simplex_ordered

import pymc_aot
from pymc_aot import aot, runtime
from pymc_aot.aot.build.request import value_signature
from pymc_aot.aot.choice import auto_later


def dims_model() -> pm.Model:
    """Data declared through ``pymc.dims`` (``XTensorSharedVariable``s), as pymc-marketing does."""
    import pymc.dims as pmd

    rng = np.random.default_rng(4)
    x = rng.normal(size=(20, 2))
    with pm.Model(coords={"obs": range(20), "channel": ["a", "b"]}) as model:
        channel_data = pmd.Data("channel_data", x, dims=("obs", "channel"))
        target = pmd.Data("target", x.sum(1) + rng.normal(size=20), dims=("obs",))
        beta = pmd.Normal("beta", dims="channel")
        sigma = pmd.HalfNormal("sigma")
        mu = pmd.Deterministic("mu", (channel_data * beta).sum("channel"))
        pmd.Normal("y", mu, sigma, observed=target, dims="obs")
    return model


def ar_steps_from_data() -> pm.Model:
    with pm.Model() as model:
        series = pm.Data("series", np.random.default_rng(2).normal(size=30))
        rho = pm.Normal("rho", 0, 0.3, shape=2)
        ar = pm.AR("ar", rho=rho, sigma=1.0, init_dist=pm.Normal.dist(0, 1), shape=series.shape[0])
        pm.Normal("obs", ar, 0.5, observed=series)
    return model


def lkj_corr() -> pm.Model:
    with pm.Model(coords={"d": range(3)}) as model:
        pm.LKJCorr("corr", n=3, eta=2.0)
        chol, _, _ = pm.LKJCholeskyCov("chol", n=3, eta=2.0, sd_dist=pm.Exponential.dist(1.0, shape=3))
        mu = pm.Normal("mu", 0, 1, dims="d")
        pm.MvNormal("y", mu, chol=chol, observed=np.zeros((5, 3)))
    return model


def _sample(model, **kw):
    with model:
        return pm.sample(nuts_sampler="numpyro", random_seed=11, **{**FAST, **kw})


@pytest.mark.slow
def test_pymc_dims_data_are_data_cold_and_warm_equal_to_stock(cache_dir):
    model = dims_model()
    kw = {"idata_kwargs": {"log_likelihood": True}}
    stock = _sample(model, **kw)
    runs = []
    for _ in range(2):  # cold (the preflight compiles), then warm (nothing compiles)
        runtime.clear_memo()
        before = runtime.COUNTERS.compiles
        with warnings.catch_warnings(), pymc_aot.enabled(cache_dir=str(cache_dir), sampler=False):
            warnings.simplefilter("error", pymc_aot.FallbackWarning)
            ours = _sample(model, **kw)
        auto_later.wait()  # auto's candidates compiled behind the cold run belong to it
        runs.append(runtime.COUNTERS.compiles - before)
        assert_same_idata(stock, ours)
    assert runs[0] > 0 and runs[1] == 0


def test_a_cold_pm_sample_reports_the_preflights_compiles(cache_dir):
    model = simplex_ordered()
    compiles, preflight = runtime.COUNTERS.compiles, runtime.COUNTERS.preflight_compiles
    with pymc_aot.enabled(cache_dir=str(cache_dir)):  # auto: chosen and compiled before sampling
        _sample(model)

    assert auto_later.wait(600)
    made = runtime.COUNTERS.preflight_compiles - preflight
    assert made >= 2, "auto compiles its candidates in the preflight (the first one before sampling, the rest behind it)"
    # The seams load what the preflight stored; where sampling ends before the background search
    # does, postprocessing completes the pending choice itself and compiles again (issue 27, open).
    assert runtime.COUNTERS.compiles - compiles >= made, "every compile is counted"


def test_a_failing_preflight_gives_one_fallback_warning_and_stocks_idata(cache_dir, monkeypatch):
    import pymc_aot.runtime.pymc.preflight

    model = simplex_ordered()
    stock = _sample(model, idata_kwargs={"log_likelihood": True})

    def broken(*_a, **_k):
        raise ValueError("simulated preflight failure")

    monkeypatch.setattr(pymc_aot.runtime.pymc.preflight, "preflight", broken)
    runs = runtime.COUNTERS.disk_hits + runtime.COUNTERS.memo_hits + runtime.COUNTERS.compiles
    with pymc_aot.enabled(cache_dir=str(cache_dir), sampler=False), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = _sample(model, idata_kwargs={"log_likelihood": True})
    fallbacks = [str(w.message) for w in caught if w.category is pymc_aot.FallbackWarning]
    assert len(fallbacks) == 1 and "simulated preflight failure" in fallbacks[0]
    assert runtime.COUNTERS.disk_hits + runtime.COUNTERS.memo_hits + runtime.COUNTERS.compiles == runs, "PyMC's path"
    assert_same_idata(stock, ours)


@pytest.mark.parametrize("make", [dims_model, ar_steps_from_data, lkj_corr])
def test_input_shapes_without_compiling_a_pytensor_function(make, monkeypatch):
    model = make()
    assert any(None in model.rvs_to_values[rv].type.shape for rv in model.free_RVs), "a shape to infer"
    point = model.initial_point()
    expected = [(2, 5, *np.shape(point[model.rvs_to_values[rv].name])) for rv in model.free_RVs]
    monkeypatch.setattr(pm.Model, "initial_point", lambda *a, **k: pytest.fail("initial_point compiles"))
    import sys

    import pytensor

    def compile_(*args, **kwargs):
        pytest.fail("a PyTensor compile")

    # pytensor.function, and where it is defined: pytensor.compile.function (PyTensor 2), .maker (3)
    monkeypatch.setattr(sys.modules[pytensor.function.__module__], "function", compile_)
    monkeypatch.setattr(pytensor, "function", compile_)
    signature = value_signature(model, aot.fingerprint_model(model), 2, 5)
    assert [s[1] for s in signature] == expected


@pytest.mark.slow
@pytest.mark.parametrize("sampler", [True, False])
def test_one_pm_sample_walks_the_models_fingerprint_once(sampler, cache_dir, monkeypatch):
    """The sampler's keys, the preflight, the start-point check and the postprocessing of one call
    share one walk (there were four); the next call walks again (the model may have changed in
    between). The compiled sampler's step-method record walks once more, in ``pm.sample`` before
    it reaches the JAX driver."""
    from zoo import regression_data

    from pymc_aot.aot.identity import fingerprint

    walks, real = [], fingerprint._walk

    def counted(model):
        walks.append(model)
        return real(model)

    monkeypatch.setattr(fingerprint, "_walk", counted)
    model = regression_data()
    per_call = 2 if sampler else 1
    with runtime.enabled(cache_dir=str(cache_dir), sampler=sampler):
        for call in (1, 2):  # cold, then warm
            with model:
                pm.sample(nuts_sampler="numpyro", random_seed=call, **FAST)
            assert len(walks) == call * per_call and walks[-1] is model
    fingerprint.fingerprint_model(model)  # outside a call: no memo
    fingerprint.fingerprint_model(model)
    assert len(walks) == 2 * per_call + 2
