"""A warm pm.sample on the compiled sampler skips what need not happen before its first draw:
PyMC's step-method assignment (answered from a stored record) and the loading of the stored
programs in line (done in a thread while PyMC prepares the run). Same answers, same draws."""

from __future__ import annotations

import threading

import numpy as np
import pymc as pm
import pytest
from zoo import regression_data

from pymc_aot import runtime
from pymc_aot.runtime.sampler import session
from pymc_aot.runtime.sampler.counts import COUNTS

pytestmark = pytest.mark.slow  # pm.sample runs of the compiled sampler


def _sample(model, sampler="numpyro", **kw):
    kw = {"draws": 40, "tune": 40, "chains": 2, "random_seed": 3, "progressbar": False,
          "compute_convergence_checks": False, **kw}
    with model:
        return pm.sample(nuts_sampler=sampler, **kw)


def _as_pymc_sample(nuts_sampler):
    """A function named ``sample`` in ``pymc.sampling.mcmc``'s namespace that asks as pm.sample does."""
    ns = {"__name__": "pymc.sampling.mcmc", "pm": pm, "mcmc": pm.sampling.mcmc}
    exec(
        "def sample(model, nuts_sampler):\n"
        "    return mcmc.assign_step_methods(model, None, methods=pm.STEP_METHODS)\n",
        ns,
    )
    return lambda model: ns["sample"](model, nuts_sampler)


def _counts():
    return COUNTS["steps_asked"], COUNTS["steps_recorded"]


def test_the_step_methods_come_from_the_record_with_pymcs_own_answer(cache_dir):
    real = pm.sampling.mcmc.assign_step_methods
    model = regression_data()
    with runtime.enabled(strategy="vmap"):
        ask = _as_pymc_sample("numpyro")
        asked, served = _counts()
        first = ask(model)  # PyMC's function answers, and the answer is recorded
        second = ask(model)  # the record answers: no logp and gradients built
        assert _counts() == (asked + 1, served + 1)
        assert second == first == real(model, None, methods=pm.STEP_METHODS)
        other = regression_data()  # the same model built again: the record, with its own variables
        assert ask(other) == real(other, None, methods=pm.STEP_METHODS)
        assert _counts() == (asked + 1, served + 2)
        _as_pymc_sample("pymc")(model)  # PyMC's own NUTS never reaches the record
        assert _counts() == (asked + 1, served + 2)


def test_a_warm_pm_sample_skips_the_step_methods_and_draws_the_same(cache_dir):
    model = regression_data()
    with runtime.enabled(strategy="vmap", chunk_size=25):
        asked, served = _counts()
        cold = _sample(model)
        warm = _sample(model)
    assert _counts() == (asked + 1, served + 1)
    for name in ("beta", "sigma"):
        np.testing.assert_array_equal(cold.posterior[name].values, warm.posterior[name].values)


def test_a_model_pymc_refuses_for_nuts_is_still_refused(cache_dir):
    asked, served = _counts()
    with pm.Model() as model:
        pm.Poisson("k", 3.0)
        pm.Normal("x", 0, 1)
    with runtime.enabled(strategy="vmap"):
        for _ in range(2):  # nothing is recorded for an answer other than NUTS for every variable
            with pytest.raises(ValueError, match=r"NUTS|differentiable"):
                _sample(model)
    assert _counts() == (asked + 2, served)


@pytest.mark.parametrize("sampler", ["numpyro", "blackjax"])
def test_the_programs_are_loaded_ahead_of_the_samplers_call(sampler, cache_dir, monkeypatch):
    model = regression_data()
    monkeypatch.setattr(session, "_MEMO", {})  # programs of earlier tests' caches: compiled into this one
    with runtime.enabled(strategy="vmap", chunk_size=25):
        cold = _sample(model, sampler)
        monkeypatch.setattr(session, "_MEMO", {})  # as in a fresh process: only the store has them
        asked, real = [], session.programs_for

        def spy(model, settings, point, names):
            keys = session.sampler_keys(model, settings, point, names)
            asked.append([k.digest in session._MEMO or k.digest in session._PENDING for k in keys])
            return real(model, settings, point, names)

        monkeypatch.setattr(session, "programs_for", spy)
        loaded, compiled = COUNTS["loaded"], COUNTS["compiled"]
        warm = _sample(model, sampler)
    assert asked and all(all(found) for found in asked)  # logp, then init and chunk: already on their way
    assert COUNTS["loaded"] == loaded + 3 and COUNTS["compiled"] == compiled
    assert not session._PENDING
    # each program loaded ahead was the one asked for; the logp is not asked for when the initial
    # points come from the store (an exact repeat: start.py), and nothing else stays unclaimed
    assert len(session._AHEAD) <= 1 and all(d in session._MEMO for d in session._AHEAD)
    np.testing.assert_array_equal(cold.posterior["beta"].values, warm.posterior["beta"].values)


def _failing_in_the_prefetch_thread(real, exc):
    """``real``, raising ``exc`` when the prefetch thread calls it."""

    def broken(*args, **kwargs):
        if threading.current_thread().name == "pymc-aot-prefetch":
            raise exc
        return real(*args, **kwargs)

    return broken


def test_a_failed_load_ahead_releases_its_claims(cache_dir, monkeypatch):
    from pymc_aot.aot.sampler import resolve

    model = regression_data()
    with runtime.enabled(strategy="vmap", chunk_size=25):
        cold = _sample(model)
        monkeypatch.setattr(session, "_MEMO", {})

        broken = _failing_in_the_prefetch_thread(resolve.load_stored, OSError("disk went away"))
        monkeypatch.setattr(resolve, "load_stored", broken)  # the thread fails; the sampler's call loads
        warm = _sample(model)
    assert not session._PENDING
    np.testing.assert_array_equal(cold.posterior["beta"].values, warm.posterior["beta"].values)


def test_an_exact_repeat_gets_pymcs_own_initial_points_from_the_store(cache_dir):
    import pymc.sampling.jax as pymc_jax

    from pymc_aot.runtime.sampler import start

    model = regression_data()
    with runtime.enabled(strategy="vmap"):
        ours, pymcs = pymc_jax._get_batched_jittered_initial_points, start._ORIGINAL[start.NAME]
        served = COUNTS["start_recorded"]
        for chains in (2, 1):
            first = ours(model=model, chains=chains, initvals=None, random_seed=11)
            again = ours(model=model, chains=chains, initvals=None, random_seed=11)
            stock = pymcs(model=model, chains=chains, initvals=None, random_seed=11)
            assert len(first) == len(again) == len(stock) == 2
            for a, b, c in zip(first, again, stock, strict=True):
                np.testing.assert_array_equal(a, c)
                np.testing.assert_array_equal(b, c)
                assert b.dtype == c.dtype and b.shape == c.shape
        assert COUNTS["start_recorded"] == served + 2
        ours(model=model, chains=2, initvals=None, random_seed=12)  # another seed: PyMC's function
        assert COUNTS["start_recorded"] == served + 2
        with model:
            pm.set_data({"x": model["x"].get_value() * 2.0})  # new data: PyMC's function answers again
        ours(model=model, chains=2, initvals=None, random_seed=11)
        ours(model=model, chains=2, initvals={"beta": np.zeros(3)}, random_seed=11)  # initvals: never stored
        assert COUNTS["start_recorded"] == served + 2


@pytest.mark.parametrize("sampler", ["numpyro", "blackjax"])
def test_a_cold_run_compiles_its_programs_ahead_while_pymc_prepares(sampler, cache_dir, monkeypatch):
    """On a miss the prefetch thread compiles the programs: the sampler's call (and PyMC's start
    point check, which asks for ``logp``) finds them in the memo, compiled once each."""
    model = regression_data()
    monkeypatch.setattr(session, "_MEMO", {})
    where, real = [], session.fetch_or_compile

    def spy(model, fingerprint, keys, *args, **kwargs):
        keys = list(keys)
        where.append((threading.current_thread().name, sorted(k.program for k in keys)))
        return real(model, fingerprint, keys, *args, **kwargs)

    monkeypatch.setattr(session, "fetch_or_compile", spy)  # the thread's compile and the in-line one
    with runtime.enabled(strategy="vmap", chunk_size=25):
        compiled, loaded = COUNTS["compiled"], COUNTS["loaded"]
        cold = _sample(model, sampler)
        assert where == [("pymc-aot-prefetch", ["chunk", "init", "logp"])]  # nothing compiled in line
        assert COUNTS["compiled"] == compiled + 3 and COUNTS["loaded"] == loaded
        assert not session._PENDING
        monkeypatch.setattr(session, "_MEMO", {})
        warm = _sample(model, sampler)  # from the store the cold run filled
    assert len(where) == 1 and COUNTS["compiled"] == compiled + 3 and COUNTS["loaded"] == loaded + 3
    np.testing.assert_array_equal(cold.posterior["beta"].values, warm.posterior["beta"].values)


def test_a_failed_compile_ahead_leaves_the_compile_to_the_samplers_call(cache_dir, monkeypatch):
    model = regression_data()
    monkeypatch.setattr(session, "_MEMO", {})
    broken = _failing_in_the_prefetch_thread(session.fetch_or_compile, MemoryError("the thread ran out"))
    monkeypatch.setattr(session, "fetch_or_compile", broken)
    with runtime.enabled(strategy="vmap", chunk_size=25):
        compiled = COUNTS["compiled"]
        cold = _sample(model)
        assert COUNTS["compiled"] == compiled + 3 and not session._PENDING
        monkeypatch.setattr(session, "_MEMO", {})
        warm = _sample(model)
    np.testing.assert_array_equal(cold.posterior["beta"].values, warm.posterior["beta"].values)


@pytest.mark.parametrize("late", [False, True], ids=["before-lowering", "after-lowering"])
def test_a_call_the_preflight_refuses_compiles_no_sampler(cache_dir, monkeypatch, late):
    """The compile ahead waits for the postprocessing's preflight: a refusal compiles nothing. The
    call goes on once the preflight's transform is lowered; a refusal that comes after that (the
    transform's XLA compile, its memory analysis) still stops the call before any draw, and the
    sampler's programs, lowered meanwhile, are not compiled."""
    import time

    import pymc_aot.runtime.pymc.preflight
    from pymc_aot.aot.build.request import AFTER_LOWERING
    from pymc_aot.aot.strategies.budget import MemoryBudgetError

    def refuse(*args, **kwargs):
        if late:
            AFTER_LOWERING.get()()  # as compile_transform does once the transform is lowered
            time.sleep(0.5)  # its XLA compile
        raise MemoryBudgetError("x needs 2 GiB; the budget is 1 GiB")

    drew = []
    monkeypatch.setattr(session, "_MEMO", {})
    monkeypatch.setattr(pymc_aot.runtime.pymc.preflight, "preflight", refuse)
    monkeypatch.setattr(session, "run_compiled", lambda *a, **k: drew.append(True))
    with runtime.enabled(strategy="vmap", chunk_size=25):
        compiled = COUNTS["compiled"]
        with pytest.raises(MemoryBudgetError, match="budget is 1 GiB"):
            _sample(regression_data())
        for thread in threading.enumerate():
            if thread.name == "pymc-aot-prefetch":
                thread.join()
    assert COUNTS["compiled"] == compiled and not session._PENDING and not drew


def test_the_start_point_check_runs_the_logp_program_cold_and_warm(cache_dir, monkeypatch):
    """PyMC checks each chain's jittered start point with ``get_jaxified_logp``'s function: the
    ``logp`` program answers, compiled in this process (cold) or loaded (warm), and equals PyMC's
    logp; PyMC's own function (eager JAX: on an LKJ model ~90 small XLA compiles, seconds of a cold
    run) is never built. A program compiled here once gave its one output unwrapped, the check
    failed on it and fell back to PyMC's function without a word."""
    from zoo import lkj

    from pymc_aot.runtime.sampler.seams import LazyLogp

    built, real = [], LazyLogp.original
    monkeypatch.setattr(LazyLogp, "original", lambda self: built.append(self) or real(self))
    monkeypatch.setattr(session, "_MEMO", {})
    with runtime.enabled(strategy="vmap", chunk_size=25):
        cold = _sample(regression_data())  # the logp program compiled ahead, in this process
        monkeypatch.setattr(session, "_MEMO", {})
        warm = _sample(regression_data())  # loaded
        assert built == []
        model = lkj()
        point = model.initial_point()
        values = [point[v.name] for v in model.value_vars]
        expected = model.compile_logp()(point)
        compiled = COUNTS["compiled"]
        assert session.logp_at(model, values) == pytest.approx(expected, rel=1e-6)  # compiled in line
        assert COUNTS["compiled"] == compiled + 1
        monkeypatch.setattr(session, "_MEMO", {})
        assert session.logp_at(model, values) == pytest.approx(expected, rel=1e-6)  # loaded
    np.testing.assert_array_equal(cold.posterior["beta"].values, warm.posterior["beta"].values)


def test_a_cold_run_lowers_its_sampler_before_autos_background_candidates(cache_dir, monkeypatch):
    """On a miss the prefetch thread does nothing until the preflight has lowered its transform
    (its chain keys' compile once slowed the preflight under the one GIL), and compiles nothing
    before the preflight's verdict; the call itself goes on once the transform is lowered, its XLA
    compile beside PyMC's work. ``auto``'s background candidates wait until the sampler's programs
    are lowered (Python work under the GIL, on the first draw's path); they then compile while XLA
    compiles the sampler's programs, not during sampling, where they had slowed the chains. Of
    those programs, chunk (the longest) is lowered before init, whose work then overlaps chunk's
    compile."""
    import time

    from pymc_aot.aot.build import compiler
    from pymc_aot.aot.choice import auto_later
    from pymc_aot.aot.sampler import build
    from pymc_aot.runtime.pymc import preflight
    from pymc_aot.runtime.sampler import prefetch

    events: list[tuple[str, float]] = []

    def timed(module, name, start, end=None, thread=None):
        real = getattr(module, name)

        def spy(*args, **kwargs):
            here = thread is None or threading.current_thread().name.startswith(thread)
            if here and start:
                events.append((start, time.perf_counter()))
            try:
                return real(*args, **kwargs)
            finally:
                if here and end:
                    events.append((end, time.perf_counter()))

        monkeypatch.setattr(module, name, spy)

    timed(preflight, "preflight", None, "preflight over")
    timed(prefetch.Gate, "lower", "preflight lowered")
    went_on, begin, compile_transform = threading.Event(), preflight.begin, compiler.compile_transform
    waited: list[bool] = []

    def begin_and_note(*args, **kwargs):
        try:
            return begin(*args, **kwargs)
        finally:
            events.append(("call goes on", time.perf_counter()))
            went_on.set()

    def compile_until_the_call_went_on(*args, **kwargs):  # deadlocks (60 s) if the call waited for it
        result = compile_transform(*args, **kwargs)
        if threading.current_thread().name == "pymc-aot-preflight":
            events.append(("transform compiled", time.perf_counter()))
            waited.append(went_on.wait(60))
        return result

    monkeypatch.setattr(preflight, "begin", begin_and_note)
    monkeypatch.setattr(compiler, "compile_transform", compile_until_the_call_went_on)
    timed(session, "chain_keys", "chain keys", None, thread="pymc-aot-prefetch")
    timed(build, "finish_program", "sampler compile starts")
    timed(session, "compile_ahead", None, "sampler compiled")
    timed(compiler, "compile_transform", None, "candidate compiled", thread="pymc-aot-later")
    timed(auto_later, "release", "released", None, thread="pymc-aot-prefetch")
    lowered, lower = [], build.lower_program

    def lower_and_note(b, key, *a):
        lowered.append(key.program)
        try:
            return lower(b, key, *a)
        finally:
            events.append(("sampler lowered", time.perf_counter()))

    monkeypatch.setattr(build, "lower_program", lower_and_note)
    monkeypatch.setattr(session, "_MEMO", {})
    with runtime.enabled(chunk_size=25):  # auto: vmap now, the other candidates in the background
        _sample(regression_data())
        assert auto_later.wait(600)
    at = {}
    for what, t in events:
        at.setdefault(what, []).append(t)
    assert waited == [True]  # vmap, compiled in the preflight's thread while the call went on
    assert at["preflight lowered"][0] <= at["call goes on"][0] <= at["transform compiled"][0]
    assert at["preflight lowered"][0] < at["chain keys"][0]
    assert at["preflight over"][0] < min(at["sampler compile starts"])
    assert len(at["released"]) == 1  # once, though both the last lowering and the thread's end release
    assert max(at["sampler lowered"]) < at["released"][0] < at["sampler compiled"][0]
    assert at["candidate compiled"] and min(at["candidate compiled"]) > max(at["sampler lowered"])
    assert lowered == ["logp", "chunk", "init"]
