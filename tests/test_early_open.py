"""The store is opened in the background while a run fingerprints its model: once, and waited for."""

from __future__ import annotations

import threading
import time

from zoo import draws_for, scalars

from pymc_aot.cache import CacheStore
from pymc_aot.runtime.transform_cache import TransformCache


def _slow_opens(monkeypatch) -> list[str]:
    """Make every store open take 0.3 s and record which thread did it."""
    opened: list[str] = []
    real = CacheStore._open

    def slow_open(self):
        opened.append(threading.current_thread().name)
        time.sleep(0.3)  # long enough for a run to reach the store while it is still opening
        return real(self)

    monkeypatch.setattr(CacheStore, "_open", slow_open)
    return opened


def test_concurrent_runs_open_a_store_once_in_the_background(tmp_path, monkeypatch):
    opened = _slow_opens(monkeypatch)
    cache, model = TransformCache(), scalars()
    samples = draws_for(model)
    start = threading.Barrier(3)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            start.wait()
            cache.run(model, [s.copy() for s in samples], strategy="vmap", cache=str(tmp_path))
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cache.close()
    assert not errors, errors
    assert opened == ["pymc-aot-open-store"], opened  # one open, by the background opener
    assert cache.counters.compiles == 1 and len(CacheStore(tmp_path).entries()) == 1


def test_the_store_accessor_waits_for_a_background_open(tmp_path, monkeypatch):
    opened = _slow_opens(monkeypatch)
    cache = TransformCache()
    store = cache._store(str(tmp_path))
    cache._opener.start(store)
    assert cache.store(str(tmp_path)) is store
    assert store.metadata("0" * 64) is None  # reads the database the opener made
    assert opened == ["pymc-aot-open-store"]
    cache.close()
