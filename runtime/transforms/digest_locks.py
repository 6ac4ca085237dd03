"""One lock per cache digest, so one thread resolves a digest while the others wait."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator


class DigestLocks:
    """One lock per digest, kept while a thread holds or waits for it."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, list[int]]] = {}

    @contextlib.contextmanager
    def hold(self, digest: str) -> Iterator[None]:
        with self._guard:
            lock, users = self._locks.setdefault(digest, (threading.Lock(), [0]))
            users[0] += 1
        try:
            with lock:
                yield
        finally:
            with self._guard:
                users[0] -= 1
                if not users[0]:
                    del self._locks[digest]
