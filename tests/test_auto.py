"""strategy="auto": a choice from XLA's memory analysis, stored and reused; preflight refusals."""

from __future__ import annotations

import pymc as pm
import pytest
from reference import assert_same, pymc_log_likelihood, pymc_posterior
from zoo import draws_for, regression_data

from pymc_aot import aot, runtime
from pymc_aot.aot.build.request import resolve_device
from pymc_aot.aot.strategies.budget import MemoryBudgetError, resolve_budget
from pymc_aot.cache import CacheStore


@pytest.fixture(scope="module")
def model():
    return regression_data()


def _auto_meta(cache_dir, entry):
    return CacheStore(cache_dir).metadata(entry.digest)["auto"]


def test_generous_budget_picks_a_valid_strategy(model, cache_dir):
    samples = draws_for(model)
    got = runtime.postprocess(model, samples, memory_budget="1GiB")
    assert_same(got, pymc_posterior(model, samples))
    assert_same(runtime.log_likelihood(model, samples, memory_budget="1GiB"), pymc_log_likelihood(model, samples))
    (auto,) = [r.metadata["auto"] for r in CacheStore(cache_dir).entries() if "auto" in r.metadata][:1]
    assert auto["chosen"] in {c["strategy"] for c in auto["candidates"]}
    assert all(c["fits"] for c in auto["candidates"])


def test_budget_between_candidates_picks_one_that_fits(model, cache_dir):
    entry = aot.precompile(model, chains=2, draws=7, memory_budget="1GiB")
    peaks = sorted({c["peak"] for c in _auto_meta(cache_dir, entry)["candidates"]})
    assert len(peaks) >= 2
    budget = (peaks[0] + peaks[1]) // 2  # only the smallest-peak candidate(s) fit
    tight = aot.precompile(model, chains=2, draws=7, memory_budget=budget)
    auto = _auto_meta(cache_dir, tight)
    assert auto["peak"] <= budget and auto["budget"] == budget
    assert tight.memory.peak == auto["peak"]
    assert {c["fits"] for c in auto["candidates"]} == {True, False}
    assert all(c["peak"] > budget for c in auto["candidates"] if not c["fits"])


def test_budget_below_everything_is_refused_before_anything_runs(model, cache_dir):
    with pytest.raises(MemoryBudgetError) as info:
        aot.precompile(model, chains=2, draws=7, memory_budget=100)
    text = str(info.value)
    assert "needs at least" in text and "memory budget is 100 B (100 bytes)" in text
    assert "var_names" in text and "mu" in text


def test_choice_is_stored_and_reused_without_compiling(model, cache_dir, monkeypatch):
    aot.precompile(model, chains=2, draws=7, memory_budget="1GiB")
    runtime.clear_memo()
    before = runtime.COUNTERS.compiles
    # every compile, candidates included, goes through compiler.compile_transform
    monkeypatch.setattr(aot.build.compiler, "compile_transform", lambda *a, **k: pytest.fail("a candidate was recompiled"))
    again = aot.precompile(model, chains=2, draws=7, memory_budget="1GiB")
    runtime.postprocess(model, draws_for(model), memory_budget="1GiB")
    assert again.cached and again.strategy.startswith("auto:")
    assert runtime.COUNTERS.compiles == before and runtime.COUNTERS.last_source == "disk"


@pytest.mark.slow
def test_preflight_stops_pm_sample_before_sampling(model, cache_dir, monkeypatch):
    import pymc.sampling.jax as pymc_jax

    runtime.enable(cache_dir=str(cache_dir), memory_budget=100)
    sampled = []
    try:  # the stand-in goes before disable(): undone at teardown it would put enable()'s seam back
        with monkeypatch.context() as patch, model, pytest.raises(MemoryBudgetError, match="needs at least"):
            patch.setattr(pymc_jax, "_sample_numpyro_nuts", lambda *a, **k: sampled.append(1))
            pm.sample(draws=10, tune=10, chains=2, nuts_sampler="numpyro", progressbar=False)
    finally:
        runtime.disable()
    assert sampled == [], "the sampler must not have started"


def test_budget_forms(model):
    device = resolve_device(None)
    assert resolve_budget(1234, device) == 1234
    assert resolve_budget("2KiB", device) == 2048
    assert 0 < resolve_budget(0.5, device) <= resolve_budget(None, device) / 0.8 * 0.5 + 1
    with pytest.raises(ValueError, match="fraction must be in"):
        resolve_budget(1.5, device)
    with pytest.raises(ValueError, match="memory_budget"):
        resolve_budget("lots", device)
