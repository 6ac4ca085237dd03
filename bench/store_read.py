"""What a hit's verified read costs: through diskcache, through the hit path, and the bare floor.

    python bench/store_read.py [--repeats 7] [--kib 700]

One synthetic entry (random bytes standing in for an executable); each measurement is a fresh
process that has imported ``pymc_aot.cache`` (the clock starts after that): open the store,
read and verify the entry, then record the hit.

diskcache         the store opened through diskcache first (every read before the hit path),
                  then the verified read and the hit record (a diskcache write)
hit path          ``CacheStore.get`` as a hit runs it now: a read-only SQLite connection, the
                  same verification; the hit record is queued for a background thread
read-only SQLite  the two rows through ``cache.readonly.ReadOnlyDB`` alone (no signature or
                  digest check): the floor
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
    from pymc_aot.cache.readonly import ReadOnlyDB

    t0 = time.perf_counter()
    if mode == "read-only SQLite":
        db = ReadOnlyDB(Path(directory))
        t1 = time.perf_counter()
        assert db.get(f"meta:{DIGEST}") is not None and db.get(f"exe:{DIGEST}") is not None
        t3 = t2 = time.perf_counter()
        return {"open": t1 - t0, "read + verify": t2 - t1, "record hit": t3 - t2}
    store = CacheStore(directory)
    if mode == "diskcache":
        store.db  # noqa: B018 - opens diskcache, as every read did before the read-only hit path
    t1 = time.perf_counter()
    assert store.get(DIGEST) is not None
    t2 = time.perf_counter()
    if mode == "diskcache":
        store.record_hit(DIGEST)
    else:
        store.record_hit_later(DIGEST)  # written 0.1 s later on a background thread
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
        runs: dict[str, list[dict[str, float]]] = {"diskcache": [], "hit path": [], "read-only SQLite": []}
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
