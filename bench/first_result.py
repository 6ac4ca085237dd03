"""Time to the first postprocessed array, as a user sees it: fresh processes, imports counted.

    python bench/first_result.py [--model wide_hierarchical [--scale 1]] [--repeats 5] [--zoo]
    python bench/first_result.py --preflight [--quick]

Each run is a fresh interpreter that has imported pymc and jax and built its model; the clock
stops when the first postprocessed arrays exist. Default models: issue 13's two
(``regression_2000x20``: 2000 x 20 design matrix, 10 groups; ``wide_hierarchical``); ``--zoo``
adds every model of bench/models.py.

stock    PyMC: get_jaxified_graph + _postprocess_samples (vmap, donated), JAX's cache empty
jax-pcc  the same with JAX's persistent compilation cache warm (filled by an earlier process)
aot      pymc_aot.postprocess on a cache filled by an earlier process (a hit), with its phases

``--preflight``: the warm preflight of ``pm.sample`` under ``enable()`` (two precompiles on a
filled cache) for bench/models.py's PREFLIGHT_MODELS (LKJ, AR with ``shape=T``, ``dims=``),
the input shapes taken by ``model.initial_point()`` (before issue 28) and by shape inference.

Children write bytecode (``PYTHONDONTWRITEBYTECODE`` cleared) as an installed package has it:
the process that fills a cache compiles the sources once, the timed ones read .pyc files.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, median, run_child
from bench.models import MODELS

DEFAULT_MODELS = {"regression_2000x20": 1.0, "wide_hierarchical": 1.0}
PATHS = ("stock", "jax-pcc", "aot")
ENV = {"PYTHONDONTWRITEBYTECODE": ""}


def _child(mode: str, args: tuple[str, ...], directory: str) -> dict[str, object]:
    return run_child("_first_child.py", mode, *args, directory, env=ENV)


def measure(model: str, scale: float, chains: int, draws: int, repeats: int) -> dict[str, object]:
    """Medians over ``repeats`` fresh processes per path, after one process fills each cache.

    The paths take turns (stock, jax-pcc, aot, stock, ...) so a busy spell hits all three."""
    args = (model, str(scale), str(chains), str(draws))
    runs: dict[str, list[dict]] = {m: [] for m in PATHS}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in PATHS[1:]:
            _child(mode, args, f"{tmp}/{mode}")  # fills the cache
        for i in range(repeats):
            for mode in PATHS:
                runs[mode].append(_child(mode, args, f"{tmp}/{mode}{i}" if mode == "stock" else f"{tmp}/{mode}"))
    result: dict[str, object] = {f"{m}_s": median([float(r["seconds"]) for r in rs]) for m, rs in runs.items()}
    steps = list(runs["aot"][0]["phases"])
    result["aot_phases"] = {s: median([float(r["phases"].get(s, 0.0)) for r in runs["aot"]]) for s in steps}
    result["aot_modules"] = sorted({m for r in runs["aot"] for m in r["modules"]})
    result["aot_compiled"] = sum("pymc_aot.aot.build.compiler" in r["modules"] for r in runs["aot"])  # misses
    result["repeats"] = repeats
    result["stock_over_aot"] = float(result["stock_s"]) / float(result["aot_s"])
    result["pcc_over_aot"] = float(result["jax-pcc_s"]) / float(result["aot_s"])
    result["scale"] = scale
    return result


def _imported(r: dict) -> str:
    """The builder modules the hits imported, and in how many runs the hit compiled instead."""
    names = ", ".join(r["aot_modules"]) or "none"
    missed = r.get("aot_compiled", 0)
    return f"{names} (compiled in {missed} of {r.get('repeats', '?')} runs)" if missed else names


def render(results: dict[str, dict]) -> str:
    """Two markdown tables: the three paths side by side, then the hit's phases."""
    lines = [
        "| model (scale) | stock PyMC | stock, JAX cache warm | pymc-aot hit | stock / hit | JAX cache / hit "
        "| heavy modules the hit imported |",
        "|---|---|---|---|---|---|---|",
    ]
    for m, r in results.items():
        lines.append(
            f"| {m} ({r['scale']}) | {r['stock_s']:.3f} s | {r['jax-pcc_s']:.3f} s | {1000 * r['aot_s']:.1f} ms "
            f"| {r['stock_over_aot']:.1f}x | {r['pcc_over_aot']:.1f}x | {_imported(r)} |"
        )
    steps = list(dict.fromkeys(s for r in results.values() for s in r["aot_phases"]))
    lines += ["", "Where the hit's time goes (ms, medians per phase):", ""]
    lines += ["| model | " + " | ".join(steps) + " |", "|---|" + "---|" * len(steps)]
    for m, r in results.items():
        lines.append(f"| {m} | " + " | ".join(f"{1000 * r['aot_phases'].get(s, 0.0):.1f}" for s in steps) + " |")
    return "\n".join(lines)


SHAPE_PATHS = ("initial-point", "inferred")


def measure_preflight(model: str, scale: float, chains: int, draws: int, repeats: int) -> dict[str, float]:
    """Medians of the warm preflight (``bench/_preflight_child.py``) per way of taking the input
    shapes, fresh processes taking turns, after one process fills the cache."""
    args = (model, str(scale), str(chains), str(draws))
    runs: dict[str, list[float]] = {p: [] for p in SHAPE_PATHS}
    compiled = 0
    with tempfile.TemporaryDirectory() as tmp:
        run_child("_preflight_child.py", "inferred", *args, tmp, env=ENV)  # fills the cache
        for _ in range(repeats):
            for path in SHAPE_PATHS:
                found = run_child("_preflight_child.py", path, *args, tmp, env=ENV)
                compiled += bool(found["compiled"])  # not warm after all: shown, not timed
                if not found["compiled"]:
                    runs[path].append(float(found["seconds"]))
    result = {f"{p}_s": median(rs) if rs else float("nan") for p, rs in runs.items()}
    result["compiled_runs"] = compiled
    result["before_over_after"] = result["initial-point_s"] / result["inferred_s"]
    return result


def render_preflight(results: dict[str, dict[str, float]]) -> str:
    lines = [
        "| model | warm preflight, shapes from initial_point() | shapes inferred | before / after | compiled runs |",
        "|---|---|---|---|---|",
    ]
    for m, r in results.items():
        before, after, ratio = r["initial-point_s"], r["inferred_s"], r["before_over_after"]
        lines.append(f"| {m} | {before:.3f} s | {after:.3f} s | {ratio:.1f}x | {r['compiled_runs']} |")
    return "\n".join(lines)


def _main_preflight(opts: argparse.Namespace) -> dict[str, dict]:
    from bench.models import PREFLIGHT_MODELS

    scale = 0.2 if opts.quick else (opts.scale or 1.0)
    repeats = 1 if opts.quick else opts.repeats
    names = list(PREFLIGHT_MODELS)[:1] if opts.quick else list(PREFLIGHT_MODELS)
    results = {m: measure_preflight(m, scale, opts.chains, opts.draws, repeats) for m in names}
    if opts.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"machine: {machine()}")
        print(f"warm preflight (posterior + log-likelihood), scale {scale}, median of {repeats} fresh processes\n")
        print(render_preflight(results))
    return results


def main(argv: list[str] | None = None) -> dict[str, dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", help="bench model (repeatable); default: the two of issue 13")
    parser.add_argument("--zoo", action="store_true", help="also every model of bench/models.py")
    parser.add_argument("--scale", type=float, default=None, help="scale for every --model (default per model)")
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--preflight", action="store_true", help="the warm preflight of models without static shapes")
    parser.add_argument("--quick", action="store_true", help="with --preflight: one small model, one repeat")
    opts = parser.parse_args(argv)
    if opts.preflight:
        return _main_preflight(opts)
    names = list(opts.model or DEFAULT_MODELS) + (sorted(MODELS) if opts.zoo else [])
    chosen = {m: opts.scale if opts.scale is not None else DEFAULT_MODELS.get(m, 1.0) for m in dict.fromkeys(names)}
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
