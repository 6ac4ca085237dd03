"""A first ``pm.sample`` under enable() postprocesses with what its preflight compiled, in memory.

The preflight's live executables go into the runtime's memo (issue 27): the postprocessing reads
nothing back from disk and deserializes nothing, and gives PyMC's numbers. While it runs, auto's
background compiles are held at their next step; a complete choice that differs from the first
one makes the runtime forget what it holds, so a later lookup reads the stored choice.
"""

from __future__ import annotations

import threading

import pymc as pm
import pytest
from test_pymc_integration import FAST, assert_same_idata
from zoo import simplex_ordered

import pymc_aot
from pymc_aot import examples, runtime
from pymc_aot.aot.build import loader
from pymc_aot.aot.choice import auto_later
from pymc_aot.runtime.transforms import engine
from pymc_aot.runtime.transforms.transform_cache import TransformCache

KW = {**FAST, "nuts_sampler": "numpyro", "random_seed": 5, "idata_kwargs": {"log_likelihood": True}}


@pytest.fixture
def reads(monkeypatch):
    """Executables deserialized in the caller's thread, and whether the background was held then."""
    seen = {"loads": 0, "held": []}
    original_load, original_run = loader.load_executable, engine.run_transform

    def load(*args, **kwargs):
        seen["loads"] += threading.current_thread() is threading.main_thread()
        return original_load(*args, **kwargs)

    def run(*args, **kwargs):
        seen["held"].append(auto_later.held())
        return original_run(*args, **kwargs)

    monkeypatch.setattr(loader, "load_executable", load)
    monkeypatch.setattr(engine, "run_transform", run)
    return seen


def test_first_run_postprocesses_the_preflights_executables_without_reading_them(cache_dir, reads):
    model = simplex_ordered()
    with model:
        stock = pm.sample(**KW)  # PyMC's own _postprocess_samples and _get_log_likelihood
    memo = runtime.COUNTERS.memo_hits
    with pymc_aot.enabled(cache_dir=str(cache_dir), sampler=False):
        with model:
            ours = pm.sample(**KW)
    assert auto_later.wait(600)
    assert reads["loads"] == 0, "the postprocessing deserialized an executable the preflight had compiled"
    assert runtime.COUNTERS.memo_hits - memo == 2  # the posterior and the log-likelihood
    assert reads["held"] == [True, True] and not auto_later.held()
    assert_same_idata(stock, ours)


def test_a_hold_pauses_background_jobs_at_their_next_step():
    steps = []

    def job():
        steps.append("started")
        auto_later.yield_to_runs("lowering")
        steps.append("went on")

    auto_later.hold()
    try:
        auto_later.submit(job, "probe")
        assert not auto_later.wait(1.0), "a held job finished"
        assert "went on" not in steps
    finally:
        auto_later.release()
    assert auto_later.wait(60) and steps == ["started", "went on"]
    auto_later.yield_to_runs("anything")  # outside the background thread: never waits


def test_a_changed_complete_choice_is_forgotten_in_memory(monkeypatch):
    cache = TransformCache()
    monkeypatch.setattr(engine, "DEFAULT", cache)
    entry = type("Entry", (), {"digest": "d" * 64, "executable": object(), "metadata": None})()
    monkeypatch.setattr(auto_later, "recorded_hooks", [engine._forget])  # as the preflight registers it
    cache.adopt(entry)
    assert "d" * 64 in cache._memo
    auto_later.report_recorded("e" * 64)  # another key's choice changed
    assert "d" * 64 in cache._memo
    auto_later.report_recorded("d" * 64)
    assert "d" * 64 not in cache._memo


def test_a_complete_choice_recorded_during_a_run_is_forgotten_when_the_run_ends(monkeypatch):
    """Inside ``pm.sample`` (``run_scope``) the postprocessing runs the executable the preflight
    compiled and checked, even once the background jobs store the complete choice under its
    digest; the memo forgets it when the call ends (the next call reads the complete choice)."""
    cache = TransformCache()
    monkeypatch.setattr(engine, "DEFAULT", cache)
    entry = type("Entry", (), {"digest": "d" * 64, "executable": object(), "metadata": None})()
    monkeypatch.setattr(auto_later, "recorded_hooks", [engine._forget])
    cache.adopt(entry)
    with cache.run_scope():
        with cache.run_scope():  # nested calls (a pm.sample inside another's scope): the outer end counts
            auto_later.report_recorded("d" * 64)
        assert "d" * 64 in cache._memo
    assert "d" * 64 not in cache._memo
    cache.adopt(entry)
    with pytest.raises(RuntimeError), cache.run_scope():  # a call that fails forgets too
        auto_later.report_recorded("d" * 64)
        raise RuntimeError("the sampler failed")
    assert "d" * 64 not in cache._memo


def test_a_cold_run_with_the_compiled_sampler_postprocesses_the_preflights_executable(cache_dir, reads, monkeypatch):
    """With the compiled sampler a cold run's background candidates finish before it postprocesses
    (they are released once its programs are lowered), and on this model the complete choice
    differs from the first one: the postprocessing still runs the preflight's executable from
    memory, not the newly stored choice read back from disk on the run's critical path."""
    recorded: list[str] = []
    monkeypatch.setattr(auto_later, "recorded_hooks", [*auto_later.recorded_hooks, recorded.append])
    model = examples.regression(20_000, 3, 5)  # mu: 20000 x 100 draws, over auto's working set
    memo = runtime.COUNTERS.memo_hits
    with pymc_aot.enabled(cache_dir=str(cache_dir)):
        with model:
            pm.sample(**{**KW, "draws": 50})
    assert auto_later.wait(600)
    assert recorded, "the complete choice did not change: this test checks nothing"
    assert reads["loads"] == 0, "the postprocessing deserialized an executable the preflight had compiled"
    assert runtime.COUNTERS.memo_hits - memo == 2  # the posterior and the log-likelihood
