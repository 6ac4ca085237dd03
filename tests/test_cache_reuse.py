"""Hits across processes, data as arguments, and what makes a new key."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pymc as pm
import pytest
from children import run_child
from reference import assert_same, pymc_log_likelihood, pymc_posterior
from zoo import ZOO, draws_for, regression_data, scalars

from pymc_aot import aot, runtime
from pymc_aot.cache import CacheStore

CHILD_MODELS = ["regression_data", "time_series", "lkj"]


def _child(tmp: Path, out: str, *extra: str) -> dict:
    env = {"PYMC_AOT_CACHE_DIR": str(tmp / "cache")}
    return run_child("child_postprocess.py", tmp / out, *CHILD_MODELS, *extra, env=env)


@pytest.mark.slow
def test_second_process_hits_without_compiling(tmp_path):
    first = _child(tmp_path, "first.npz")
    assert first == {"compiles": 2 * len(CHILD_MODELS), "disk_hits": 0}
    second = _child(tmp_path, "second.npz", "--forbid-compile")
    assert second == {"compiles": 0, "disk_hits": 2 * len(CHILD_MODELS)}
    a, b = np.load(tmp_path / "first.npz"), np.load(tmp_path / "second.npz")
    assert sorted(a.files) == sorted(b.files) and len(a.files) > 0
    for k in a.files:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def test_memo_skips_the_disk(cache_dir):
    model = scalars()
    samples = draws_for(model)
    runtime.postprocess(model, samples)
    assert runtime.COUNTERS.last_source == "compile"
    runtime.postprocess(model, samples)
    assert runtime.COUNTERS.last_source == "memo"
    runtime.clear_memo()
    runtime.postprocess(model, samples)
    assert runtime.COUNTERS.last_source == "disk"


def test_new_data_same_shape_reuses_executable(cache_dir):
    model = regression_data()
    samples = draws_for(model)
    first = runtime.postprocess(model, samples)
    ll_first = runtime.log_likelihood(model, samples)
    compiles = runtime.COUNTERS.compiles
    rng = np.random.default_rng(5)
    with model:
        pm.set_data({"x": rng.normal(size=(50, 3)), "yobs": rng.normal(size=50)})
    runtime.clear_memo()
    second = runtime.postprocess(model, samples)
    ll_second = runtime.log_likelihood(model, samples)
    assert runtime.COUNTERS.compiles == compiles, "new data of the same shape must not recompile"
    assert runtime.COUNTERS.last_source == "disk"
    assert not np.allclose(first["mu"], second["mu"])
    assert_same(second, pymc_posterior(model, samples))
    assert_same(ll_second, pymc_log_likelihood(model, samples))
    assert not np.allclose(ll_first["y"], ll_second["y"])


def test_data_shape_change_makes_new_entry(cache_dir):
    model = regression_data()
    samples = draws_for(model)
    runtime.postprocess(model, samples)
    rng = np.random.default_rng(6)
    with model:
        pm.set_data({"x": rng.normal(size=(30, 3)), "yobs": rng.normal(size=30)})
    got = runtime.postprocess(model, samples)
    assert runtime.COUNTERS.last_source == "compile"
    assert got["mu"].shape == (2, 7, 30)
    assert_same(got, pymc_posterior(model, samples))


def _digest(model, **kw) -> str:
    options = {"chains": 2, "draws": 10, "strategy": "vmap", **kw}
    return aot.precompile(model, **options).digest


def test_what_changes_the_key(cache_dir):
    base = _digest(scalars())
    assert _digest(scalars()) == base, "the same model built twice must give the same key"
    assert _digest(scalars(), draws=11) != base
    assert _digest(scalars(), strategy="scan") != base
    assert _digest(scalars(), strategy="batched", batch_size=4) != _digest(scalars(), strategy="batched", batch_size=5)
    assert _digest(scalars(), var_names=["scalars::mu"]) != base
    assert _digest(scalars(), keep_untransformed=True) != base
    assert _digest(scalars(), log_likelihood=True) != base

    def with_observed(values):
        with pm.Model(name="scalars") as m:
            mu = pm.Normal("mu", 0, 1)
            sigma = pm.HalfNormal("sigma", 1)
            pm.Normal("y", mu, sigma, observed=values)
        return m

    obs = np.arange(20.0)
    changed = obs.copy()
    changed[7] += 1e-9
    assert _digest(with_observed(obs)) == _digest(with_observed(obs.copy()))
    assert _digest(with_observed(obs), log_likelihood=True) != _digest(with_observed(changed), log_likelihood=True)


def test_prior_parameter_change_changes_the_key(cache_dir):
    def model(scale):
        with pm.Model() as m:
            pm.Uniform("u", 0.0, scale)
        return m

    assert _digest(model(1.0)) != _digest(model(2.0))


def test_precompile_then_postprocess_is_a_hit(cache_dir):
    model = ZOO["simplex_ordered"]()
    entry = aot.precompile(model, chains=2, draws=7)
    assert not entry.cached and entry.stored
    assert entry.memory.peak > 0 and entry.memory.output > 0
    again = aot.precompile(model, chains=2, draws=7)
    assert again.cached and again.digest == entry.digest
    runtime.clear_memo()
    got = runtime.postprocess(model, draws_for(model))
    assert runtime.COUNTERS.last_source == "disk"
    assert_same(got, pymc_posterior(model, draws_for(model)))
    record = {r.digest: r for r in CacheStore(cache_dir).entries()}[entry.digest]
    assert record.hits == 1


@pytest.mark.parametrize("name", ["time_series", "lkj", "zerosum"])
def test_fingerprint_is_stable_across_builds(name):
    a, b = aot.fingerprint_model(ZOO[name]()), aot.fingerprint_model(ZOO[name]())
    assert a.model_hash == b.model_hash
