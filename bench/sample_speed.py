"""Sampling speed itself: time per draw of pm.sample(nuts_sampler=...), stock vs the compiled sampler.

    python bench/sample_speed.py [--quick] [--model wide_hierarchical --scale 0.25 --chunk-sizes 50,200]

Per draw = (sampler call with 2D draws - sampler call with D draws) / D, each a fresh process
on a warm cache (stock: JAX's persistent cache holding both programs, so what is left of its
trace and lowering is the same in both and cancels; pymc-aot: its stored programs, one per
chunk size, ``draws`` not in the key). The warmup and every fixed cost cancel; what remains is
the steps themselves plus, for pymc-aot, the host's work between chunks.
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


def _window(mode: str, cache: str, args: tuple[str, ...], draws: int, chunk: int) -> float:
    model, scale, tune, chains, sampler = args
    row = run_child(
        "_sample_start_child.py", mode, cache, model, scale, str(draws), tune, chains, sampler, str(chunk), timeout=3600
    )
    return float(row["window"])


def per_draw(mode: str, cache: str, args: tuple[str, ...], draws: int, chunk: int = 100) -> dict[str, float]:
    """Seconds per draw (all chains) from a D and a 2D run; the cache already warm."""
    short = _window(mode, cache, args, draws, chunk)
    long = _window(mode, cache, args, 2 * draws, chunk)
    return {"short": short, "long": long, "per_draw_ms": 1000 * (long - short) / draws}


def measure(args: tuple[str, ...], draws: int, chunks: list[int]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (draws, 2 * draws):  # JAX's cache gets both programs (numpyro's depends on draws)
            _window("stock+jax", tmp, args, n, 100)
        out["stock (JAX cache warm)"] = per_draw("stock+jax", tmp, args, draws)
    with tempfile.TemporaryDirectory() as tmp:
        for chunk in chunks:
            _window("aot", tmp, args, draws, chunk)  # compiles and stores this chunk size's programs
            out[f"pymc-aot, chunk_size={chunk}"] = per_draw("aot", tmp, args, draws, chunk)
    return out


def render(rows: dict[str, dict[str, float]], draws: int) -> str:
    stock = rows["stock (JAX cache warm)"]["per_draw_ms"]
    return Table.of(
        ("mode", f"sampler call, {draws} draws", f"{2 * draws} draws", "per draw", "vs stock"),
        (
            (
                mode,
                f"{r['short']:.2f} s",
                f"{r['long']:.2f} s",
                f"{r['per_draw_ms']:.2f} ms",
                f"{r['per_draw_ms'] / stock:.2f}x",
            )
            for mode, r in rows.items()
        ),
        "time per draw (lower is better; vs stock > 1 is slower)",
    ).text()


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model", default="wide_hierarchical", choices=["regression", "wide_hierarchical", "eight_schools"]
    )
    parser.add_argument("--scale", type=float, default=0.5)
    parser.add_argument("--draws", type=int, default=1000, help="D: runs of D and 2D draws")
    parser.add_argument("--tune", type=int, default=500)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--sampler", default="numpyro", choices=["numpyro", "blackjax"])
    parser.add_argument("--chunk-sizes", default="25,100,1000")
    parser.add_argument(
        "--quick", action="store_true", help="scale 0.25, 2 chains, 100 tune, D=300, chunk sizes 50,500"
    )
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args(argv)
    if opts.quick:
        opts.scale, opts.chains, opts.tune, opts.draws, opts.chunk_sizes = 0.25, 2, 100, 300, "50,500"
    args = (opts.model, str(opts.scale), str(opts.tune), str(opts.chains), opts.sampler)
    rows = measure(args, opts.draws, [int(c) for c in opts.chunk_sizes.split(",")])
    if opts.json:
        print(json.dumps(rows, indent=2))
    else:
        print(
            f"machine: {machine()}\n{opts.sampler}, {opts.model} (scale {opts.scale}), {opts.chains} chains, "
            f"{opts.tune} tune\n"
        )
        print(render(rows, opts.draws))
    return rows


if __name__ == "__main__":
    main()
