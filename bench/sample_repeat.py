"""The same pm.sample(nuts_sampler="numpyro") twice, each in a fresh process: stock PyMC vs
pymc-aot enabled (and with JAX's persistent cache pointed into the pymc-aot root).

    python bench/sample_repeat.py [--model regression --scale 0.25 --draws 1000 --tune 500 --chains 2]

postprocess = time in get_jaxified_graph (after sampling), _postprocess_samples and
_get_log_likelihood, i.e. building, compiling and running the posterior and log-likelihood
transforms. The second run is the one that repeats.
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

MODES = ("stock", "aot", "aot+jax")


def measure(
    model: str, scale: float, draws: int, tune: int, chains: int, modes: tuple[str, ...] = MODES
) -> dict[str, list[dict[str, float]]]:
    out: dict[str, list[dict[str, float]]] = {}
    for mode in modes:
        with tempfile.TemporaryDirectory() as tmp:
            args = (mode, tmp, model, str(scale), str(draws), str(tune), str(chains))
            out[mode] = [run_child("_sample_child.py", *args, timeout=1800) for _ in range(2)]
    return out


HEADERS = ("mode", "run", "total", "sampling", "postprocess", "postprocess vs stock (same run)", "total vs stock")


def main(argv: list[str] | None = None) -> dict[str, list[dict[str, float]]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="regression")
    parser.add_argument("--scale", type=float, default=0.25)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=500)
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--mode", action="append", choices=MODES, help="repeatable; default all")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args(argv)
    modes = tuple(opts.mode) if opts.mode else MODES
    results = measure(opts.model, opts.scale, opts.draws, opts.tune, opts.chains, modes)
    if opts.json:
        print(json.dumps(results, indent=2))
        return results
    print(f"machine: {machine()}")
    print(
        f"model {opts.model} (scale {opts.scale}), {opts.chains} chains x {opts.draws} draws, tune {opts.tune}, "
        "log-likelihood on\n"
    )
    rows = []
    for mode, runs in results.items():
        for i, r in enumerate(runs):
            base = results["stock"][i]
            rows.append((
                mode, i + 1, f"{r['total']:.2f} s", f"{r['sampling']:.2f} s", f"{r['postprocess']:.3f} s",
                f"{r['postprocess'] / base['postprocess']:.2f}x", f"{r['total'] / base['total']:.2f}x",
            ))
    print(Table.of(HEADERS, rows).markdown())
    return results


if __name__ == "__main__":
    main()
