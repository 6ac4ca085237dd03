"""Streaming: a posterior bigger than memory goes to Zarr; what streaming costs or saves in memory.

    python bench/streaming.py [--big-rows 125000] [--rows 20000] [--chains 4] [--draws 1000] [--repeats 3]

``--big-rows 0`` skips part 1.

The model is the regression (``examples.regression(rows, 50, 10)``): its ``mu`` deterministic
is rows x chains*draws float64 (4 GB at 125000 rows, 640 MB at 20000). Each figure is a
fresh process (``_stream_child.py``): samples on the device and executable compiled first;
peak = what one call allocates, tracked by memray; time = median of ``--repeats`` calls.

1. Big: ``postprocess(out=...)`` with ``auto`` (which streams) into a Zarr store in a
   temporary directory; the target is peak <= inputs + 10% of the output bytes. Beside it,
   ``auto`` in memory on the same model when this machine has room for it (else skipped).
2. ~600 MB in memory: ``streamed(B)`` against ``batched(B)`` (the same batches, one loop on
   the device instead of one call per batch with the copy overlapped) and PyMC's vmap; and
   ``auto`` in memory against ``auto`` with ``out=`` (wall time of going to disk).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, run_child
from pymc_aot.render import Table

IN_MEMORY = ("pymc:vmap", "aot:auto", "aot:batched(16)", "aot:streamed(16)", "aot:batched(50)", "aot:streamed(50)")
TO_DISK = ("out:auto",)


def _free_bytes() -> int:
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def measure(rows: int, methods: tuple[str, ...], chains: int, draws: int, repeats: int) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:  # the Zarr stores are deleted with it
        for method in methods:
            args = (method, str(rows), str(chains), str(draws), f"{tmp}/posterior.zarr", f"{tmp}/track.bin")
            out[method] = run_child("_stream_child.py", *args, str(repeats), timeout=1800)
    return out


def _mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def _row(method: str, r: dict[str, Any], base: float) -> tuple[str, ...]:
    peak, output = r["measured_peak"], r["output_bytes"]
    over_inputs = 100 * (peak - r["input_bytes"]) / output
    return (
        method, r["chosen"] or "-", _mb(peak), f"{peak / output:.3f}x", f"{over_inputs:.1f}%", f"{r['seconds']:.2f} s",
        f"{r['seconds'] / base:.2f}",
    )


def render(title: str, results: dict[str, dict[str, Any]], baseline: str) -> str:
    headers = ("method", "chosen", "peak (memray)", "peak / output", "peak - inputs, % of output", "time",
               f"time / {baseline}")
    base = results[baseline]["seconds"] if baseline in results else float("nan")
    first = next(iter(results.values()))
    caption = f"output {_mb(first['output_bytes'])}, inputs (samples + data arguments) {_mb(first['input_bytes'])}"
    table = Table.of(headers, (_row(method, r, base) for method, r in results.items()), caption)
    return f"**{title}**\n\n{table.markdown()}"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big-rows", type=int, default=125_000)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    opts = parser.parse_args(argv)
    print(f"machine: {machine()}\n{opts.chains} chains x {opts.draws} draws, float64\n")
    results, text = report(opts.big_rows, opts.rows, opts.chains, opts.draws, opts.repeats)
    print(text)
    return results


def report(big_rows: int, rows: int, chains: int, draws: int, repeats: int) -> tuple[dict[str, Any], str]:
    """Both parts measured (the big one unless ``big_rows`` is 0) and their tables as markdown."""
    big, text = _big(big_rows, chains, draws, repeats) if big_rows else ({}, "")
    small = measure(rows, IN_MEMORY + TO_DISK, chains, draws, repeats)
    text += render(f"regression, {rows} rows: in memory and to disk", small, "aot:auto")
    return {"big": big, "small": small}, text


def _big(rows: int, chains: int, draws: int, repeats: int) -> tuple[dict[str, dict[str, Any]], str]:
    big_output = rows * chains * draws * 8
    big_methods = TO_DISK + (("aot:auto",) if _free_bytes() > 2.5 * big_output else ())
    big = measure(rows, big_methods, chains, draws, max(1, repeats - 2))
    r = big["out:auto"]
    target = r["input_bytes"] + 0.1 * r["output_bytes"]
    verdict = "meets" if r["measured_peak"] <= target else "MISSES"
    text = render(f"regression, {rows} rows: out= into Zarr", big, "out:auto")
    text += (
        f"\n\nout= peak {_mb(r['measured_peak'])} {verdict} the target inputs + 10% of output = {_mb(target)}; "
        f"store on disk {_mb(r['store_bytes'])}\n\n"
    )
    if "aot:auto" not in big:
        text += f"(auto in memory skipped at this size: less than {_mb(2.5 * big_output)} free)\n\n"
    return big, text


if __name__ == "__main__":
    main()
