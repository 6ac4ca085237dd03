"""auto on a run about to sample (``defer``): what the choice needs now, the rest in the background.

The stored choice ends as the full search's (every candidate's numbers); until then it names
what is not compiled yet, and ``inspect`` shows it. Refusals stay before sampling
(test_auto.py::test_preflight_stops_pm_sample_before_sampling goes through the deferred path).
"""

from __future__ import annotations

import os
import sys
import threading

import pymc as pm
import pytest
from zoo import regression_data

from pymc_aot import aot, runtime
from pymc_aot.aot.build import compiler
from pymc_aot.aot.build.options import RequestOptions
from pymc_aot.aot.choice import auto, auto_first, auto_later
from pymc_aot.aot.choice.resolve import precompile_with
from pymc_aot.cache import CacheStore
from pymc_aot.runtime.cli import main

SHAPE = {"chains": 2, "draws": 7}


@pytest.fixture(scope="module")
def model():
    return regression_data()


@pytest.fixture(autouse=True)
def fresh_process():
    """Each test as a new process: nothing queued (a test may drop what it queued)."""
    auto_first._QUEUED.clear()
    yield
    auto_later.wait()
    auto_first._QUEUED.clear()


@pytest.fixture
def compiles(monkeypatch):
    """Compiles by thread: "now" (for the call: the caller's or its preflight's) and "later" (auto's
    background candidates')."""
    seen = {"now": [], "later": []}
    original = compiler.compile_transform

    def counted(request, **kw):
        where = "later" if threading.current_thread().name.startswith("pymc-aot-later") else "now"
        seen[where].append(request.label)
        return original(request, **kw)

    monkeypatch.setattr(compiler, "compile_transform", counted)
    return seen


def _deferred(model, cache, budget="1GiB"):
    options = RequestOptions().replace(memory_budget=budget)
    return precompile_with(model, options, cache=str(cache), defer=True, **SHAPE)


def _choice(cache, entry):
    return CacheStore(cache).metadata(entry.digest)["auto"]


def _by_strategy(choice):
    return {c["strategy"]: c for c in choice["candidates"]}


def _full(model, cache):
    entry = aot.precompile(model, memory_budget="1GiB", cache=str(cache), **SHAPE)
    return _choice(cache, entry)


def test_vmap_that_wins_is_the_only_compile_before_the_run(model, tmp_path, compiles):
    entry = _deferred(model, tmp_path / "first")
    assert compiles["now"] == ["vmap"]
    first = _choice(tmp_path / "first", entry)
    assert first["chosen"] == "vmap" and first["pending"] == list(auto_first.LATER) and "none can rank" in first["note"]
    assert auto_later.wait(600)
    done = _choice(tmp_path / "first", entry)
    assert "pending" not in done and len(compiles["later"]) >= 3
    full = _full(model, tmp_path / "full")
    assert done["chosen"] == full["chosen"] == "vmap"
    assert _by_strategy(done) == _by_strategy(full)  # the same numbers as a search made all at once


def test_vmap_beyond_the_working_set_runs_first_and_the_rule_decides_later(model, tmp_path, compiles, monkeypatch):
    for module in (auto, auto_first):  # nothing fits the working set: vmap cannot be known to win
        monkeypatch.setattr(module, "WORKING_SET", 1)
    entry = _deferred(model, tmp_path / "first")
    assert compiles["now"] == ["vmap"], "vmap fits the budget: one compile before the run, as stock PyMC's"
    first = _choice(tmp_path / "first", entry)
    assert first["chosen"] == "vmap" and first["pending"] == list(auto_first.LATER) and "own strategy" in first["note"]
    assert auto_later.wait(600)
    done = _choice(tmp_path / "first", entry)
    full = _full(model, tmp_path / "full")
    assert "pending" not in done and done["chosen"] == full["chosen"] != "vmap"
    assert _by_strategy(done) == _by_strategy(full)


def test_a_predicted_winner_runs_first_and_the_rule_decides_later(model, tmp_path, compiles, monkeypatch):
    for module in (auto, auto_first):  # nothing fits the working set: vmap cannot be known to win
        monkeypatch.setattr(module, "WORKING_SET", 1)
    fits = auto._Search.fits  # and vmap does not fit the budget: another strategy must run
    monkeypatch.setattr(auto._Search, "fits", lambda self, meta: meta.label != "vmap" and fits(self, meta))
    entry = _deferred(model, tmp_path / "first")
    assert compiles["now"][0] == "vmap" and len(compiles["now"]) == 2
    first = _choice(tmp_path / "first", entry)
    assert first["chosen"] == compiles["now"][1] and first["pending"] and "predicted" in first["note"]
    assert auto_later.wait(600)
    done = _choice(tmp_path / "first", entry)
    full = _full(model, tmp_path / "full")
    assert "pending" not in done and done["chosen"] == full["chosen"]
    assert _by_strategy(done) == _by_strategy(full)


def test_a_run_stopped_early_leaves_a_choice_the_next_run_uses_and_completes(model, tmp_path, monkeypatch):
    queued = []
    monkeypatch.setattr(auto_first, "submit", lambda job, what: queued.append(job))  # the process "ended"
    entry = _deferred(model, tmp_path)
    assert _choice(tmp_path, entry)["pending"] and len(queued) == 1
    _deferred(model, tmp_path)
    assert len(queued) == 1, "a second run in the same process does not queue the same search again"
    queued.clear()
    auto_first._QUEUED.clear()  # the process ended before its search ran
    monkeypatch.setattr(compiler, "compile_transform", lambda *a, **k: pytest.fail("compiled before the run"))
    again = _deferred(model, tmp_path)
    assert again.cached and len(queued) == 1  # used as it is; completing it is queued
    monkeypatch.undo()
    queued[0]()
    assert "pending" not in _choice(tmp_path, entry)
    monkeypatch.setattr(auto_first, "submit", lambda job, what: pytest.fail("nothing left to complete"))
    monkeypatch.setattr(compiler, "compile_transform", lambda *a, **k: pytest.fail("a warm run compiled"))
    assert _deferred(model, tmp_path).cached


def test_precompile_completes_a_pending_choice_now(model, tmp_path, monkeypatch):
    monkeypatch.setattr(auto_first, "submit", lambda job, what: None)  # never completed in the background
    entry = _deferred(model, tmp_path)
    monkeypatch.undo()
    assert aot.precompile(model, memory_budget="1GiB", cache=str(tmp_path), **SHAPE).digest == entry.digest
    assert "pending" not in _choice(tmp_path, entry)


def test_inspect_says_which_candidates_are_not_compiled_yet(model, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(auto_first, "submit", lambda job, what: None)
    entry = _deferred(model, tmp_path)
    capsys.readouterr()
    assert main(["inspect", entry.digest[:12], "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "pending    not compiled yet: batched(1), scan_vmap, nested_scan, batched(B)" in out
    assert main(["inspect", entry.digest[:12], "--json", "--cache-dir", str(tmp_path)]) == 0
    assert "none can rank" in capsys.readouterr().out


def test_pm_sample_compiles_one_executable_first_and_nothing_warm(model, cache_dir, compiles):
    kw = {"draws": 20, "tune": 20, "chains": 2, "nuts_sampler": "numpyro", "progressbar": False, "random_seed": 3}
    runtime.enable(cache_dir=str(cache_dir))
    try:
        with model:
            cold = pm.sample(**kw)
        assert compiles["now"] == ["vmap"]
        assert auto_later.wait(600) and compiles["later"]
        runtime.clear_memo()
        compiles["now"].clear()
        with model:
            warm = pm.sample(**kw)
        assert compiles["now"] == [] and auto_later.pending() == 0
    finally:
        runtime.disable()
    for name in cold.posterior.data_vars:
        assert (cold.posterior[name].values == warm.posterior[name].values).all()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread priority is Linux's")
def test_background_work_runs_at_the_lowest_priority():
    seen = []
    auto_later.submit(lambda: seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id())), "probe")
    assert auto_later.wait(60)
    assert seen == [19] and os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) < 19
