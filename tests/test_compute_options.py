"""Options of ``pm.compute_deterministics`` / ``compute_log_likelihood`` that only choose PyTensor's
backend are served from the cache; options that may change the result go to PyMC with a FallbackWarning."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pymc as pm
import pytest
from compute_models import constrained_posterior, group, make_idata, two_observed
from numpy.testing import assert_allclose
from pytensor.compile.mode import Mode
from test_compute import assert_same_dataset

import pymc_aot
from pymc_aot import runtime
from pymc_aot.runtime.pymc.posterior_io import PYMC_MAJOR


def _compiles_and_hits() -> tuple[int, int, int]:
    c = runtime.COUNTERS
    return c.compiles, c.disk_hits, c.memo_hits


def _served(before: tuple[int, int, int]) -> bool:
    """The cache ran (compiled, read or recalled an executable) since ``before``."""
    return sum(_compiles_and_hits()) > sum(before)


def _pymc_test_model() -> tuple[pm.Model, object]:
    """PyMC's own tests/sampling/test_deterministic.py::test_compute_deterministics, its model and prior."""
    with pm.Model(coords={"group": (0, 2, 4)}) as m:
        mu_raw = pm.Normal("mu_raw", 0, 1, dims="group")
        pm.Deterministic("mu", mu_raw.cumsum(), dims="group")
        sigma_raw = pm.Normal("sigma_raw", 0, 1)
        pm.Deterministic("sigma", sigma_raw.exp())
    prior = pm.sample_prior_predictive(draws=5, model=m, var_names=["mu_raw", "sigma_raw"], random_seed=22)
    return m, group(prior, "prior")


def _merged(model, dataset, **mode):
    if PYMC_MAJOR >= 6:  # PyMC 6 deprecates merge_dataset, with its own FutureWarning
        with pytest.warns(FutureWarning, match="`merge_dataset` is deprecated"):
            return pm.compute_deterministics(
                dataset, var_names=["mu"], merge_dataset=True, model=model, progressbar=False, **mode
            )
    return pm.compute_deterministics(dataset, var_names=["mu"], merge_dataset=True, model=model, progressbar=False, **mode)


@pytest.mark.parametrize("via", ["compile_kwargs", "backend"])
def test_pymcs_own_scenario_is_served_under_warnings_as_errors(cache_dir, via):
    if via == "backend" and PYMC_MAJOR < 6:
        pytest.skip("backend= is a PyMC 6 argument")
    model, dataset = _pymc_test_model()
    mode = {"compile_kwargs": {"mode": "FAST_COMPILE"}} if via == "compile_kwargs" else {"backend": "FAST_COMPILE"}
    stock = _merged(model, dataset, **mode)
    before = _compiles_and_hits()
    with warnings.catch_warnings(), pymc_aot.enabled(cache_dir=str(cache_dir), strategy="vmap"):
        warnings.simplefilter("error")
        ours = _merged(model, dataset, **mode)
    assert _served(before)
    assert set(ours.data_vars) == {"mu_raw", "sigma_raw", "mu"}
    assert ours["mu"].dims == ("chain", "draw", "group")
    assert_allclose(ours["mu"], dataset["mu_raw"].cumsum("group"))
    assert_same_dataset(ours, stock)


@pytest.mark.parametrize("mode", ["NUMBA", "FAST_COMPILE", "fast_run"])
def test_log_likelihood_with_a_backend_mode_is_served(cache_dir, mode):
    if mode == "NUMBA":
        pytest.importorskip("numba")
    model = two_observed()
    idata = make_idata(model, constrained_posterior(model, cache_dir))
    stock = pm.compute_log_likelihood(idata, model=model, extend_inferencedata=False, compile_kwargs={"mode": mode})
    before = _compiles_and_hits()
    with warnings.catch_warnings(), pymc_aot.enabled(cache_dir=str(cache_dir), strategy="vmap"):
        warnings.simplefilter("error")
        ours = pm.compute_log_likelihood(idata, model=model, extend_inferencedata=False, compile_kwargs={"mode": mode})
    assert _served(before)
    assert_same_dataset(ours, stock)


@pytest.mark.parametrize(
    "compile_kwargs",
    [{"mode": Mode(linker="py", optimizer=None)}, {"mode": "FAST_RUN", "profile": False}],
    ids=["own-mode", "other-key"],
)
def test_a_result_changing_option_falls_back_with_a_fallback_warning_and_a_log_line(cache_dir, caplog, compile_kwargs):
    model = two_observed()
    idata = make_idata(model, constrained_posterior(model, cache_dir))
    stock = pm.compute_log_likelihood(idata, model=model, extend_inferencedata=False, compile_kwargs=compile_kwargs)
    before = _compiles_and_hits()
    with (
        caplog.at_level(logging.WARNING, logger="pymc_aot"),
        pymc_aot.enabled(cache_dir=str(cache_dir), strategy="vmap"),
        pytest.warns(pymc_aot.FallbackWarning, match="compute_log_likelihood runs PyMC's own path") as caught,
    ):
        ours = pm.compute_log_likelihood(idata, model=model, extend_inferencedata=False, compile_kwargs=compile_kwargs)
    assert not _served(before)
    fallbacks = [w for w in caught if w.category is pymc_aot.FallbackWarning]
    assert len(fallbacks) == 1
    assert fallbacks[0].filename == __file__  # the warning points at the user's call
    assert "runs PyMC's own path" in caplog.text
    assert_same_dataset(ours, stock)


def test_fallback_warning_is_a_user_warning_that_can_be_filtered(cache_dir):
    assert issubclass(pymc_aot.FallbackWarning, UserWarning)
    model = two_observed()
    idata = make_idata(model, constrained_posterior(model, cache_dir))
    seen = []
    for ignore in (False, True):
        with warnings.catch_warnings(record=True) as caught, pymc_aot.enabled(cache_dir=str(cache_dir), strategy="vmap"):
            warnings.simplefilter("always")
            if ignore:
                warnings.filterwarnings("ignore", category=pymc_aot.FallbackWarning)
            got = pm.compute_log_likelihood(idata, model=model, extend_inferencedata=False, sample_dims=("draw", "chain"))
        seen.append(sum(w.category is pymc_aot.FallbackWarning for w in caught))
        assert np.isfinite(got["y1"].values).all()
    assert seen == [1, 0]
