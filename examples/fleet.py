"""A fleet of Dask workers postprocessing M models of one structure, each with its own data.

Precompile once, ship the cache as a signed bundle (or push it to object storage), and the
workers compile nothing: every worker reads the precompiled executable, verified with the
operator's public key. The same code runs on a real ``dask.distributed`` cluster: pass its
scheduler address instead of starting a ``LocalCluster``.

    python examples/fleet.py --workers 4 --models 16 --mode bundle
    python examples/fleet.py --mode remote            # PYMC_AOT_CACHE_REMOTE=file://... here; s3://... on a cluster
    python examples/fleet.py --mode per-worker        # no shared cache: every worker compiles

Modes: ``none`` (no cache: every model compiles), ``per-worker`` (each worker its own empty
cache), ``shared`` (a shared read-only directory), ``bundle`` (one signed file, read in place),
``remote`` (a remote tier; each worker's local cache starts empty). Compiles are counted with
pymc-aot's own counters in every worker and summed over the fleet.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

MODES = ("none", "per-worker", "shared", "bundle", "remote")
CHAINS, DRAWS = 4, 1000  # pm.sample's defaults: the posterior a user postprocesses


def regression(seed: int, n: int, p: int, groups: int = 5) -> Any:
    """One store's (region's, product's) regression: same shapes for every seed, its own data."""
    import pymc as pm

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    group = rng.integers(0, groups, size=n)
    y = X @ rng.normal(size=p) * 0.1 + rng.normal(size=groups)[group] + rng.normal(size=n)
    with pm.Model() as model:
        x = pm.Data("x", X)
        g = pm.Data("group", group)
        y_obs = pm.Data("y_obs", y)  # data, not a constant: one structure, one executable for every store
        beta = pm.Normal("beta", 0, 1, shape=p)
        group_sd = pm.HalfNormal("group_sd", 1)
        group_effect = pm.Normal("group_effect", 0, group_sd, shape=groups)
        sigma = pm.HalfNormal("sigma", 1)
        mu = pm.Deterministic("mu", x @ beta + group_effect[g])
        pm.Normal("y", mu, sigma, observed=y_obs, shape=x.shape[0])
    return model


def draws_for(model: Any, seed: int, chains: int = CHAINS, draws: int = DRAWS) -> list[np.ndarray]:
    """Stand-in raw draws (unconstrained, ``(chains, draws, *shape)``), as a sampler returns them.

    Shapes come from the model's graph (``value_shapes`` folds them); ``model.initial_point()``
    would compile a PyTensor function for every model, which a real sampler has done anyway."""
    from pymc_aot.aot.build.value_shapes import value_shapes

    rng = np.random.default_rng(seed)
    shapes = value_shapes(model)
    return [
        rng.normal(scale=0.3, size=(chains, draws, *shape)).astype(model.rvs_to_values[rv].dtype)
        for rv, shape in zip(model.free_RVs, shapes, strict=True)
    ]


def fit_one(seed: int, n: int, p: int, env: dict[str, str], chains: int = CHAINS, draws: int = DRAWS) -> dict[str, Any]:
    """One task on a worker: build model ``seed``, postprocess its draws through pymc-aot.

    Returns the result's mean, what pymc-aot counted, and where the task's time went: the
    model's build, the stand-in sampler, the postprocessing (and its phases: fingerprint, key,
    cache read and verify, deserialize, call), with wall-clock start and end for the fleet."""
    started, pid = time.time(), os.getpid()
    os.environ.update({k: v.format(pid=pid, seed=seed) for k, v in env.items()})
    import jax

    from pymc_aot import runtime

    if env.get("FLEET_NO_CACHE"):
        runtime.clear_memo()  # no cache at all: every model compiles
    t0 = time.perf_counter()
    model = regression(seed, n, p)
    t1 = time.perf_counter()
    samples = draws_for(model, seed, chains, draws)
    before = runtime.COUNTERS.compiles, runtime.COUNTERS.disk_hits
    t2 = time.perf_counter()
    result = jax.block_until_ready(runtime.postprocess(model, samples, strategy="vmap"))  # computed, not queued
    t3 = time.perf_counter()
    return {
        "seed": seed, "worker": pid, "seconds": t3 - t2, "build": t1 - t0, "draws": t2 - t1,
        "phases": dict(runtime.COUNTERS.last_phases), "started": started, "ended": time.time(),
        "mu_mean": float(np.mean(result["mu"])),
        "compiles": runtime.COUNTERS.compiles - before[0], "disk_hits": runtime.COUNTERS.disk_hits - before[1],
    }  # fmt: skip


def prepare(mode: str, base: Path, n: int, p: int, chains: int = CHAINS, draws: int = DRAWS) -> dict[str, str]:
    """Precompile once (operator) and return the workers' cache settings for ``mode``."""
    if mode == "none":
        return {"PYMC_AOT_CACHE_DIR": str(base / "none-{pid}-{seed}"), "FLEET_NO_CACHE": "1"}
    if mode == "per-worker":
        return {"PYMC_AOT_CACHE_DIR": str(base / "worker-{pid}")}
    from pymc_aot import aot
    from pymc_aot.cache import CacheStore, generate_keypair

    private, public = generate_keypair(base / "keys")
    operator = CacheStore(base / "operator", signing_key=private)
    aot.precompile(regression(0, n, p), chains=chains, draws=draws, strategy="vmap", cache=operator)
    read_only = {"PYMC_AOT_CACHE_READONLY": "1", "PYMC_AOT_CACHE_PUBLIC_KEY": str(public)}
    if mode == "shared":
        return {"PYMC_AOT_CACHE_DIR": str(operator.directory), **read_only}
    if mode == "bundle":
        from pymc_aot.cache.transfer import export_bundle

        export_bundle(operator, base / "fleet.pmaot", private)
        return {"PYMC_AOT_CACHE_DIR": str(base / "fleet.pmaot"), **read_only}
    from pymc_aot.cache.remote import RemoteTier
    from pymc_aot.cache.signing import Ed25519Signer, load_private_key

    tier, signer = RemoteTier(f"file://{base / 'remote'}"), Ed25519Signer(load_private_key(private))
    for record in operator.entries():
        executable, metadata = operator.get(record.digest)
        tier.push(record.digest, executable, metadata, signer)
    return {
        "PYMC_AOT_CACHE_DIR": str(base / "local-{pid}"), "PYMC_AOT_CACHE_REMOTE": tier.url,
        "PYMC_AOT_CACHE_REMOTE_PUBLIC_KEY": str(public),
    }  # fmt: skip


def run_fleet(
    client: Any, mode: str, models: int, n: int, p: int, base: Path, chains: int = CHAINS, draws: int = DRAWS
) -> dict[str, Any]:
    """Prepare ``mode``, run ``models`` tasks on the cluster, and sum what the workers report."""
    env = prepare(mode, base, n, p, chains, draws)
    start = time.perf_counter()
    futures = client.map(fit_one, range(models), n=n, p=p, env=env, chains=chains, draws=draws, pure=False)
    results = client.gather(futures)
    wall = time.perf_counter() - start
    return {
        "mode": mode, "wall": wall, "postprocess": sum(r["seconds"] for r in results),
        "compiles": sum(r["compiles"] for r in results), "disk_hits": sum(r["disk_hits"] for r in results),
        "workers": len({r["worker"] for r in results}), "results": results,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--models", type=int, default=16)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--mode", choices=MODES, default="bundle")
    parser.add_argument("--scheduler", default=None, help="address of a running dask scheduler")
    args = parser.parse_args()
    from dask.distributed import Client, LocalCluster

    with tempfile.TemporaryDirectory() as tmp:
        cluster = None if args.scheduler else LocalCluster(n_workers=args.workers, threads_per_worker=1)
        with Client(args.scheduler or cluster) as client:
            out = run_fleet(client, args.mode, args.models, args.rows, 20, Path(tmp))
        if cluster is not None:
            cluster.close()
    print(
        f"{out['mode']}: {args.models} models on {out['workers']} workers in {out['wall']:.1f} s "
        f"(postprocessing {out['postprocess']:.1f} s of it, summed); {out['compiles']} compiles in the fleet, "
        f"{out['disk_hits']} loaded from the cache"
    )


if __name__ == "__main__":
    main()
