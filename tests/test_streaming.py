"""streamed(B): PyMC's numbers on every zoo model, one executable for every batch, double buffering."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from reference import assert_same, pymc_log_likelihood, pymc_posterior
from zoo import ZOO, draws_for

from pymc_aot import runtime
from pymc_aot.cache import CacheStore
from pymc_aot.cache.entry import EntryMetadata
from pymc_aot.runtime.streams.streaming import HostArrays, chain_segments, stream

# 2 chains x 7 draws = 14 flattened draws: 7 and 14 divide it, 4 and 5 do not, 100 exceeds it
BATCHES = ["streamed(7)", "streamed(14)", "streamed(4)", "streamed(5)", "streamed(100)"]


@pytest.mark.parametrize("name", list(ZOO))
def test_streamed_posterior_matches_pymc(zoo_models, name, tmp_path):
    model = zoo_models[name]
    samples = draws_for(model)
    expected = pymc_posterior(model, samples)
    for strategy in BATCHES:
        got = runtime.postprocess(model, samples, strategy=strategy, cache=tmp_path)
        assert all(isinstance(v, np.ndarray) for v in got.values()), "streamed results land in host arrays"
        assert_same(got, expected)


@pytest.mark.parametrize("name", list(ZOO))
def test_streamed_log_likelihood_matches_pymc(zoo_models, name, tmp_path):
    model = zoo_models[name]
    samples = draws_for(model, seed=1)
    expected = pymc_log_likelihood(model, samples)
    for strategy in ("streamed(4)", "streamed(7)"):
        assert_same(runtime.postprocess(model, samples, strategy=strategy, log_likelihood=True, cache=tmp_path), expected)


def test_one_executable_serves_every_batch_and_is_reused(zoo_models, cache_dir):
    """3 x 5 draws in batches of 4: four calls, one compile; a second run loads, a third recalls."""
    model = zoo_models["regression_data"]
    samples = draws_for(model, chains=3, draws=5)
    before = runtime.COUNTERS.compiles
    first = runtime.postprocess(model, samples, strategy="streamed(4)")
    assert runtime.COUNTERS.compiles == before + 1
    runtime.clear_memo()
    second = runtime.postprocess(model, samples, strategy="streamed(4)")
    third = runtime.postprocess(model, samples, strategy="streamed(4)")
    assert runtime.COUNTERS.compiles == before + 1 and runtime.COUNTERS.last_source == "memo"
    assert_same(first, pymc_posterior(model, samples))
    assert_same(second, first)
    assert_same(third, first)
    (meta,) = [EntryMetadata.from_json(r.metadata) for r in CacheStore(cache_dir).entries()]
    assert (meta.key["strategy"], meta.key["batch_size"], meta.key["donate"]) == ("streamed", 4, False)
    assert meta.stream_batch == 4 and meta.n_args == 1 + 2 + 1  # start, beta and sigma_log__, x (not yobs)
    assert meta.output_shapes[0][0][0] == 4 and meta.result_shapes[0][0][:2] == (3, 5)
    assert meta.host_bytes == sum(int(np.asarray(v).nbytes) for v in first.values())
    assert meta.device_peak == meta.memory.peak + meta.memory.output  # 4 calls: two batches in flight


def test_streamed_keys_differ_by_batch(zoo_models, cache_dir):
    model = zoo_models["scalars"]
    samples = draws_for(model)
    for strategy in ("streamed(4)", "streamed(5)", "batched(4)"):
        runtime.postprocess(model, samples, strategy=strategy)
    keys = {(r.metadata["key"]["strategy"], r.metadata["key"]["batch_size"]) for r in CacheStore(cache_dir).entries()}
    assert keys == {("streamed", 4), ("streamed", 5), ("batched", 4)}


def test_device_inputs_are_not_consumed(zoo_models, cache_dir):
    model = zoo_models["scalars"]
    samples = [jax.numpy.asarray(s) for s in draws_for(model)]
    runtime.postprocess(model, samples, strategy="streamed(3)")
    assert not any(s.is_deleted() for s in samples), "streamed never donates: every batch reads the inputs"


def test_chain_segments_split_flat_rows_at_chain_ends():
    assert list(chain_segments(5, 6, 4)) == [(1, 1, 4, 0), (2, 0, 3, 3)]
    assert list(chain_segments(0, 8, 4)) == [(0, 0, 4, 0), (1, 0, 4, 4)]
    assert list(chain_segments(3, 0, 4)) == []


class _FakeOut:
    """A device array stand-in that records when it is copied and counts live instances."""

    live = 0

    def __init__(self, log: list[str], start: int, b: int) -> None:
        self.log, self.start, self.data = log, start, np.arange(start, start + b, dtype=float)
        self.shape = self.data.shape
        _FakeOut.live += 1

    def __del__(self) -> None:
        _FakeOut.live -= 1

    def copy_to_host_async(self) -> None:
        self.log.append(f"async {self.start}")

    def __array__(self, dtype=None, copy=None):
        self.log.append(f"read {self.start}")
        return self.data


def test_next_batch_is_dispatched_before_the_previous_is_read():
    log: list[str] = []
    most_alive = []

    def executable(start, *args):
        log.append(f"dispatch {int(start)}")
        out = _FakeOut(log, int(start), 4)
        most_alive.append(_FakeOut.live)
        return (out,)

    sink = HostArrays(["x"], [((2, 5), "float64")])
    stream(executable, n=10, batch=4, arguments=(), sink=sink)
    assert log == [
        "dispatch 0", "async 0",
        "dispatch 4", "async 4", "read 0",
        "dispatch 6", "async 6", "read 4",  # the last batch is clamped to 10 - 4
        "read 6",
    ]
    assert max(most_alive) == 2, "two batches in flight at most: the one computing and the one being copied"
    np.testing.assert_array_equal(sink.finish()["x"].ravel(), np.arange(10.0))


def test_streamed_metadata_round_trips(zoo_models, cache_dir):
    model = zoo_models["scalars"]
    runtime.postprocess(model, draws_for(model), strategy="streamed(4)")
    (record,) = CacheStore(cache_dir).entries()
    meta = EntryMetadata.from_json(record.metadata)
    assert record.metadata["stream"] == {"batch": 4, "device_peak": meta.device_peak, "host_bytes": meta.host_bytes}
    assert EntryMetadata.from_json({**meta.to_json(), "executable_size": meta.executable_size}) == meta
    assert meta.label == "streamed(4)" and meta.host_bytes == 2 * 7 * 8 * 2  # mu and sigma, 14 draws
