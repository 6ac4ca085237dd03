"""Open a store's database in the background while the model is fingerprinted and keyed.

Opening the store (diskcache's settings, tables and pragmas: a few dozen SQLite statements)
costs a hit about as much as the fingerprint and the key together, and needs neither: the two
overlap. A run waits for the opener before it touches the store, so the store is never opened
twice; if opening fails, the run's own access fails the same way and reports it.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any


class EarlyOpener:
    """One background open per store; :meth:`wait` before using it."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._threads: weakref.WeakKeyDictionary[Any, threading.Thread] = weakref.WeakKeyDictionary()

    def start(self, store: Any) -> None:
        """Begin opening ``store``'s database unless that has begun already."""
        if store is None:
            return
        with self._guard:
            if store in self._threads:
                return
            thread = threading.Thread(target=_open, args=(store,), name="pymc-aot-open-store", daemon=True)
            thread.start()  # before another run can find it to join
            self._threads[store] = thread

    def wait(self, store: Any) -> None:
        """Return once ``store``'s background open (if any) has finished."""
        if store is None:
            return
        with self._guard:
            thread = self._threads.get(store)
        if thread is not None:
            thread.join()


def _open(store: Any) -> None:
    try:
        store.db  # noqa: B018 - the property opens the database
    except Exception:  # noqa: BLE001 - the run's own access raises and reports it
        pass
