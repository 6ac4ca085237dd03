"""``pm.sample_posterior_predictive``: stock PyMC (default backend, and the JAX mode) against pymc-aot.

    python bench/predictive.py [--quick] [--scale 1.0] [--chains 4] [--draws 1000] [--batches 10] [--no-peak] [--no-jax]

Workflows, on the regression of ``pymc_aot.examples`` (20000 x 20 design matrix in pm.Data at
scale 1): ``ppc`` = one posterior predictive of the observed ``y``; ``batches`` = ``--batches``
rounds of ``pm.set_data`` (new rows, one shape) then ``predictions=True``. Every figure is one
fresh process: time = the calls alone (model built, posterior loaded, pymc-aot enabled); the
table also shows ``enable()`` (it imports JAX, which stock never does) added to ours, and the
steady state of one process: the median batch after the first;
peak = what the calls allocate over the pre-call baseline (memray, a separate process).
pymc-aot cold = an empty cache (``auto`` compiles its candidates), warm = a fresh process on
the cache the cold run filled. ``--quick``: scale 0.05, 2 x 100 draws, no peak. ``--no-jax``
leaves out stock's JAX mode (slow: one PyTensor-JAX call per draw). Peak memory of a warm
call, in memory and with ``out=``: ``bench/predictive_peak.py``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, run_child
from bench.models import _n
from pymc_aot.render import Table

METHODS = ("pymc", "pymc_jax", "aot cold", "aot warm")
WORKFLOWS = ("ppc", "batches")


def make_posterior(n: int, p: int, chains: int, draws: int, path: Path) -> None:
    import numpy as np
    import pymc as pm

    from pymc_aot import examples

    model = examples.regression(n, p, 10)
    free = [rv.name for rv in model.free_RVs]
    prior = pm.sample_prior_predictive(draws=chains * draws, model=model, var_names=free, random_seed=0).prior
    np.savez(path, **{k: prior[k].values.reshape(chains, draws, *prior[k].shape[2:]) for k in free})


def measure(
    workflow: str, n: int, p: int, posterior: Path, tmp: str, batches: int, peak: bool, jax: bool = True
) -> dict[str, Any]:
    def child(method: str, cache: str, track: str = "-") -> dict[str, Any]:
        args = (method, workflow, str(n), str(p), str(posterior), cache, track, str(batches))
        return run_child("_predictive_child.py", *args, timeout=3600)

    cache = f"{tmp}/{workflow}"
    runs = {"pymc": child("pymc", "-"), **({"pymc_jax": child("pymc_jax", "-")} if jax else {})}
    runs["aot cold"], runs["aot warm"] = child("aot", cache), child("aot", cache)
    if runs["aot warm"]["compiles"] or not runs["aot cold"]["compiles"]:
        raise RuntimeError(f"{workflow}: the warm run compiled, or the cold one did not")
    if peak:
        track = f"{tmp}/track.bin"
        for method, cache_dir in (("pymc", "-"), *((("pymc_jax", "-"),) if jax else ()), ("aot", cache)):
            runs["aot warm" if method == "aot" else method]["peak"] = child(method, cache_dir, track)["peak"]
    return runs


def render(results: dict[str, dict[str, Any]]) -> str:
    rows = []
    for workflow, runs in results.items():
        out, stock = runs["pymc"]["output_bytes"], runs["pymc"]
        for method in (m for m in METHODS if m in runs):
            r = runs[method]
            peak = f"{r['peak'] / 2**20:,.0f} MiB ({r['peak'] / out:.2f}x)" if "peak" in r else "-"
            enable = r.get("enable", 0.0)
            later = f"{_later(r) * 1e3:.1f} ms ({_later(stock) / _later(r):.1f}x)" if "calls" in r else "-"
            rows.append((
                workflow, method, f"{r['seconds']:.2f} s", f"{stock['seconds'] / r['seconds']:.1f}x",
                f"{enable:.2f} s" if "enable" in r else "-", f"{stock['seconds'] / (r['seconds'] + enable):.1f}x",
                later, peak, f"{out / 2**20:,.1f} MiB",
            ))
    headers = (
        "workflow", "method", "time", "stock / this", "enable()", "stock / (enable + this)",
        "later batches, median (stock / this)", "peak (x output)", "output",
    )
    note = (
        "fresh process per figure: time = the calls alone (imports, model, posterior and enable() before); "
        "enable() mostly imports JAX, which stock never does; later batches = batches 2.. of the batched "
        "workflow, each pm.set_data + the call (the steady state of one process); peak by memray over the "
        "pre-call baseline"
    )
    return Table.of(headers, rows, note).markdown()


def _later(run: dict[str, Any]) -> float:
    """Median seconds of a batch after the first (the first pays the process's one-time costs)."""
    calls = sorted(run["calls"][1:] or run["calls"])
    return calls[len(calls) // 2]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--no-peak", action="store_true")
    parser.add_argument("--no-jax", action="store_true")
    opts = parser.parse_args(argv)
    if opts.quick:
        opts.scale, opts.chains, opts.draws, opts.no_peak = 0.05, 2, 100, True
    n, p = _n(20_000, opts.scale, 20), _n(20, opts.scale, 3)
    with tempfile.TemporaryDirectory() as tmp:
        posterior = Path(tmp) / "posterior.npz"
        make_posterior(n, p, opts.chains, opts.draws, posterior)
        results = {
            w: measure(w, n, p, posterior, tmp, opts.batches, not opts.no_peak, not opts.no_jax) for w in WORKFLOWS
        }
    print(f"machine: {machine()}\nregression {n} x {p}, {opts.chains} chains x {opts.draws} draws\n")
    print(render(results))
    return results


if __name__ == "__main__":
    main()
