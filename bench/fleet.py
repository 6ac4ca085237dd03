"""A fleet on Dask: 4 workers x 16 regressions (same shapes, different data), by cache mode.

    python bench/fleet.py [--workers 4] [--models 16] [--rows 2000]
    python bench/fleet.py --quick          # 2 workers x 4 models, 500 rows: a smoke run

One ``LocalCluster`` of worker processes, restarted before each mode (fresh processes: no
memo, no counters carried over) and warmed (pymc, JAX and pymc-aot imported) before the
clock starts. Per mode: the fleet's wall time, the postprocessing time the workers measured
(summed; per worker it is what the fleet's wall time is compared with), and the compiles and
cache loads counted by pymc-aot in every worker. Then the bundle's size and its import time.
Modes are those of ``examples/fleet.py``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pymc_aot.render import Table  # noqa: E402


def _fleet_module() -> Any:
    """examples/fleet.py as the module ``fleet``; worker processes are spawned with this
    ``sys.path`` (multiprocessing passes it on), so they import it by name too."""
    sys.path.insert(0, str(ROOT / "examples"))
    return importlib.import_module("fleet")


def _warm() -> None:
    import pymc
    import pymc.sampling.jax  # noqa: F401

    import pymc_aot.runtime  # noqa: F401


def _bundle_cost(fleet: Any, base: Path, rows: int) -> tuple[int, float]:
    from pymc_aot.cache import CacheStore
    from pymc_aot.cache.transfer import import_bundle

    fleet.prepare("bundle", base, rows, 20)
    bundle = base / "fleet.pmaot"
    start = time.perf_counter()
    import_bundle(CacheStore(base / "imported"), bundle, base / "keys" / "cache-public-key.pem")
    return bundle.stat().st_size, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--models", type=int, default=16)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.workers, args.models, args.rows = 2, 4, 500
    fleet = _fleet_module()
    from dask.distributed import Client, LocalCluster

    headers = ["mode", "wall s", "postprocess s (sum)", "per worker s", "compiles", "cache loads"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp, LocalCluster(n_workers=args.workers, threads_per_worker=1) as cluster:
        with Client(cluster) as client:
            for mode in fleet.MODES:
                client.restart()
                client.run(_warm)
                out = fleet.run_fleet(client, mode, args.models, args.rows, 20, Path(tmp) / mode)
                rows.append([mode, f"{out['wall']:.2f}", f"{out['postprocess']:.2f}",
                               f"{out['postprocess'] / out['workers']:.2f}", str(out["compiles"]),
                               str(out["disk_hits"])])
        size, seconds = _bundle_cost(fleet, Path(tmp) / "cost", args.rows)
    print(f"fleet: {args.workers} workers x {args.models} models, {args.rows} rows x 20 columns, "
          f"{fleet.CHAINS} chains x {fleet.DRAWS} draws")
    print(Table.of(headers, rows).text())
    print(f"bundle: {size / 1024:.0f} KiB, imported (verified and stored) in {seconds * 1000:.0f} ms")


if __name__ == "__main__":
    main()
