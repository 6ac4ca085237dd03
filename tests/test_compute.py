"""``pm.compute_log_likelihood`` / ``pm.compute_deterministics`` through the cache, against PyMC's own."""

from __future__ import annotations

import contextlib
import importlib
import warnings
from collections.abc import Iterator

import numpy as np
import pymc as pm
import pytest
from compute_models import constrained_posterior, group, make_idata, two_observed
from zoo import ZOO, draws_for

import pymc_aot
from pymc_aot import examples, runtime
from pymc_aot.runtime.pymc.posterior_io import PYMC_MAJOR
from pymc_aot.runtime.pymc.pymc_compute_hooks import SEAMS

MODELS = {**ZOO, "two_observed": two_observed, "eight_schools": examples.eight_schools}
WITH_DETERMINISTICS = [n for n, build in MODELS.items() if build().deterministics]


def assert_same_dataset(got, expected) -> None:
    """Same variables, dims, coords, dtypes and values (to 1e-10); xarray.testing.assert_identical
    but for the creation time and float rounding. The order of the variables is not compared: for
    all observed variables PyMC lists them in the order of a clone of the model's graph."""
    assert sorted(got.data_vars) == sorted(expected.data_vars)
    assert dict(got.sizes) == dict(expected.sizes)
    for name, coord in expected.coords.items():
        np.testing.assert_array_equal(got[name].values, coord.values, err_msg=name)
    for name, want in expected.data_vars.items():
        have = got[name]
        assert have.dims == want.dims, name
        assert have.dtype == want.dtype, name
        np.testing.assert_allclose(have.values, want.values, rtol=1e-10, atol=1e-10, err_msg=name)


@contextlib.contextmanager
def cached(cache_dir, strategy: str = "vmap") -> Iterator[list[str]]:
    """pymc-aot enabled; yields the pymc-aot warnings raised inside."""
    with warnings.catch_warnings(record=True) as caught, pymc_aot.enabled(cache_dir=str(cache_dir), strategy=strategy):
        warnings.simplefilter("always")
        found: list[str] = []
        yield found
    found += [str(w.message) for w in caught if "pymc-aot" in str(w.message)]


def _compiles() -> int:
    return runtime.COUNTERS.compiles


@pytest.mark.parametrize("name", sorted(MODELS))
def test_log_likelihood_equals_pymc(name, cache_dir):
    model = MODELS[name]()
    posterior = constrained_posterior(model, cache_dir)
    try:
        expected = pm.compute_log_likelihood(make_idata(model, posterior), model=model, progressbar=False)
        expected = group(expected, "log_likelihood")
    except NotImplementedError:  # PyMC cannot clone a model with initvals (simplex_ordered)
        expected = None
    idata = make_idata(model, posterior)
    before = _compiles()
    with cached(cache_dir) as warned:
        returned = pm.compute_log_likelihood(idata, model=model)
    assert not warned and returned is idata and _compiles() == before + 1
    got = group(idata, "log_likelihood")
    if expected is not None:
        assert_same_dataset(got, expected)
    else:  # the same draws' log-likelihood from the unconstrained values (checked against PyMC elsewhere)
        unconstrained = runtime.postprocess(model, draws_for(model, 2, 7, 0), log_likelihood=True, strategy="vmap")
        for k, v in unconstrained.items():
            np.testing.assert_allclose(got[k].values, np.asarray(v), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", WITH_DETERMINISTICS)
def test_deterministics_equal_pymc_from_a_bare_posterior(name, cache_dir):
    model = MODELS[name]()
    posterior = constrained_posterior(model, cache_dir)
    free_only = {rv.name: posterior[rv.name] for rv in model.free_RVs}  # as if left out of the trace
    dataset = group(make_idata(model, free_only), "posterior")
    expected = pm.compute_deterministics(dataset, model=model, progressbar=False)
    with cached(cache_dir) as warned:
        got = pm.compute_deterministics(dataset, model=model)
    assert not warned
    assert_same_dataset(got, expected)
    for det in model.deterministics:  # and what the posterior transform gave for the same draws
        np.testing.assert_allclose(got[det.name].values, posterior[det.name], rtol=1e-10, atol=1e-10)


def test_var_names_select_and_order_like_pymc_from_one_executable(cache_dir):
    model = two_observed()
    posterior = constrained_posterior(model, cache_dir)
    idata = make_idata(model, posterior)
    expected = {}
    for names in (["y2"], ["y2", "y1"]):
        found = pm.compute_log_likelihood(idata, model=model, var_names=names, extend_inferencedata=False)
        expected[tuple(names)] = found
    expected_det = pm.compute_deterministics(group(idata, "posterior"), model=model, var_names=["scale2", "mu"])
    before = _compiles()
    with cached(cache_dir) as warned:
        got = {
            names: pm.compute_log_likelihood(idata, model=model, var_names=list(names), extend_inferencedata=False)
            for names in expected
        }
        got_det = pm.compute_deterministics(group(idata, "posterior"), model=model, var_names=["scale2", "mu"])
        again = pm.compute_log_likelihood(idata, model=model, var_names=["y1", "y2"], extend_inferencedata=False)
    assert not warned
    for names, dataset in expected.items():
        assert list(got[names].data_vars) == list(dataset.data_vars) == list(names)
        assert_same_dataset(got[names], dataset)
    assert list(got_det.data_vars) == list(expected_det.data_vars) == ["scale2", "mu"]
    assert_same_dataset(got_det, expected_det)
    assert list(again.data_vars) == ["y1", "y2"]
    assert _compiles() == before + 3  # y2 alone, y1+y2 in either order, the two deterministics


@pytest.mark.skipif(PYMC_MAJOR >= 6, reason="merge_dataset is deprecated in PyMC 6")
def test_merge_dataset_as_pymc(cache_dir):
    model = two_observed()
    dataset = group(make_idata(model, constrained_posterior(model, cache_dir)), "posterior")
    expected = pm.compute_deterministics(dataset, model=model, merge_dataset=True, progressbar=False)
    with cached(cache_dir) as warned:
        got = pm.compute_deterministics(dataset, model=model, merge_dataset=True)
    assert not warned
    assert_same_dataset(got, expected)


@pytest.mark.skipif(PYMC_MAJOR < 6, reason="extend_dataset and group are PyMC 6 arguments")
def test_extend_dataset_on_a_whole_datatree_as_pymc(cache_dir):
    model = two_observed()
    posterior = constrained_posterior(model, cache_dir)
    free_only = {rv.name: posterior[rv.name] for rv in model.free_RVs}
    expected = pm.compute_deterministics(make_idata(model, free_only), model=model, extend_dataset=True)
    idata = make_idata(model, free_only)
    with cached(cache_dir) as warned:
        returned = pm.compute_deterministics(idata, model=model, extend_dataset=True)
    assert not warned and returned is idata
    assert_same_dataset(group(idata, "posterior"), group(expected, "posterior"))


def test_what_the_cache_does_not_handle_goes_to_pymc_with_one_warning(cache_dir):
    model = two_observed()
    idata = make_idata(model, constrained_posterior(model, cache_dir))
    unhandled = [{"sample_dims": ("draw", "chain")}, {"compile_kwargs": {"mode": "FAST_COMPILE", "givens": []}}]
    expected = [pm.compute_log_likelihood(idata, model=model, extend_inferencedata=False, **kw) for kw in unhandled]
    compiles = _compiles()
    with cached(cache_dir) as warned:
        got = [pm.compute_log_likelihood(idata, model=model, extend_inferencedata=False, **kw) for kw in unhandled]
    assert len(warned) == 2 and _compiles() == compiles
    assert "sample_dims=('draw', 'chain') is not handled" in warned[0]
    assert "compile_kwargs ['givens'] may change the result" in warned[1]
    for ours, theirs in zip(got, expected, strict=True):
        assert_same_dataset(ours, theirs)


def test_arguments_pymc_rejects_get_pymcs_error(cache_dir):
    model = two_observed()
    idata = make_idata(model, constrained_posterior(model, cache_dir))
    with cached(cache_dir) as warned:
        with pytest.raises((ValueError, KeyError)):
            pm.compute_log_likelihood(idata, model=model, var_names=["mu"])  # a deterministic
        with pytest.raises((ValueError, KeyError)):
            pm.compute_deterministics(group(idata, "posterior"), model=model, var_names=["y1"])
    assert not warned


def test_no_model_and_no_posterior_get_pymcs_error_without_ours(cache_dir):
    model = two_observed()
    idata = make_idata(model, constrained_posterior(model, cache_dir))
    with cached(cache_dir) as warned:
        with pytest.raises(TypeError, match="No model on context stack"):
            pm.compute_log_likelihood(idata)
        with pytest.raises(Exception):  # noqa: B017 - whatever PyMC raises for a posterior group missing
            pm.compute_log_likelihood({"prior": group(idata, "posterior")}, model=model)
    assert not warned


def test_a_deterministic_of_an_observed_variable_goes_to_pymc_with_the_reason(cache_dir):
    with pm.Model() as model:
        mu = pm.Normal("mu", 0, 1)
        y = pm.Normal("y", mu, 1, observed=np.arange(4.0))
        pm.Deterministic("resid", y - mu)  # PyMC draws y afresh here: a random generator
    idata = make_idata(model, {"mu": np.zeros((2, 3))})
    with cached(cache_dir) as warned:
        got = pm.compute_deterministics(group(idata, "posterior"), model=model)
    assert got["resid"].shape == (2, 3, 4)
    assert len(warned) == 1 and "depend on a random generator" in warned[0]


def test_a_posterior_that_does_not_fit_falls_back_with_the_reason(cache_dir):
    model = ZOO["regression_data"]()
    posterior = constrained_posterior(model, cache_dir)
    posterior["beta"] = posterior["beta"][..., :2]  # one coefficient short
    idata = make_idata(model, posterior)
    with cached(cache_dir) as warned, pytest.raises(Exception):  # noqa: B017 - PyMC's own error, any type
        pm.compute_log_likelihood(idata, model=model)
    assert len(warned) == 1 and "posterior['beta']: expected shape (chains, draws, 3), got (2, 7, 2)" in warned[0]


def test_disable_restores_every_seam_by_identity(cache_dir):
    modules = {m: importlib.import_module(m) for ms in SEAMS.values() for m in ms}
    before = {(m, n): getattr(modules[m], n) for n, ms in SEAMS.items() for m in ms}
    with pymc_aot.enabled(cache_dir=str(cache_dir)):
        assert all(getattr(modules[m], n) is not f for (m, n), f in before.items())
    assert all(getattr(modules[m], n) is f for (m, n), f in before.items())


def test_auto_chooses_and_a_second_call_loads_the_choice(cache_dir):
    model = two_observed()
    idata = make_idata(model, constrained_posterior(model, cache_dir))
    with cached(cache_dir, strategy="auto") as warned:
        first = pm.compute_log_likelihood(idata, model=model, extend_inferencedata=False)
        runtime.clear_memo()
        compiles = _compiles()
        second = pm.compute_log_likelihood(idata, model=model, extend_inferencedata=False)
    assert not warned and _compiles() == compiles and runtime.COUNTERS.last_source == "disk"
    assert_same_dataset(second, first)
    entries = [runtime.get_store(str(cache_dir)).metadata(d) for d in runtime.get_store(str(cache_dir)).digests()]
    assert any(e.get("auto") and e["key"]["kind"] == "constrained_log_likelihood" for e in entries)


def test_set_data_new_values_reuse_the_executable_and_new_shapes_get_their_own(cache_dir):
    model = ZOO["regression_data"]()
    idata = make_idata(model, constrained_posterior(model, cache_dir))
    posterior = group(idata, "posterior")
    stock_ll, stock_det = pm.compute_log_likelihood, pm.compute_deterministics
    rng = np.random.default_rng(11)
    compiles = []
    with cached(cache_dir) as warned:
        pm.compute_log_likelihood(idata, model=model, extend_inferencedata=False)
        pm.compute_deterministics(posterior, model=model)
        for rows in (50, 40):  # new values of the same shapes, then fewer rows
            with model:
                pm.set_data({"x": rng.normal(size=(rows, 3)), "yobs": rng.normal(size=rows)})
            before = _compiles()
            got_ll = pm.compute_log_likelihood(idata, model=model, extend_inferencedata=False)
            got_det = pm.compute_deterministics(posterior, model=model)
            compiles.append(_compiles() - before)
            assert_same_dataset(got_ll, stock_ll(idata, model=model, extend_inferencedata=False, progressbar=False))
            assert_same_dataset(got_det, stock_det(posterior, model=model, progressbar=False))
            assert got_det["mu"].shape[-1] == rows
    assert not warned and compiles == [0, 2]
