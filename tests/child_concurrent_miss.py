"""One process of ``test_concurrent_miss``: a postprocessing worker, or a reader polling the store.

    child_concurrent_miss.py worker DIR INDEX      # build, say ready, wait for go, postprocess
    child_concurrent_miss.py reader DIR            # read every entry until done; count what came

Both log pymc-aot's warnings to stdout and end with one JSON line of what they counted.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path

import numpy as np

warnings: list[str] = []


class _Keep(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            warnings.append(record.getMessage())


def _wait_for(path: Path) -> None:
    while not path.exists():
        time.sleep(0.002)


def worker(base: Path, index: int) -> dict:
    from zoo import draws_for, regression_data

    from pymc_aot import runtime

    model = regression_data()
    samples = draws_for(model, seed=4)
    runtime.get_store(str(base / "cache"))  # opened before the start: only the miss races
    (base / f"ready-{index}").touch()
    _wait_for(base / "go")
    out = runtime.postprocess(model, samples, strategy="vmap", cache=str(base / "cache"))
    np.save(base / f"mu{index}.npy", np.asarray(out["mu"]))
    return {"compiles": runtime.COUNTERS.compiles, "disk_hits": runtime.COUNTERS.disk_hits}


def reader(base: Path) -> dict:
    from pymc_aot.cache import CacheStore

    (base / "ready-reader").touch()
    _wait_for(base / "go")
    reads = found = 0
    finished = False
    while not finished:  # one more pass after the workers are done: the stored entry is read too
        finished = (base / "done").exists()
        store = CacheStore(base / "cache")
        for digest in list(store.digests()):
            entry = store.get(digest)  # verified: an entry caught half-written is a warning here
            reads += 1
            found += entry is not None
        store.close()
    return {"reads": reads, "found": found}


if __name__ == "__main__":
    logging.getLogger("pymc_aot").addHandler(_Keep())
    role, base = sys.argv[1], Path(sys.argv[2])
    counted = worker(base, int(sys.argv[3])) if role == "worker" else reader(base)
    print(json.dumps({**counted, "warnings": warnings}))
