"""Peak memory of a warm posterior predictive: stock PyMC, pymc-aot in memory, pymc-aot ``out=``.

    python bench/predictive_peak.py [--quick] [--rows 20000] [--chains 4] [--draws 1000] [--only pymc,aot,out]

The regression of ``pymc_aot.examples`` (rows x 3 design matrix, 10 groups); the output is
the observed ``y``: rows x chains*draws float64. Each figure is a fresh process
(``_predictive_peak_child.py``): one call warms it up (compile, load, JAX start), the second
is measured: memray's peak of what the call allocates (host arrays and XLA's CPU buffers)
and the process RSS over its pre-call value. Targets (issue 23): in memory, peak <= 1.05x
the output; ``out=`` (Zarr, ``auto`` streams), peak <= inputs + 10% of the output.
``--quick``: 20000 rows, 2 x 250 draws (80 MB). The 4 GB case (out= alone, ~10 min here):
``python bench/predictive_peak.py --rows 125000 --chains 4 --draws 1000 --only out``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, run_child
from bench.predictive import make_posterior
from pymc_aot.render import Table

LABELS = {"pymc": "PyMC (stock)", "aot": "pymc-aot, in memory", "out": "pymc-aot, out= (Zarr)"}


def measure(rows: int, chains: int, draws: int, methods: list[str]) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        posterior = Path(tmp) / "posterior.npz"
        make_posterior(rows, 3, chains, draws, posterior)
        for method in methods:
            args = (method, str(rows), "3", str(posterior), f"{tmp}/cache", f"{tmp}/track.bin", f"{tmp}/out.zarr")
            results[method] = run_child("_predictive_peak_child.py", *args, timeout=3600)
    return results


def _row(method: str, r: dict[str, Any]) -> tuple[str, ...]:
    out, inputs = r["output_bytes"], r["input_bytes"]
    target = "<= 1.05x output" if method != "out" else f"<= {(inputs + 0.1 * out) / 1e6:,.1f} MB"
    return (
        LABELS[method],
        f"{r['seconds']:.2f} s",
        f"{r['peak'] / 1e6:,.1f} MB ({r['peak'] / out:.2f}x)",
        f"{r['rss_peak'] / 1e6:,.1f} MB ({r['rss_peak'] / out:.2f}x)",
        target,
    )


def render(results: dict[str, dict[str, Any]]) -> str:
    first = next(iter(results.values()))
    caption = f"output {first['output_bytes'] / 1e6:,.1f} MB, inputs {first['input_bytes'] / 1e6:,.2f} MB; second call"
    headers = ("method", "time", "peak, memray (x output)", "RSS over pre-call (x output)", "target")
    return Table.of(headers, [_row(m, r) for m, r in results.items()], caption).markdown()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--only", default="pymc,aot,out")
    opts = parser.parse_args(argv)
    if opts.quick:
        opts.rows, opts.chains, opts.draws = 20_000, 2, 250
    results = measure(opts.rows, opts.chains, opts.draws, opts.only.split(","))
    print(f"machine: {machine()}\nregression {opts.rows} x 3, {opts.chains} chains x {opts.draws} draws\n")
    print(render(results))
    return results


if __name__ == "__main__":
    main()
