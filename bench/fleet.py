"""A fleet on Dask: 4 workers x 16 regressions (same shapes, different data), by cache mode.

    python bench/fleet.py [--workers 4] [--models 16] [--rows 2000] [--chains 4] [--draws 1000]
    python bench/fleet.py --quick          # 2 workers x 4 models, 500 rows: a smoke run

A new ``LocalCluster`` of worker processes for each mode (fresh processes: no memo, no
counters carried over) and warmed (pymc, JAX, pymc-aot's runtime and the example
imported: a worker's start, paid once per process) before the clock starts. Per mode: the
fleet's wall time (submit to last result), the compiles and cache loads pymc-aot counted in
every worker, and where a task's time went (means: the model's build, the stand-in sampler,
postprocessing; the first postprocessing of a worker includes reading, verifying and
deserializing the executable).

**The postprocessing itself**: the same M posteriors postprocessed one after another in one
warm process (the executable already in memory, each posterior's second call timed): what
the fleet's work costs without a fleet, a cache or a start. ``wall / itself`` is the fleet's
wall time over that; below 1 the workers' parallelism paid for more than their overheads.
``wall / tasks`` compares with the whole tasks run so (the user's model build and sampler
included): what the fleet and the cache add, less what parallelism saves.
Then the bundle's size and its import time.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import time
from pathlib import Path
from statistics import mean
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
    import fleet  # noqa: F401
    import jax
    import pymc
    import pymc.sampling.jax  # noqa: F401

    import pymc_aot.runtime.transforms.engine  # noqa: F401 - what a postprocess imports first

    jax.devices()  # JAX's backend started, as in any process that has run JAX once


def _bundle_cost(fleet: Any, base: Path, rows: int, chains: int, draws: int) -> tuple[int, float]:
    from pymc_aot.cache import CacheStore
    from pymc_aot.cache.transfer import import_bundle

    fleet.prepare("bundle", base, rows, 20, chains, draws)
    bundle = base / "fleet.pmaot"
    start = time.perf_counter()
    import_bundle(CacheStore(base / "imported"), bundle, base / "keys" / "cache-public-key.pem")
    return bundle.stat().st_size, time.perf_counter() - start


def postprocess_itself(fleet: Any, models: int, rows: int, chains: int, draws: int, cache: Path) -> tuple[float, float]:
    """Seconds to postprocess the fleet's ``models`` posteriors one after another in this warm
    process (each model's second call: the executable in memory, nothing read or compiled),
    and to run its whole tasks so (the model's build and the stand-in sampler too)."""
    import jax

    from pymc_aot import runtime

    os.environ["PYMC_AOT_CACHE_DIR"] = str(cache)
    itself = tasks = 0.0
    for seed in range(models):
        start = time.perf_counter()
        model = fleet.regression(seed, rows, 20)
        samples = fleet.draws_for(model, seed, chains, draws)
        built = time.perf_counter()
        jax.block_until_ready(runtime.postprocess(model, samples, strategy="vmap"))
        again = time.perf_counter()
        jax.block_until_ready(runtime.postprocess(model, samples, strategy="vmap"))  # computed, not queued
        done = time.perf_counter()
        itself += done - again
        tasks += built - start + done - again
    return itself, tasks


def _breakdown(out: dict[str, Any]) -> dict[str, float]:
    """Means over the tasks (key: fingerprint and key; read and deserialize: over the tasks that
    read the cache or compiled), and the time no worker spent in a task (Dask, idle)."""
    results = out["results"]
    busy: dict[int, float] = {}
    for r in results:
        busy[r["worker"]] = busy.get(r["worker"], 0.0) + r["ended"] - r["started"]
    loads = [r["phases"] for r in results if "deserialize" in r["phases"]] or [{}]
    return {
        "build": mean(r["build"] for r in results), "draws": mean(r["draws"] for r in results),
        "postprocess": mean(r["seconds"] for r in results), "outside": out["wall"] - max(busy.values()),
        "key": mean(r["phases"].get("fingerprint", 0) + r["phases"].get("key", 0) for r in results),
        "read": mean(p.get("read", p.get("compile", 0)) for p in loads),
        "deserialize": mean(p.get("deserialize", 0) for p in loads),
    }  # fmt: skip


def run_modes(fleet: Any, args: argparse.Namespace, tmp: Path) -> list[dict[str, Any]]:
    """Every mode on its own new ``LocalCluster`` (fresh worker processes; ``client.restart()``
    lost its workers on this loaded machine), warmed before the clock starts."""
    from dask.distributed import Client, LocalCluster

    outs = []
    for mode in fleet.MODES:
        with LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=None) as cluster:
            with Client(cluster) as client:
                client.wait_for_workers(args.workers, timeout=900)
                client.run(_warm)
                out = fleet.run_fleet(client, mode, args.models, args.rows, 20, tmp / mode, args.chains, args.draws)
                outs.append(out)
    return outs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--models", type=int, default=16)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.workers, args.models, args.rows = 2, 4, 500
    fleet = _fleet_module()
    with tempfile.TemporaryDirectory() as tmp:
        outs = run_modes(fleet, args, Path(tmp))
        itself, tasks = postprocess_itself(fleet, args.models, args.rows, args.chains, args.draws, Path(tmp) / "itself")
        size, seconds = _bundle_cost(fleet, Path(tmp) / "cost", args.rows, args.chains, args.draws)
    headers = ["mode", "wall s", "wall / itself", "wall / tasks", "compiles", "cache loads", "task: build s",
               "stand-in sampler s", "postprocess s", "of it: key ms", "read (or compile) ms", "deserialize ms",
               "outside tasks s"]
    rows = []
    for out in outs:
        b = _breakdown(out)
        rows.append([out["mode"], f"{out['wall']:.2f}", f"{out['wall'] / itself:.2f}",
                     f"{out['wall'] / tasks:.2f}", str(out["compiles"]),
                     str(out["disk_hits"]), f"{b['build']:.3f}", f"{b['draws']:.3f}", f"{b['postprocess']:.3f}",
                     f"{1000 * b['key']:.0f}", f"{1000 * b['read']:.0f}", f"{1000 * b['deserialize']:.0f}",
                     f"{b['outside']:.2f}"])
    print(f"fleet: {args.workers} workers x {args.models} models, {args.rows} rows x 20 columns, "
          f"{args.chains} chains x {args.draws} draws; {os.cpu_count()} CPUs")
    print(f"the postprocessing itself (warm, one process, {args.models} posteriors in a row): {itself:.2f} s; "
          f"the whole tasks so (model build and stand-in sampler too): {tasks:.2f} s")
    print(Table.of(headers, rows).text())
    print(f"bundle: {size / 1024:.0f} KiB, imported (verified and stored) in {seconds * 1000:.0f} ms")


if __name__ == "__main__":
    main()
