"""How soon pm.sample(nuts_sampler=...) draws, in fresh processes: stock PyMC, stock with JAX's
persistent cache warm (also on new pm.Data values: PyMC bakes data into the program, so that cache
misses), pymc-aot's compiled sampler cold, warm, and warm after new pm.Data values.

    python bench/sample_start.py [--quick] [--model eight_schools --scale 0.01 --sampler numpyro ...]

first draw: from pm.sample's call until the sampler is ready to step (stock: the sampler's
own JAX trace, lowering and compile inside its call, plus everything before it; pymc-aot: until
its programs are loaded). sampling: the rest of the sampler's call. postprocess: after it.
total: the pm.sample call; process: from interpreter start (imports and the model build too).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, run_child
from pymc_aot.render import Table

COLUMNS = ("first_draw", "sampling", "postprocess", "total", "process")


def measure(model: str, scale: float, draws: int, tune: int, chains: int, sampler: str) -> dict[str, dict[str, float]]:
    """One row per mode; the warm rows follow a cold run (not reported) into the same directory."""
    args = (model, str(scale), str(draws), str(tune), str(chains), sampler)
    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out["stock"] = run_child("_sample_start_child.py", "stock", tmp, *args, timeout=3600)
    with tempfile.TemporaryDirectory() as tmp:
        run_child("_sample_start_child.py", "stock+jax", tmp, *args, timeout=3600)
        out["stock, JAX cache warm"] = run_child("_sample_start_child.py", "stock+jax", tmp, *args, timeout=3600)
        out["stock, JAX cache warm, new pm.Data"] = run_child(
            "_sample_start_child.py", "stock+jax+newdata", tmp, *args, timeout=3600
        )
    with tempfile.TemporaryDirectory() as tmp:
        out["pymc-aot cold"] = run_child("_sample_start_child.py", "aot", tmp, *args, timeout=3600)
        out["pymc-aot warm"] = run_child("_sample_start_child.py", "aot", tmp, *args, timeout=3600)
        out["pymc-aot warm, new pm.Data"] = run_child("_sample_start_child.py", "aot+newdata", tmp, *args, timeout=3600)
    return out


def render(results: dict[str, dict[str, dict[str, float]]]) -> str:
    parts = []
    for model, rows in results.items():
        stock, jax_warm = rows["stock"], rows["stock, JAX cache warm"]
        table = Table.of(
            ("mode", *COLUMNS, "first draw vs stock", "vs JAX cache warm", "total vs stock"),
            (
                (
                    mode,
                    *(f"{r[c]:.2f} s" for c in COLUMNS),
                    f"{stock['first_draw'] / r['first_draw']:.1f}x",
                    f"{jax_warm['first_draw'] / r['first_draw']:.1f}x",
                    f"{stock['total'] / r['total']:.1f}x",
                )
                for mode, r in rows.items()
            ),
            model,
        )
        parts.append(table.text())
    return "\n\n".join(parts)


def main(argv: list[str] | None = None) -> dict[str, dict[str, dict[str, float]]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", choices=["regression", "wide_hierarchical", "eight_schools"])
    parser.add_argument("--scale", type=float, default=0.25)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--sampler", default="numpyro", choices=["numpyro", "blackjax"])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="wide_hierarchical at scale 0.25 (unless --model, --scale), 2 chains x (200 + 200)",
    )
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args(argv)
    if opts.quick:
        opts.model, opts.draws, opts.tune, opts.chains = opts.model or ["wide_hierarchical"], 200, 200, 2
        opts.scale = opts.scale if "--scale" in (argv if argv is not None else sys.argv) else 0.25
    models = opts.model or ["regression", "wide_hierarchical", "eight_schools"]
    results = {m: measure(m, opts.scale, opts.draws, opts.tune, opts.chains, opts.sampler) for m in models}
    if opts.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"machine: {machine()}\n{opts.sampler}, {opts.chains} chains x ({opts.tune} tune + {opts.draws} draws)\n")
        print(render(results))
    return results


if __name__ == "__main__":
    main()
