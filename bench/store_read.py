"""What a hit's verified read costs: the store as the runtime opens it vs a read-only open.

    python bench/store_read.py [--repeats 7] [--kib 700]

One synthetic entry (random bytes standing in for an executable); each measurement is a fresh
process that has imported ``pymc_aot.cache`` (the clock starts after that): open the store,
read and verify the entry, then record the hit as the runtime does. ``read-only SQLite``
reads the same two rows through ``cache.disk.ReadOnlyDB`` (the connection a shared cache is
read with; no diskcache, no signature check): what a hit's read could cost.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import machine, median  # noqa: E402
from pymc_aot.render import Table  # noqa: E402

DIGEST = "ab" * 32


def child(directory: str, mode: str) -> dict[str, float]:
    from pymc_aot.cache import CacheStore
    from pymc_aot.cache.disk import ReadOnlyDB

    t0 = time.perf_counter()
    if mode == "read-only SQLite":
        db = ReadOnlyDB(Path(directory))
        t1 = time.perf_counter()
        assert db.get(f"meta:{DIGEST}") is not None and db.get(f"exe:{DIGEST}") is not None
        t3 = t2 = time.perf_counter()
        return {"open": t1 - t0, "read + verify": t2 - t1, "record hit": t3 - t2}
    store = CacheStore(directory)
    store.db  # noqa: B018 - opens the database
    t1 = time.perf_counter()
    assert store.get(DIGEST) is not None
    t2 = time.perf_counter()
    store.record_hit(DIGEST)
    t3 = time.perf_counter()
    return {"open": t1 - t0, "read + verify": t2 - t1, "record hit": t3 - t2}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--kib", type=int, default=700)
    opts = parser.parse_args()
    from pymc_aot.cache import CacheStore

    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": ""}
    with tempfile.TemporaryDirectory() as tmp:
        store = CacheStore(tmp)
        store.put(DIGEST, os.urandom(opts.kib * 1024), {"note": "synthetic"})
        store.close()
        runs: dict[str, list[dict[str, float]]] = {"runtime's open": [], "read-only SQLite": []}
        for _ in range(opts.repeats):
            for mode in runs:
                out = subprocess.run([sys.executable, __file__, "--child", tmp, mode], env=env, capture_output=True,
                                     text=True, check=True).stdout
                runs[mode].append(json.loads(out.strip().splitlines()[-1]))
    print(f"machine: {machine()}\nentry of {opts.kib} KiB, median of {opts.repeats} fresh processes (ms)\n")
    rows = []
    for mode, rs in runs.items():
        cells = [median([r[k] for r in rs]) for k in rs[0]]
        rows.append((mode, *(f"{1e3 * c:.1f}" for c in [*cells, sum(cells)])))
    print(Table.of(("store", "open", "read + verify", "record hit", "total"), rows).markdown())


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(child(sys.argv[2], sys.argv[3])))
    else:
        main()
