"""pm.sample with pymc-aot enabled returns stock PyMC's InferenceData (ArviZ 1.x: DataTree), from cached executables.

The comparisons with stock at rtol 1e-9 check the postprocessing, so they sample with PyMC's own
NUTS (``sampler=False``); the compiled sampler (on by default) draws other numbers, equal in
distribution (tests/test_sampler_distribution.py), with the same groups, stats and coords
(tests/test_sampler.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import arviz as az
import numpy as np
import pymc as pm
import pymc.sampling.jax as pymc_jax
import pytest
from zoo import lkj, regression_data, simplex_ordered

import pymc_aot
from pymc_aot import runtime
from pymc_aot.aot.choice import auto_later
from pymc_aot.aot.compat import inference_groups, sampler_options
from pymc_aot.cache import CacheStore

HERE = Path(__file__).parent
FAST = {"draws": 15, "tune": 15, "chains": 2, "progressbar": False, "compute_convergence_checks": False}


def assert_same_idata(stock, ours) -> None:
    stock_groups, our_groups = inference_groups(stock), inference_groups(ours)
    assert set(stock_groups) == set(our_groups) and "posterior" in stock_groups
    for group, a in stock_groups.items():
        b = our_groups[group]
        assert set(a.data_vars) == set(b.data_vars), group
        for name in a.data_vars:
            assert a[name].dims == b[name].dims, (group, name)
            for dim in a[name].dims:
                np.testing.assert_array_equal(a[name][dim].values, b[name][dim].values)
            if group == "sample_stats":
                continue
            np.testing.assert_allclose(a[name].values, b[name].values, rtol=1e-9, atol=1e-12, err_msg=f"{group}/{name}")


def _sample(model, sampler, **kw):
    with model:
        return pm.sample(nuts_sampler=sampler, random_seed=11, **{**FAST, **kw})


def _runs() -> int:
    """Runs of a cached transform by the seams (the preflight's compiles run nothing)."""
    c = runtime.COUNTERS
    return c.compiles - c.preflight_compiles + c.disk_hits + c.memo_hits


@pytest.fixture
def hooked(cache_dir):
    runtime.enable(cache_dir=str(cache_dir), sampler=False)
    yield cache_dir
    runtime.disable()


@pytest.mark.slow
@pytest.mark.parametrize("sampler", ["numpyro", "blackjax"])
@pytest.mark.parametrize("make", [regression_data, simplex_ordered, lkj], ids=["data+loglik", "dirichlet", "lkj"])
def test_enabled_equals_stock(cache_dir, sampler, make):
    model = make()
    kw = {"idata_kwargs": {"log_likelihood": True}} if make is regression_data else {}
    stock = _sample(model, sampler, **kw)
    ran = _runs()
    with runtime.enabled(cache_dir=str(cache_dir), sampler=False):
        ours = _sample(model, sampler, **kw)
    assert _runs() == ran + (2 if kw else 1), "the cached path must have run"
    assert_same_idata(stock, ours)


@pytest.mark.slow
def test_pymc_contract_options(hooked):
    model = simplex_ordered()
    options = [
        {"var_names": ["w"], **sampler_options({"keep_untransformed": True, "postprocessing_backend": "cpu"})},
        {"chains": 1, **sampler_options({"chain_method": "vectorized"})},
        {
            **sampler_options({"postprocessing_vectorize": "scan"}),
            "idata_kwargs": {"coords": {"w_dim": list("abcd")}, "dims": {"w": ["w_dim"]}},
        },
    ]
    for kw in options:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runtime.disable()
            stock = _sample(model, "numpyro", **kw)
            runtime.enable(cache_dir=str(hooked), sampler=False)
            ran = _runs()
            ours = _sample(model, "numpyro", **kw)
        assert _runs() == ran + 1, f"the cached posterior transform ran for {kw}"
        assert_same_idata(stock, ours)
    assert ours.posterior["w"].dims[-1] == "w_dim"
    strategies = {r.metadata["key"]["strategy"] for r in CacheStore(hooked).entries()}
    assert "scan" in strategies and "auto" in strategies, "PyMC's 'scan' maps to ours; otherwise auto"


@pytest.mark.slow
def test_new_data_same_shape_no_recompile(hooked):
    model = regression_data()
    first = _sample(model, "numpyro", idata_kwargs={"log_likelihood": True})
    auto_later.wait()  # auto's candidates, compiled behind the first run's sampling, are counted too
    compiles = runtime.COUNTERS.compiles
    entries = len(CacheStore(hooked).entries())
    rng = np.random.default_rng(9)
    with model:
        pm.set_data({"x": rng.normal(size=(50, 3)), "yobs": rng.normal(size=50)})
    runtime.clear_memo()
    second = _sample(model, "numpyro", idata_kwargs={"log_likelihood": True})
    assert runtime.COUNTERS.compiles == compiles and len(CacheStore(hooked).entries()) == entries
    runtime.disable()
    stock = _sample(model, "numpyro", idata_kwargs={"log_likelihood": True})
    assert_same_idata(stock, second)
    assert not np.allclose(first.posterior["mu"].values, second.posterior["mu"].values)
    runtime.enable(cache_dir=str(hooked), sampler=False)
    with model:
        pm.set_data({"x": rng.normal(size=(40, 3)), "yobs": rng.normal(size=40)})
    auto_later.wait()
    entries = len(CacheStore(hooked).entries())
    third = _sample(model, "numpyro", idata_kwargs={"log_likelihood": True})
    assert len(CacheStore(hooked).entries()) > entries, "a new data shape is a new entry"
    assert third.posterior["mu"].shape[-1] == 40


@pytest.mark.slow
def test_second_process_hits(tmp_path):
    env = dict(os.environ, PYMC_AOT_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(HERE), PYTHONWARNINGS="ignore")

    def child(out, *extra):
        proc = subprocess.run([sys.executable, str(HERE / "child_sample.py"), str(tmp_path / out), *extra],
                              capture_output=True, text=True, env=env, cwd=HERE, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return json.loads(proc.stdout.strip().splitlines()[-1])

    first = child("a.nc")
    assert first["compiled"], "the first process compiles (auto: before sampling)"
    assert child("b.nc", "--forbid-compile") == {"compiled": False, "disk_hits": 2}
    assert_same_idata(az.from_netcdf(tmp_path / "a.nc"), az.from_netcdf(tmp_path / "b.nc"))


@pytest.mark.slow
def test_disable_restores_pymc_exactly(cache_dir):
    originals = {n: getattr(pymc_jax, n) for n in ("sample_jax_nuts", "sample_numpyro_nuts", "get_jaxified_graph",
                                                   "_postprocess_samples", "_get_log_likelihood", "get_jaxified_logp",
                                                   "_sample_numpyro_nuts", "_sample_blackjax_nuts")}
    assert runtime.enable(cache_dir=str(cache_dir))
    assert runtime.enable(cache_dir=str(cache_dir), strategy="nested_scan"), "enabling twice is harmless"
    assert pymc_jax._postprocess_samples is not originals["_postprocess_samples"]
    assert pymc_jax._sample_numpyro_nuts is not originals["_sample_numpyro_nuts"], "the compiled sampler is on"
    runtime.disable()
    runtime.disable()
    for name, fn in originals.items():
        assert getattr(pymc_jax, name) is fn, name
    assert not runtime.is_enabled()


def test_missing_seams_leave_pymc_untouched(cache_dir, monkeypatch):
    monkeypatch.delattr(pymc_jax, "_get_log_likelihood")
    before = pymc_jax._postprocess_samples
    with pytest.warns(pymc_aot.FallbackWarning, match="left unchanged"):
        assert runtime.enable(cache_dir=str(cache_dir)) is False
    assert pymc_jax._postprocess_samples is before and not runtime.is_enabled()


def test_bad_option_refused_before_sampling(cache_dir):
    with pytest.raises(ValueError, match="unknown strategy"):
        runtime.enable(strategy="fastest")
    assert not runtime.is_enabled()


@pytest.mark.slow
def test_cached_path_failure_falls_back_to_pymc(hooked, monkeypatch):
    import pymc_aot.runtime.transforms.engine

    model = simplex_ordered()
    runtime.disable()
    stock = _sample(model, "numpyro")
    runtime.enable(cache_dir=str(hooked), strategy="vmap", sampler=False)

    def broken(*_a, **_k):
        raise RuntimeError("simulated failure")

    monkeypatch.setattr(pymc_aot.runtime.transforms.engine, "run_transform", broken)
    with pytest.warns(pymc_aot.FallbackWarning, match="using PyMC's own path"):
        ours = _sample(model, "numpyro")
    assert_same_idata(stock, ours)


@pytest.mark.slow
@pytest.mark.parametrize("sampler", [False, True], ids=["pymc-sampler", "compiled-sampler"])
def test_a_failed_preflight_is_one_warning_and_pymcs_postprocessing(hooked, monkeypatch, sampler):
    """The preflight runs on its own thread; its failure (not a refusal) reaches the call as one
    FallbackWarning, and the call's postprocessing runs PyMC's own path (nothing cached runs)."""
    import pymc_aot.runtime.pymc.preflight

    model = regression_data()
    runtime.disable()
    stock = _sample(model, "numpyro")
    runtime.enable(cache_dir=str(hooked), sampler=sampler)  # auto: the preflight runs

    def broken(*_a, **_k):
        raise RuntimeError("simulated preflight failure")

    monkeypatch.setattr(pymc_aot.runtime.pymc.preflight, "preflight", broken)
    runs = _runs()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = _sample(model, "numpyro")
    said = [w for w in caught if issubclass(w.category, pymc_aot.FallbackWarning)]
    assert [str(w.message) for w in said] == [
        "pymc-aot could not run the cached postprocessing (RuntimeError: simulated preflight failure); "
        "using PyMC's own path"
    ]
    assert _runs() == runs
    if not sampler:  # PyMC's draws, PyMC's postprocessing: stock's InferenceData
        assert_same_idata(stock, ours)
    else:
        assert set(ours.posterior.data_vars) == set(stock.posterior.data_vars)
