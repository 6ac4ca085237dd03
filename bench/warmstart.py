"""Cold build vs pymc-aot warm start vs JAX's persistent compilation cache, fresh processes.

    python bench/warmstart.py [--model wide_hierarchical] [--repeats 3]

stock    PyMC's own build: rewrite + jaxify + trace + lower + XLA compile (JAX's cache empty)
cold     pymc-aot's miss: fingerprint + key + rewrite + jaxify + lower + compile + store
key      fingerprint + key alone (what every hit pays; timed inside the warm runs)
warm     key + verified read + deserialize (a pymc-aot hit)
jax-pcc  PyMC's stock build (rewrite + jaxify + trace + lower) with JAX's persistent cache warm

Each figure is the median over fresh interpreters; the backend is initialised before timing.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, median, run_child
from pymc_aot.render import Table


def measure(
    model: str, scale: float, chains: int, draws: int, repeats: int, slow_repeats: int | None = None
) -> dict[str, float]:
    """Medians over fresh processes: ``repeats`` warm runs, ``slow_repeats`` (default the
    same) cold and JAX-cache runs, which last seconds and vary less in relative terms."""
    args = (model, str(scale), str(chains), str(draws))
    slow = repeats if slow_repeats is None else slow_repeats
    with tempfile.TemporaryDirectory() as tmp:
        cold = [run_child("_warm_child.py", "cold", *args, f"{tmp}/cold{i}") for i in range(slow)]
        aot_dir, pcc_dir = f"{tmp}/cold0", f"{tmp}/pcc"
        # the first run with an empty JAX cache is PyMC's stock build (and fills the cache)
        stock = [run_child("_warm_child.py", "jax-pcc", *args, pcc_dir)["jax_pcc"]]
        warm = [run_child("_warm_child.py", "warm", *args, aot_dir) for _ in range(repeats)]
        pcc = [run_child("_warm_child.py", "jax-pcc", *args, pcc_dir)["jax_pcc"] for _ in range(slow)]
    result = {
        "cold": median([r["cold"] for r in cold]),
        "cold_build": median([r["build"] for r in cold]),
        "cold_lower": median([r["lower"] for r in cold]),
        "cold_compile": median([r["compile"] for r in cold]),
        "key": median([r["key"] for r in warm]),
        "warm": median([r["warm"] for r in warm]),
        "warm_load": median([r["load"] for r in warm]),
        "jax_pcc_warm": median(pcc),
        "stock_cold": median(stock),
    }
    result["warm_over_cold"] = result["warm"] / result["cold"]
    result["jax_pcc_over_warm"] = result["jax_pcc_warm"] / result["warm"]
    result["cold_over_warm"] = result["cold"] / result["warm"]
    result["stock_over_warm"] = result["stock_cold"] / result["warm"]
    return result


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", help="bench model name (repeatable); default wide_hierarchical")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    opts = parser.parse_args(argv)
    models = opts.model or ["wide_hierarchical"]
    results = {m: measure(m, opts.scale, opts.chains, opts.draws, opts.repeats) for m in models}
    if opts.json:
        print(json.dumps(results, indent=2))
        return results
    print(f"machine: {machine()}")
    print(f"{opts.chains} chains x {opts.draws} draws, scale {opts.scale}, median of {opts.repeats} fresh processes\n")
    print(render(results))
    return results


WARM_HEADERS = (
    "model", "PyMC stock build", "pymc-aot cold (build / lower / compile)", "key alone", "pymc-aot warm (key + load)",
    "JAX pcc warm", "warm / aot cold", "stock / warm", "JAX pcc / warm",
)


def render(results: dict[str, dict[str, float]]) -> str:
    """The markdown table of ``measure`` results, one row per model."""
    rows = [
        (
            m, f"{r['stock_cold']:.3f} s",
            f"{r['cold']:.3f} s ({r['cold_build']:.3f} / {r['cold_lower']:.3f} / {r['cold_compile']:.3f})",
            f"{r['key'] * 1000:.1f} ms", f"{r['warm'] * 1000:.1f} ms", f"{r['jax_pcc_warm']:.3f} s",
            f"{100 * r['warm_over_cold']:.1f}%", f"{r['stock_over_warm']:.1f}x", f"{r['jax_pcc_over_warm']:.1f}x",
        )
        for m, r in results.items()
    ]
    return Table.of(WARM_HEADERS, rows).markdown()


if __name__ == "__main__":
    main()
