"""``pm.sample_posterior_predictive`` inside ``pymc_aot.enable()``: PyMC's result, through the cache."""

from __future__ import annotations

import warnings

import arviz as az
import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
from idata_helpers import from_dict, group_names
from zoo import regression_data

import pymc_aot
from pymc_aot.runtime.transforms import engine

CHAINS, DRAWS = 2, 40


@pytest.fixture(scope="module")
def model_idata() -> tuple[pm.Model, az.InferenceData]:
    model = regression_data()
    rng = np.random.default_rng(1)
    post = {"beta": rng.normal(size=(CHAINS, DRAWS, 3)), "sigma": np.abs(rng.normal(size=(CHAINS, DRAWS))) + 0.2}
    constant = {"x": model["x"].get_value(), "yobs": model["yobs"].get_value()}
    observed = {"y": model["yobs"].get_value()}
    idata = from_dict({"posterior": post, "constant_data": constant, "observed_data": observed})
    return model, idata


def _stock_and_ours(model, idata, tmp_path, **kwargs):
    stock = pm.sample_posterior_predictive(idata.copy(), model=model, progressbar=False, **kwargs)
    before = engine.COUNTERS.compiles + engine.COUNTERS.disk_hits + engine.COUNTERS.memo_hits
    with warnings.catch_warnings():
        warnings.simplefilter("error", pymc_aot.FallbackWarning)  # no fallback
        with pymc_aot.enabled(cache_dir=str(tmp_path), strategy="vmap"):
            ours = pm.sample_posterior_predictive(idata.copy(), model=model, progressbar=False, **kwargs)
    assert engine.COUNTERS.compiles + engine.COUNTERS.disk_hits + engine.COUNTERS.memo_hits > before  # the cache ran
    return stock, ours


def test_returns_pymcs_groups_dims_and_coords(model_idata, tmp_path) -> None:
    model, idata = model_idata
    stock, ours = _stock_and_ours(model, idata, tmp_path, random_seed=2)
    assert group_names(ours) == group_names(stock)
    assert "posterior_predictive" in group_names(ours)
    a, b = ours.posterior_predictive, stock.posterior_predictive
    assert list(a.data_vars) == list(b.data_vars) == ["y"]
    assert a["y"].dims == b["y"].dims and a["y"].shape == b["y"].shape
    for dim in a["y"].dims:
        np.testing.assert_array_equal(a[dim].values, b[dim].values)


def test_extend_and_deterministics(model_idata, tmp_path) -> None:
    model, idata = model_idata
    stock, ours = _stock_and_ours(
        model, idata, tmp_path, random_seed=2, var_names=["mu", "y"], extend_inferencedata=True
    )
    assert group_names(ours) == group_names(stock)
    np.testing.assert_allclose(ours.posterior_predictive["mu"].values, stock.posterior_predictive["mu"].values, rtol=1e-12)


def test_predictions_on_new_data(tmp_path) -> None:
    model = regression_data()
    rng = np.random.default_rng(1)
    post = {"beta": rng.normal(size=(CHAINS, DRAWS, 3)), "sigma": np.abs(rng.normal(size=(CHAINS, DRAWS))) + 0.2}
    post["mu"] = np.einsum("nk,cdk->cdn", model["x"].get_value(), post["beta"])  # stale once x changes
    idata = from_dict({"posterior": post, "constant_data": {"x": model["x"].get_value()}})
    new_x = rng.normal(size=(9, 3))
    with model:
        pm.set_data({"x": new_x})
    stock, ours = _stock_and_ours(model, idata, tmp_path, random_seed=3, predictions=True, var_names=["mu", "y"])
    assert group_names(ours) == group_names(stock)
    assert ours.predictions["y"].shape == stock.predictions["y"].shape == (CHAINS, DRAWS, 9)
    np.testing.assert_allclose(ours.predictions["mu"].values, stock.predictions["mu"].values, rtol=1e-12)


def test_return_dict(model_idata, tmp_path) -> None:
    model, idata = model_idata
    stock, ours = _stock_and_ours(model, idata, tmp_path, random_seed=2, return_inferencedata=False)
    assert set(ours) == set(stock) and ours["y"].shape == stock["y"].shape


def test_what_the_cache_cannot_serve_goes_to_pymc_with_one_warning(tmp_path) -> None:
    with pm.Model() as model:
        n = pm.Uniform("n", 20, 30)
        pm.HyperGeometric("y", N=50, k=25, n=pt.cast(pt.floor(n), "int64"), observed=[10, 12, 11])
    idata = from_dict({"posterior": {"n": np.full((1, 5), 25.0)}})
    with pymc_aot.enabled(cache_dir=str(tmp_path), strategy="vmap"):
        with pytest.warns(pymc_aot.FallbackWarning, match="(?i)PyMC's own path.*hypergeometric") as record:
            out = pm.sample_posterior_predictive(idata, model=model, random_seed=1, progressbar=False)
    ours = [w for w in record if "pymc-aot" in str(w.message)]
    assert len(ours) == 1
    assert ours[0].filename == __file__  # the warning points at the user's call
    assert out.posterior_predictive["y"].shape == (1, 5, 3)


def test_disable_restores_pymc_by_identity() -> None:
    import importlib

    from pymc_aot.runtime.predictive.hook import MODULES

    modules = [importlib.import_module(m) for m in MODULES]
    before = [m.sample_posterior_predictive for m in modules]
    with pymc_aot.enabled():
        assert all(m.sample_posterior_predictive is not f for m, f in zip(modules, before, strict=True))
    assert all(m.sample_posterior_predictive is f for m, f in zip(modules, before, strict=True))
