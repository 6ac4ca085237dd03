"""auto and streaming: out= streams; in memory it streams only off the CPU, and only when nothing else fits."""

from __future__ import annotations

import numpy as np
import pytest
from reference import assert_same, pymc_posterior
from zoo import draws_for, regression_data

from pymc_aot import aot, runtime
from pymc_aot.aot.choice import auto, stream_fit
from pymc_aot.aot.strategies.budget import MemoryBudgetError
from pymc_aot.cache import CacheStore

CHAINS, DRAWS = 2, 50


@pytest.fixture(scope="module")
def model():
    return regression_data()


@pytest.fixture(scope="module")
def samples(model):
    return draws_for(model, chains=CHAINS, draws=DRAWS)


def _auto(cache_dir, entry) -> dict:
    return CacheStore(cache_dir).metadata(entry.digest)["auto"]


def _least_in_memory_peak(model, cache_dir) -> int:
    entry = aot.precompile(model, chains=CHAINS, draws=DRAWS, memory_budget="1GiB")
    return min(c["peak"] for c in _auto(cache_dir, entry)["candidates"] if not c["strategy"].startswith("streamed"))


def _as_accelerator(monkeypatch, host: int | None = None) -> None:
    """Pretend the device has memory of its own (a GPU); ``host``: the host budget in bytes."""
    for module in (auto, stream_fit):
        monkeypatch.setattr(module, "device_is_host", lambda request: False)
        if host is not None:
            monkeypatch.setattr(module, "host_budget", lambda: host)


def test_out_chooses_streamed_and_records_device_and_host_separately(model, samples, cache_dir, tmp_path):
    entry = aot.precompile(model, chains=CHAINS, draws=DRAWS, memory_budget="1GiB", to_disk=True)
    choice = _auto(cache_dir, entry)
    assert choice["chosen"].startswith("streamed(") and choice["rule"] == auto.STREAM_RULE
    (chosen,) = [c for c in choice["candidates"] if c["strategy"] == choice["chosen"]]
    output = sum(pymc_posterior(model, samples)[k].nbytes for k in ("beta", "sigma", "mu"))
    batches = chosen["steps"]
    one_call = chosen["argument"] + chosen["output"] + chosen["temp"] - chosen["alias"]
    assert chosen["peak"] == choice["peak"] == one_call + (chosen["output"] if batches > 1 else 0)
    assert chosen["host_bytes"] == output and chosen["output"] * batches >= output
    stored = CacheStore(cache_dir).metadata(entry.digest)["stream"]
    assert stored["host_bytes"] == output and stored["device_peak"] == choice["peak"]
    got = runtime.postprocess(model, samples, memory_budget="1GiB", out=tmp_path / "p.zarr")
    assert_same({k: np.asarray(v) for k, v in got.items()}, pymc_posterior(model, samples))


def test_on_the_cpu_memory_never_streams_and_the_refusal_points_to_out(model, samples, cache_dir, tmp_path):
    budget = _least_in_memory_peak(model, cache_dir) - 1  # nothing in memory fits
    with pytest.raises(MemoryBudgetError) as info:
        runtime.postprocess(model, samples, memory_budget=budget)
    text = str(info.value)
    output = sum(v.nbytes for v in pymc_posterior(model, samples).values())
    assert f"The outputs are {output / 1024:.1f} KiB ({output:,} bytes); with out='posterior.zarr'" in text
    got = runtime.postprocess(model, samples, memory_budget=budget, out=tmp_path / "p.zarr")  # the same budget
    assert_same({k: np.asarray(v) for k, v in got.items()}, pymc_posterior(model, samples))
    chosen = CacheStore(cache_dir).metadata(aot.make_request(
        model, aot.value_signature(model, aot.fingerprint_model(model), CHAINS, DRAWS), memory_budget=budget
    ).key.digest)["auto"]
    assert chosen["chosen"].startswith("streamed(") and chosen["peak"] <= budget


def test_a_choice_for_out_is_not_reused_in_memory_on_the_cpu_and_back(model, samples, cache_dir, tmp_path, monkeypatch):
    runtime.postprocess(model, samples, memory_budget="1GiB", out=tmp_path / "p.zarr")
    in_memory = runtime.postprocess(model, samples, memory_budget="1GiB")
    assert not any(isinstance(v, np.ndarray) for v in in_memory.values()), "device arrays: not streamed"
    assert_same(in_memory, pymc_posterior(model, samples))
    # both choices' candidates are stored now: flipping back re-ranks without compiling anything
    monkeypatch.setattr(aot.build.compiler, "compile_transform", lambda *a, **k: pytest.fail("recompiled a candidate"))
    runtime.clear_memo()
    again = runtime.postprocess(model, samples, memory_budget="1GiB", out=tmp_path / "q.zarr")
    assert_same({k: np.asarray(v) for k, v in again.items()}, pymc_posterior(model, samples))


def test_on_an_accelerator_memory_streams_when_nothing_else_fits(model, samples, cache_dir, monkeypatch):
    budget = _least_in_memory_peak(model, cache_dir) - 1
    _as_accelerator(monkeypatch, host=2**30)
    got = runtime.postprocess(model, samples, memory_budget=budget)
    assert all(isinstance(v, np.ndarray) for v in got.values()), "streamed into host arrays"
    assert_same(got, pymc_posterior(model, samples))
    entry = aot.precompile(model, chains=CHAINS, draws=DRAWS, memory_budget=budget)
    choice = _auto(cache_dir, entry)
    assert choice["chosen"].startswith("streamed(") and choice["peak"] <= budget


def test_on_an_accelerator_outputs_that_fit_neither_are_refused_with_sizes(model, samples, cache_dir, monkeypatch):
    budget = _least_in_memory_peak(model, cache_dir) - 1
    _as_accelerator(monkeypatch, host=1000)  # the host cannot hold the output either
    with pytest.raises(MemoryBudgetError) as info:
        runtime.postprocess(model, samples, memory_budget=budget)
    text = str(info.value)
    assert "fits the device, but the whole output" in text and "1000 B (1,000 bytes) usable" in text
    assert "it fits neither; write it to disk with out='posterior.zarr'" in text


def test_out_refuses_when_even_one_batch_does_not_fit(model, samples, cache_dir, tmp_path):
    with pytest.raises(MemoryBudgetError, match=r"Even streamed to disk, the inputs \(.*\) and a batch must be on"):
        runtime.postprocess(model, samples, memory_budget=100, out=tmp_path / "p.zarr")
    assert not (tmp_path / "p.zarr").exists(), "refused before anything was written"
