"""The runtime's state: one compile per digest across threads, stores closed, entries of another schema dropped."""

from __future__ import annotations

import gc
import logging
import threading
import time

from reference import assert_same, pymc_posterior
from zoo import draws_for, scalars

from pymc_aot import aot, runtime
from pymc_aot.cache import CacheStore
from pymc_aot.runtime.transforms.engine import TransformCache


def test_two_threads_postprocessing_one_new_model_compile_once(cache_dir, monkeypatch):
    model = scalars()
    samples = draws_for(model)
    real = aot.build.compiler.compile_transform

    def slow_compile(*args, **kwargs):
        time.sleep(0.5)  # keep the door open: without the per-digest lock the other thread compiles too
        return real(*args, **kwargs)

    monkeypatch.setattr(aot.build.compiler, "compile_transform", slow_compile)
    start = threading.Barrier(2)
    results: dict[int, dict] = {}
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            start.wait()
            results[i] = runtime.postprocess(model, [s.copy() for s in samples], strategy="vmap")
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    before = runtime.COUNTERS.compiles
    events = len(runtime.COUNTERS.events)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors
    assert runtime.COUNTERS.compiles - before == 1
    assert sorted(what for what, _ in runtime.COUNTERS.events[events:]) == ["compile", "memo"]
    expected = pymc_posterior(model, samples)
    for i in range(2):
        assert_same(results[i], expected)


def test_a_dropped_cache_closes_its_stores(tmp_path):
    cache = TransformCache()
    store = cache.store(tmp_path / "cache")
    assert cache.store(tmp_path / "cache") is store, "one store per directory"
    closed: list[int] = []
    store.close = lambda: closed.append(1)  # type: ignore[method-assign]
    del cache
    gc.collect()
    assert closed == [1]


def test_entries_of_another_schema_are_dropped_and_rebuilt(cache_dir, caplog):
    model = scalars()
    entry = aot.precompile(model, chains=2, draws=7, strategy="vmap")
    store = CacheStore(cache_dir)
    payload, doc = store.get(entry.digest)
    assert store.put(entry.digest, payload, {**doc, "schema": 99})  # validly signed, unknown layout
    runtime.clear_memo()
    samples = draws_for(model)
    with caplog.at_level(logging.WARNING, logger="pymc_aot"):
        got = runtime.postprocess(model, samples, strategy="vmap")
    assert "schema 99" in caplog.text and runtime.COUNTERS.last_source == "compile"
    assert_same(got, pymc_posterior(model, samples))
    assert store.metadata(entry.digest)["schema"] == 1, "rebuilt in the current schema"
