"""pm.sample with enable(out=...): posterior and log-likelihood read lazily from the store, equal to stock."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
import xarray as xr
from zoo import regression_data, zerosum

from pymc_aot import runtime
from pymc_aot.aot.compat import inference_groups
from pymc_aot.runtime.streams.zarr_store import open_store

pytestmark = pytest.mark.slow  # fresh processes / benchmark smoke: `-m slow` runs them

FAST = {"draws": 110, "tune": 30, "chains": 2, "progressbar": False, "random_seed": 5}


def _sample(model, **kw):
    with model:
        return pm.sample(nuts_sampler="numpyro", **{**FAST, **kw})


@pytest.mark.parametrize("make", [regression_data, zerosum], ids=["data+deterministic", "dims"])
def test_groups_come_from_the_store_and_equal_stock(make, cache_dir, tmp_path):
    model = make()
    stock = _sample(model, idata_kwargs={"log_likelihood": True})
    store = tmp_path / "trace.zarr"
    with runtime.enabled(cache_dir=str(cache_dir), out=str(store), sampler=False):  # stock's draws
        ours = _sample(model, idata_kwargs={"log_likelihood": True})
    ours, stock = inference_groups(ours), inference_groups(stock)  # InferenceData or DataTree
    assert set(ours) == set(stock)
    for group in ("posterior", "log_likelihood"):
        on_disk = open_store(store, group)
        assert set(on_disk) == set(stock[group].data_vars)
        for name, var in ours[group].data_vars.items():
            assert "preferred_chunks" in var.encoding, f"{group}/{name} is read from the Zarr store"
            assert var.dims == stock[group][name].dims
            np.testing.assert_array_equal(var.values, np.asarray(on_disk[name]))
        xr.testing.assert_allclose(ours[group].load(), stock[group], rtol=1e-9, atol=1e-12)
        assert {k: v for k, v in ours[group].attrs.items() if k not in ("created_at", "sampling_time")} == {
            k: v for k, v in stock[group].attrs.items() if k not in ("created_at", "sampling_time")
        }
    for group in ("sample_stats", "observed_data"):  # PyMC's own groups: untouched
        xr.testing.assert_equal(ours[group], stock[group])


def test_deterministics_stay_on_disk_until_read(cache_dir, tmp_path):
    model = regression_data()
    with runtime.enabled(cache_dir=str(cache_dir), out=str(tmp_path / "t.zarr")):
        posterior = inference_groups(_sample(model))["posterior"]
    mu = posterior["mu"].variable
    # xarray's flag for data not yet read (the convergence checks read only the free variables)
    assert not mu._in_memory
    assert float(posterior["mu"].isel(chain=0, draw=3, mu_dim_0=0)) != 0.0, "real draws, not placeholders"


def test_a_run_without_log_likelihood_drops_the_stale_group(cache_dir, tmp_path):
    model = zerosum()
    store = tmp_path / "trace.zarr"
    with runtime.enabled(cache_dir=str(cache_dir), out=str(store)):
        _sample(model, idata_kwargs={"log_likelihood": True})
        assert set(open_store(store, "log_likelihood")) == {"y"}
        groups = inference_groups(_sample(model, random_seed=6))
    assert "log_likelihood" not in groups
    assert not (store / "log_likelihood").exists()
    np.testing.assert_array_equal(groups["posterior"]["eff"].values, np.asarray(open_store(store)["eff"]))
