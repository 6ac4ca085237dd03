"""XLA's predicted peak against the peak memray measures, for every strategy, fresh processes.

python bench/predict.py [--model NAME ...] [--scale 1.0] [--chains 4] [--draws 1000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import shape_arguments, show
from bench.bakeoff import Results, measure
from bench.models import MODELS
from pymc_aot.render import Table

AOT = ("vmap", "scan", "scan_vmap", "vmap_scan", "nested_scan", "batched(10)", "batched(100)", "auto")
STRATEGIES = (*(f"aot:{name}" for name in AOT), "pymc:vmap")


PREDICT_HEADERS = ("model", "strategy", "predicted", "measured", "measured / predicted")


def render(results: Results) -> str:
    rows, worst = [], 0.0
    for model, measured in results.items():
        for method, r in measured.items():
            if "predicted_new" not in r:
                continue
            ratio = r["measured_peak"] / max(1, r["predicted_new"])
            if r["predicted_new"] > 2**20:  # below a MiB, allocator noise dominates the ratio
                worst = max(worst, abs(ratio - 1))
            label = method.split(":", 1)[1] + (f" ({r['chosen']})" if method.endswith("auto") else "")
            label = ("PyMC " if method.startswith("pymc") else "") + label
            rows.append((model, label, f"{r['predicted_new']:,}", f"{r['measured_peak']:,}", f"{ratio:.3f}"))
    caption = f"largest deviation (predictions over 1 MiB): {100 * worst:.2f}%"
    return Table.of(PREDICT_HEADERS, rows, caption).markdown()


def main(argv: list[str] | None = None) -> Results:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shape_arguments(parser, models=MODELS)
    opts = parser.parse_args(argv)
    results = measure(opts.model or list(MODELS), opts.scale, opts.chains, opts.draws, STRATEGIES)
    show(results, opts, render)
    return results


if __name__ == "__main__":
    main()
