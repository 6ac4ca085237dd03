"""The compiled sampler (on by default in ``enable()``): cold vs warm, new data, chunks, resuming."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
from children import HERE, run_child
from idata_helpers import group_names

import pymc_aot

pytestmark = pytest.mark.slow  # fresh processes and pm.sample runs of the compiled sampler

SAMPLERS = ["numpyro", "blackjax"]


def _load(path):
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def _assert_same(a, b):
    assert sorted(a) == sorted(b)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_cold_and_warm_processes_draw_the_same_bits(sampler, cache_dir, tmp_path):
    opts = json.dumps({"tune": 40, "draws": 30, "chunk_size": 25})
    cold = run_child("child_sampler.py", sampler, tmp_path / "cold.npz", opts)
    warm = run_child("child_sampler.py", sampler, tmp_path / "warm.npz", opts)
    assert cold["compiled"] == 3 and cold["loaded"] == 0
    assert warm["compiled"] == 0 and warm["loaded"] == 3  # logp, init and chunk read from disk
    _assert_same(_load(tmp_path / "cold.npz"), _load(tmp_path / "warm.npz"))


def _sample(model, sampler="numpyro", **kw):
    import pymc as pm

    kw = {"draws": 150, "tune": 150, "chains": 2, "random_seed": 1, "progressbar": False,
          "compute_convergence_checks": False, **kw}
    with model:
        return pm.sample(nuts_sampler=sampler, **kw)


def test_new_data_of_the_same_shape_reuses_the_executables(cache_dir):
    import pymc as pm
    from zoo import regression_data

    from pymc_aot import runtime
    from pymc_aot.runtime.sampler.counts import COUNTS

    model = regression_data()
    X = model["x"].get_value()
    with runtime.enabled(strategy="vmap", chunk_size=100):
        first = _sample(model)
        compiled = COUNTS["compiled"]
        with model:
            pm.set_data({"yobs": X @ np.array([-3.0, 0.0, 2.0]) + 0.1 * np.random.default_rng(1).normal(size=50)})
        second = _sample(model, progressbar=True)  # the host's progress bar between chunks
    assert COUNTS["compiled"] == compiled  # nothing compiled for the new values
    np.testing.assert_allclose(first.posterior["beta"].mean(("chain", "draw")), [1.0, -2.0, 0.5], atol=0.4)
    np.testing.assert_allclose(second.posterior["beta"].mean(("chain", "draw")), [-3.0, 0.0, 2.0], atol=0.1)


def test_how_the_run_is_split_into_calls_does_not_change_a_bit(cache_dir):
    from zoo import regression_data

    from pymc_aot import runtime
    from pymc_aot.runtime.sampler import run

    model = regression_data()
    real = run.run_chunks
    with runtime.enabled(strategy="vmap", chunk_size=64):
        whole = _sample(model, draws=50, tune=50)
        run.run_chunks = lambda init, chunk, r: real(init, chunk, r.__class__(**{**r.__dict__, "chunk": 7}))
        try:
            split = _sample(model, draws=50, tune=50)
        finally:
            run.run_chunks = real
    for name in whole.posterior:
        np.testing.assert_array_equal(whole.posterior[name].values, split.posterior[name].values)
    np.testing.assert_array_equal(whole.sample_stats["lp"].values, split.sample_stats["lp"].values)


def test_same_groups_stats_and_coords_as_stock(cache_dir):
    from zoo import regression_data

    from pymc_aot import runtime

    model = regression_data()
    stock = _sample(model, draws=20, tune=20)
    with runtime.enabled(strategy="vmap"):
        ours = _sample(model, draws=20, tune=20)
    assert group_names(ours) == group_names(stock)
    for group in group_names(ours):
        assert set(ours[group].data_vars) == set(stock[group].data_vars), group
        for name in ours[group].data_vars:
            assert ours[group][name].dims == stock[group][name].dims, (group, name)
            assert ours[group][name].dtype == stock[group][name].dtype, (group, name)


def _driver(**options):
    """Options for sample_jax_nuts: PyMC 5 takes them in ``nuts_sampler_kwargs``, PyMC 6 in ``nuts``,
    where the NUTS kernel's own options (PyMC 5's ``nuts_kwargs``) sit beside the driver's."""
    import pymc as pm

    if int(pm.__version__.split(".")[0]) < 6:
        return {"nuts_sampler_kwargs": options}
    kernel = options.pop("nuts_kwargs", {})
    return {"nuts": {**options, **kernel}}


def test_unserved_nuts_kwargs_go_to_pymc_with_one_warning(cache_dir):
    from zoo import regression_data

    from pymc_aot import runtime

    with runtime.enabled(strategy="vmap"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        idata = _sample(regression_data(), draws=10, tune=10, **_driver(nuts_kwargs={"init_strategy": None}))
    ours = [w for w in caught if "compiled numpyro sampler does not serve" in str(w.message)]
    assert len(ours) == 1 and "init_strategy" in str(ours[0].message)
    assert issubclass(ours[0].category, pymc_aot.FallbackWarning)
    assert idata.posterior["beta"].shape == (2, 10, 3)


def test_a_killed_run_resumes_from_its_last_chunk_bit_for_bit(cache_dir, tmp_path):
    base = {"tune": 60, "draws": 120, "chunk_size": 15}
    run_child("child_sampler.py", "numpyro", tmp_path / "whole.npz", json.dumps(base))  # compiles; uninterrupted
    ckpt = tmp_path / "run.zarr"
    opts = json.dumps({**base, "checkpoint": str(ckpt), "slow_writes": 1.0})
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    args = [sys.executable, str(HERE / "child_sampler.py"), "numpyro", str(tmp_path / "killed.npz"), opts]
    proc = subprocess.Popen(args, env=env, cwd=HERE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 300
        while time.time() < deadline:
            progress = ckpt / "progress.json"
            if progress.exists() and json.loads(progress.read_text())["chunks"] >= 5:
                break
            assert proc.poll() is None, "the run ended before it could be killed"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    done = json.loads((ckpt / "progress.json").read_text())["done"]
    assert 0 < done < base["tune"] + base["draws"]
    resumed = run_child("child_sampler.py", "numpyro", tmp_path / "resumed.npz", json.dumps({**base, "checkpoint": str(ckpt)}))
    assert resumed["resumed_steps"] == done and resumed["compiled"] == 0
    _assert_same(_load(tmp_path / "whole.npz"), _load(tmp_path / "resumed.npz"))


def test_precompile_command_then_pm_sample_compiles_nothing(capsys, cache_dir):
    import pymc as pm

    from pymc_aot import runtime
    from pymc_aot.runtime.cli import main
    from pymc_aot.runtime.sampler.counts import COUNTS

    schools = str(HERE.parent / "examples" / "eight_schools.py")
    args = ["precompile", schools, "--sampler", "numpyro", "--tune", "30", "--draws", "20", "--chains", "2"]
    assert main([*args, "--chunk-size", "25", "--strategy", "vmap", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    sampler = [e for e in doc["entries"] if e.get("kind") == "sampler"]
    assert len(sampler) == 3 and all(e["memory"]["peak"] > 0 for e in sampler)
    assert main(["inspect", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert sum(1 for e in listed["entries"] if e.get("kind") == "sampler") == 3
    model = runpy_model(schools)
    compiled = COUNTS["compiled"]
    with runtime.enabled(strategy="vmap", chunk_size=25), model:
        pm.sample(draws=20, tune=30, chains=2, nuts_sampler="numpyro", progressbar=False, compute_convergence_checks=False)
    assert COUNTS["compiled"] == compiled


def runpy_model(path):
    import runpy

    return runpy.run_path(path)["model"]


def test_enable_refuses_a_bad_chunk_size():
    from pymc_aot import runtime

    with pytest.raises(ValueError, match="chunk_size: expected a positive integer, got 0"):
        runtime.enable(chunk_size=0)
    assert not runtime.is_enabled()


def test_enable_samples_on_the_compiled_sampler_by_default_and_postprocesses_its_draws_as_pymc(
    cache_dir, monkeypatch
):
    """``enable()`` alone runs the compiled sampler; the posterior is what PyMC's own
    ``_postprocess_samples`` makes of the very draws it drew. ``sampler=False`` samples with PyMC."""
    import pymc.sampling.jax as pymc_jax
    from pymc.util import get_default_varnames
    from zoo import regression_data

    from pymc_aot import runtime
    from pymc_aot.runtime.sampler import session
    from pymc_aot.runtime.sampler.counts import COUNTS

    raw = []
    real = session.run_compiled

    def keep(*args, **kwargs):
        out = real(*args, **kwargs)
        raw.append([np.array(x) for x in out[0]])  # copies: the posterior transform may donate them
        return out

    monkeypatch.setattr(session, "run_compiled", keep)
    model = regression_data()
    runs = sum(COUNTS[k] for k in ("compiled", "loaded", "memo"))
    with runtime.enabled(cache_dir=str(cache_dir)):
        ours = _sample(model, draws=20, tune=20)
    assert len(raw) == 1 and sum(COUNTS[k] for k in ("compiled", "loaded", "memo")) > runs
    names = get_default_varnames(model.unobserved_value_vars, include_transformed=False)
    jax_fn = pymc_jax.get_jaxified_graph(inputs=model.value_vars, outputs=names)
    stock = pymc_jax._postprocess_samples(jax_fn, raw[0], postprocessing_vectorize="vmap", donate_samples=False)
    for var, value in zip(names, stock, strict=True):
        np.testing.assert_allclose(ours.posterior[var.name].values, np.asarray(value), rtol=1e-9, err_msg=var.name)
    with runtime.enabled(cache_dir=str(cache_dir), sampler=False):
        _sample(model, draws=20, tune=20)
    assert len(raw) == 1, "sampler=False: PyMC's own sampler"


def test_a_checkpoint_needs_the_compiled_sampler(tmp_path):
    from pymc_aot import runtime

    with pytest.raises(ValueError, match="checkpoint: a resumable run needs the compiled sampler"):
        runtime.enable(sampler=False, checkpoint=tmp_path / "run.zarr")
    assert not runtime.is_enabled()


@pytest.mark.parametrize("where", ["enable", "preflight"])
def test_a_run_whose_sampler_would_not_fit_is_refused_before_sampling(where, cache_dir, monkeypatch):
    """The chunk program's stored peak plus the draws kept, against ``enable(memory_budget=...)``
    or the budget auto's preflight fixed for the call: ``MemoryBudgetError`` before any step."""
    from zoo import regression_data

    import pymc_aot.runtime.pymc.preflight
    from pymc_aot import runtime
    from pymc_aot.aot.strategies.budget import MemoryBudgetError
    from pymc_aot.runtime.sampler import run

    stepped = []
    monkeypatch.setattr(run, "run_chunks", lambda *a, **k: stepped.append(1))
    options = {"strategy": "vmap", "memory_budget": 1000}
    if where == "preflight":
        options = {}
        monkeypatch.setattr(pymc_aot.runtime.pymc.preflight, "preflight", lambda *a, **k: 1000)
    with runtime.enabled(cache_dir=str(cache_dir), **options), pytest.raises(MemoryBudgetError) as caught:
        _sample(regression_data(), draws=20, tune=20)
    message = str(caught.value)
    assert "compiled numpyro sampler needs at least" in message and "(1,000 bytes)" in message, message
    assert "chunk program" in message and "draws kept" in message, message
    assert stepped == []


def _posterior_and_lp(idata):
    return {**{k: v.values for k, v in idata.posterior.items()}, "lp": idata.sample_stats["lp"].values}


def test_parallel_chains_run_split_over_devices_and_vectorized_where_too_few(cache_dir, monkeypatch):
    """``chain_method="parallel"``: one chain per device (the key names the mesh), the same
    posterior as vectorized up to floating point (another XLA program); with fewer devices than
    chains, one warning and the vectorized program's very bits."""
    from zoo import regression_data

    from pymc_aot import runtime
    from pymc_aot.aot.compat import sampler_options
    from pymc_aot.aot.sampler import parallel
    from pymc_aot.cache import CacheStore

    model = regression_data()
    runs = {}
    with runtime.enabled(cache_dir=str(cache_dir), strategy="vmap", chunk_size=25):
        for method in ("parallel", "vectorized"):
            runs[method] = _posterior_and_lp(
                _sample(model, draws=30, tune=30, **sampler_options({"chain_method": method}))
            )
        meshes = [e.metadata["key"].get("mesh") for e in CacheStore(cache_dir).entries()]
        assert sum(1 for m in meshes if m and "shape=(2,) split=chains" in m) == 2, meshes  # init and chunk
        monkeypatch.setattr(parallel, "_devices", lambda platform: parallel.jax.devices(platform)[:1])
        with pytest.warns(UserWarning, match="chain_method='parallel' needs 2 cpu devices and this process has 1"):
            few = _posterior_and_lp(_sample(model, draws=30, tune=30, **sampler_options({"chain_method": "parallel"})))
    for name, value in runs["parallel"].items():
        np.testing.assert_allclose(value, runs["vectorized"][name], rtol=1e-6, atol=1e-8, err_msg=name)
        np.testing.assert_array_equal(few[name], runs["vectorized"][name], err_msg=name)
