"""Sharded postprocessing over 1, 2 and 4 host CPU devices against auto's one-device choice
and PyMC's vmap, in the same run.

    python bench/sharded.py [--model regression --model wide_hierarchical] [--batch 16,50]
                            [--streamed 200] [--devices 1,2,4] [--repeats 5] [--rounds 3]
                            [--chains 4] [--draws 1000]

Each measurement is a fresh process (``_shard_child.py``): samples on the default device and
the executable compiled first; peak = what one call allocates (memray; every host device's
buffers are this process's memory); time = median of ``--repeats`` calls, the call
including moving the samples to the mesh. The methods run in turn, ``--rounds`` times (a
busy shared machine drifts); a row's time is the median over rounds, its spread the
lowest and highest round. ``predicted`` is XLA's memory analysis, per
device times the devices for ``sharded``. Ratios are against PyMC's vmap of the same run.
``streamed(B)@N`` (``--streamed``, B a multiple of every N; empty for none) splits each
batch of B draws over N devices and copies every piece into host NumPy arrays (``@1`` is
plain ``streamed(B)``); its predicted peak is the devices' (inputs and two batches), not the
host arrays it fills.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, median, run_child

DEFAULT_MODELS = ("regression", "wide_hierarchical")


def methods(batches: list[int], devices: list[int], streamed: list[int] = ()) -> list[str]:
    sharded = [f"aot:sharded({b})@{n}" for b in batches for n in devices]
    return ["pymc:vmap", "aot:auto", *sharded, *(f"aot:streamed({b})@{n}" for b in streamed for n in devices)]


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def measure(model: str, opts: argparse.Namespace) -> dict[str, dict[str, Any]]:
    rounds: dict[str, list[dict[str, Any]]] = {}
    todo = methods(_ints(opts.batch), _ints(opts.devices), _ints(opts.streamed))
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        for _ in range(opts.rounds):
            for method in todo:
                args = (method, model, str(opts.scale), str(opts.chains), str(opts.draws), f"{tmp}/track.bin")
                rounds.setdefault(method, []).append(run_child("_shard_child.py", *args, str(opts.repeats)))
    out = {}
    for method, runs in rounds.items():
        seconds = sorted(r["seconds"] for r in runs)
        out[method] = {**runs[0], "seconds": median(seconds), "spread": (seconds[0], seconds[-1])}
        out[method]["measured_peak"] = max(r["measured_peak"] for r in runs)
    return out


def _mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def render(model: str, results: dict[str, dict[str, Any]]) -> str:
    base = results["pymc:vmap"]["seconds"]
    lines = [
        f"**{model}**",
        "",
        "| method | runs | time (median) | rounds (min-max) | vs PyMC vmap | measured peak | predicted peak | output |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for method, r in results.items():
        lines.append(
            f"| {method} | {r['chosen'] or 'vmap (PyMC)'} | {r['seconds']:.3f} s "
            f"| {r['spread'][0]:.3f}-{r['spread'][1]:.3f} s | {r['seconds'] / base:.2f}x "
            f"| {_mb(r['measured_peak'])} | {_mb(r['predicted_peak'])} | {_mb(r['output_bytes'])} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append", choices=["regression", "wide_hierarchical", "report_shapes"])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--batch", default="16,50", help="sharded batch sizes, comma separated")
    parser.add_argument("--streamed", default="200", help="streamed batch sizes over the devices (empty: none)")
    parser.add_argument("--devices", default="1,2,4")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    opts = parser.parse_args(argv)
    results = {model: measure(model, opts) for model in opts.model or DEFAULT_MODELS}
    print(
        f"machine: {machine()}\n{opts.chains} chains x {opts.draws} draws, median of {opts.repeats} calls per process, "
        f"median over {opts.rounds} rounds\n"
    )
    for model, rows in results.items():
        print(render(model, rows) + "\n")
    return results


if __name__ == "__main__":
    main()
