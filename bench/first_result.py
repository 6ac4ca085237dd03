"""Time to the first postprocessed array, as a user sees it: fresh processes, imports counted.

    python bench/first_result.py [--model regression --scale 0.1] [--repeats 5]

Each run is a fresh interpreter that has imported pymc and jax and built its model; the clock
stops when the first postprocessed arrays exist.

stock    PyMC: get_jaxified_graph + _postprocess_samples (vmap, donated), JAX's cache empty
jax-pcc  the same with JAX's persistent compilation cache warm (filled by an earlier process)
aot      pymc_aot.postprocess on a cache filled by an earlier process (a hit)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, median, run_child

# the two models of issue 13 (4 x 100 draws): the regression at 2000 rows, the 40-group model
DEFAULT_MODELS = {"regression": 0.1, "wide_hierarchical": 1.0}


def measure(model: str, scale: float, chains: int, draws: int, repeats: int) -> dict[str, object]:
    """Medians over ``repeats`` fresh processes per path, after one process fills each cache."""
    args = (model, str(scale), str(chains), str(draws))
    with tempfile.TemporaryDirectory() as tmp:
        runs: dict[str, list[dict[str, object]]] = {}
        for mode in ("stock", "jax-pcc", "aot"):
            directory = f"{tmp}/{mode}"
            if mode == "stock":
                runs[mode] = [run_child("_first_child.py", mode, *args, f"{directory}{i}") for i in range(repeats)]
                continue
            run_child("_first_child.py", mode, *args, directory)  # fills the cache
            runs[mode] = [run_child("_first_child.py", mode, *args, directory) for _ in range(repeats)]
    result: dict[str, object] = {f"{m}_s": median([float(r["seconds"]) for r in rs]) for m, rs in runs.items()}
    result["aot_modules"] = runs["aot"][0]["modules"]
    result["stock_over_aot"] = float(result["stock_s"]) / float(result["aot_s"])
    result["pcc_over_aot"] = float(result["jax-pcc_s"]) / float(result["aot_s"])
    result["scale"] = scale
    return result


def render(results: dict[str, dict[str, object]]) -> str:
    """The markdown table, one row per model."""
    lines = [
        "| model (scale) | stock PyMC | stock, JAX cache warm | pymc-aot hit | stock / hit | JAX cache / hit "
        "| heavy modules the hit imported |",
        "|---|---|---|---|---|---|---|",
    ]
    for m, r in results.items():
        modules = ", ".join(r["aot_modules"]) or "none"  # type: ignore[arg-type]
        lines.append(
            f"| {m} ({r['scale']}) | {r['stock_s']:.3f} s | {r['jax-pcc_s']:.3f} s | {1000 * r['aot_s']:.1f} ms "
            f"| {r['stock_over_aot']:.1f}x | {r['pcc_over_aot']:.1f}x | {modules} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, dict[str, object]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", help="bench model (repeatable); default: the two of issue 13")
    parser.add_argument("--scale", type=float, default=None, help="scale for every --model (default per model)")
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    opts = parser.parse_args(argv)
    chosen = {m: (opts.scale if opts.scale is not None else DEFAULT_MODELS.get(m, 1.0))
              for m in (opts.model or DEFAULT_MODELS)}
    results = {m: measure(m, s, opts.chains, opts.draws, opts.repeats) for m, s in chosen.items()}
    if opts.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"machine: {machine()}")
        print(f"{opts.chains} chains x {opts.draws} draws, median of {opts.repeats} fresh processes per path\n")
        print(render(results))
    return results


if __name__ == "__main__":
    main()
