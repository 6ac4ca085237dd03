"""The bake-off: PyMC's own postprocessing beside every pymc-aot strategy, fresh processes.

    python bench/bakeoff.py [--model NAME ...] [--scale 1.0] [--chains 4] [--draws 1000]

Peak = what one postprocessing call allocates over the pre-call baseline, tracked by memray
(samples already on the device, executables already compiled). Predicted = XLA's memory
analysis for that allocation: output + temp - aliased (the inputs exist before the call).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import run_child, shape_arguments, show
from bench.models import MODELS
from pymc_aot.render import Table

METHODS = (
    "pymc:vmap",
    "pymc:scan",
    "aot:vmap",
    "aot:scan_vmap",
    "aot:nested_scan",
    "aot:batched(10)",
    "aot:batched(100)",
    "aot:auto",
)
MAPPING = {
    "vmap": ("vmap", "vmap"),
    "scan": ("vmap", "scan (swapaxes)"),
    "scan_vmap": ("scan", "vmap"),
    "vmap_scan": ("vmap", "scan"),
    "nested_scan": ("scan", "scan"),
}

Results = dict[str, dict[str, dict[str, float]]]


def measure(models: list[str], scale: float, chains: int, draws: int, methods: tuple[str, ...] = METHODS) -> Results:
    out: Results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            out[model] = {}
            for method in methods:
                args = (method, model, str(scale), str(chains), str(draws), f"{tmp}/track.bin")
                out[model][method] = run_child("_post_child.py", *args, timeout=1200)
    return out


def _mib(n: float) -> str:
    return f"{n / 2**20:,.1f} MiB"


def _mapping(method: str, chosen: str | None) -> tuple[str, str, str]:
    owner, _, strategy = method.partition(":")
    name = f"PyMC {strategy}" if owner == "pymc" else f"pymc-aot {strategy}"
    if strategy == "auto" and chosen:
        name, strategy = f"pymc-aot auto ({chosen})", chosen
    if strategy.startswith("batched"):
        return name, "batches", "batches"
    chains, draws = MAPPING.get(strategy, ("?", "?"))
    return name, chains, draws


BAKEOFF_HEADERS = ("method", "chains", "draws", "peak (memray)", "peak / output", "predicted", "time")


def _row(method: str, r: dict[str, Any]) -> tuple[str, ...]:
    name, chains, draws = _mapping(method, r.get("chosen"))
    predicted = _mib(r["predicted_new"]) if "predicted_new" in r else "-"
    ratio = f"{r['measured_peak'] / r['output_bytes']:.2f}x"
    return name, chains, draws, _mib(r["measured_peak"]), ratio, predicted, f"{r['seconds']:.3f} s"


def render(results: Results) -> str:
    parts = []
    for model, rows in results.items():
        out_bytes = next(iter(rows.values()))["output_bytes"]
        pymc_best = min(r["measured_peak"] for m, r in rows.items() if m.startswith("pymc:"))
        aot_best = min(r["measured_peak"] for m, r in rows.items() if m.startswith("aot:"))
        caption = f"best pymc-aot peak / best PyMC peak: {aot_best / pymc_best:.3f}"
        table = Table.of(BAKEOFF_HEADERS, (_row(m, r) for m, r in rows.items()), caption)
        parts.append(f"**{model}** (output {_mib(out_bytes)})\n\n{table.markdown()}\n")
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> Results:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shape_arguments(parser, models=MODELS)
    parser.add_argument("--method", action="append", help=f"repeatable; default all of {', '.join(METHODS)}")
    opts = parser.parse_args(argv)
    methods = tuple(opts.method) if opts.method else METHODS
    results = measure(opts.model or list(MODELS), opts.scale, opts.chains, opts.draws, methods)
    show(results, opts, render)
    return results


if __name__ == "__main__":
    main()
