"""Regenerate BENCHMARKS.md: the bake-off (with predictions) and the warm starts.

    python bench/run_all.py [--scale 1.0] [--repeats 2] [--out BENCHMARKS.md] [--quick]

Runs bakeoff.py (and predict.py's table of its runs), warmstart.py and streaming.py. About 12
minutes on 2 cores at full scale, plus streaming.py's (its big part holds a 4 GB posterior);
``--quick`` runs everything at a tenth of the size, once, without the big part.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import bakeoff, predict, streaming, warmstart  # noqa: E402
from bench._common import machine  # noqa: E402
from bench.models import MODELS  # noqa: E402


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"))
    parser.add_argument("--quick", action="store_true", help="a tenth of the size, once, no big streaming part")
    opts = parser.parse_args(argv)
    if opts.quick:
        opts.scale, opts.repeats = opts.scale / 10, 1
    t0 = time.perf_counter()
    models = list(MODELS)
    bake = bakeoff.measure(models, opts.scale, opts.chains, opts.draws)
    warm = {m: warmstart.measure(m, opts.scale, opts.chains, opts.draws, opts.repeats, 1) for m in models}
    big_rows = 0 if opts.quick else int(125_000 * opts.scale)
    rows = max(100, int(20_000 * opts.scale))
    _, streamed = streaming.report(big_rows, rows, opts.chains, opts.draws, max(opts.repeats, 1))
    elapsed = time.perf_counter() - t0
    text = f"""# Benchmarks

Regenerate everything with `python bench/run_all.py` ({elapsed / 60:.1f} minutes on this machine).
Machine: {machine()}. {opts.chains} chains x {opts.draws} draws, float64, scale {opts.scale}.
Every figure comes from a fresh Python process; the tables below are what the last run printed.

## Bake-off: peak memory and time of one postprocessing call

`python bench/bakeoff.py`. Peak = bytes the call allocates over the pre-call baseline,
tracked by memray (samples already on the device, every executable compiled beforehand);
predicted = XLA's memory analysis of the same allocation (output + temp - aliased).

{bakeoff.render(bake)}

## Predicted against measured peaks

`python bench/predict.py` runs more strategies; this table is the bake-off's runs.

{predict.render(bake)}

## Warm starts: the overhead before the first output byte

`python bench/warmstart.py --model NAME`: pymc-aot warm is the median of {opts.repeats} fresh
processes, the cold, stock and JAX-cache columns one fresh process each.
PyMC stock build = rewrite + jaxify + trace + lower + compile, what every stock run pays.
JAX pcc warm = the same with JAX's persistent compilation cache already filled.
pymc-aot warm = fingerprint + key + verified read + deserialize.

{warmstart.render(warm)}

## Streaming: posteriors bigger than memory

`python bench/streaming.py`: the regression's posterior into a Zarr store (`out=`) and, in
memory, `streamed(B)` against `batched(B)` and PyMC's vmap (peak by memray, fresh processes).

{streamed}
"""
    Path(opts.out).write_text(text)
    print(text)
    return text


if __name__ == "__main__":
    main()
