"""Regenerate the measured sections of BENCHMARKS.md; every other section is kept as it is.

    python bench/run_all.py [--scale 1.0] [--repeats 2] [--out BENCHMARKS.md] [--quick]

Runs bakeoff.py (and predict.py's table of its runs), warmstart.py, streaming.py and
sharded.py. About 12 minutes on 2 cores at full scale, plus streaming.py's (its big part
holds a 4 GB posterior) and sharded.py's (8 methods x 2 models x 3 rounds of fresh
processes, about 9 minutes); ``--quick`` runs everything at a tenth of the size, once,
without the big streaming part (sharded.py then takes about 70 s; the whole ``--quick`` run
took 9.5 minutes here on 2 shared cores).

The sections written here are those whose headings ``SECTIONS`` names; the rest of the file
(hand-written notes: first result, the wide model's load, the PyMC 6 comparison, the
hand-run streaming and sharded analyses, ...) is kept, text and order, by ``md_sections.merge``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import bakeoff, md_sections, predict, sharded, streaming, warmstart  # noqa: E402
from bench._common import machine  # noqa: E402
from bench.models import MODELS  # noqa: E402

SECTIONS = (
    "# Benchmarks",
    "## Bake-off: peak memory and time of one postprocessing call",
    "## Predicted against measured peaks",
    "## Warm starts: the overhead before the first output byte",
    "## Streaming: the last `bench/run_all.py` run",
    "## Sharded: the last `bench/run_all.py` run",
)
"""The headings of the sections this script writes, in the order they first appear."""


def _options(argv: list[str] | None) -> argparse.Namespace:
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
    return opts


def _sharded(opts: argparse.Namespace) -> str:
    """bench/sharded.py's tables: 1, 2, 4 host devices against auto and PyMC's vmap."""
    rounds = 1 if opts.quick else 3
    shape = {"scale": opts.scale, "chains": opts.chains, "draws": opts.draws, "repeats": opts.repeats}
    shard_opts = argparse.Namespace(batch="16,50", devices="1,2,4", rounds=rounds, **shape)
    tables = [sharded.render(m, sharded.measure(m, shard_opts)) for m in sharded.DEFAULT_MODELS]
    return "\n\n".join(tables) + f"\n\n{opts.repeats} calls per process, median over {rounds} round(s)."


def _measure(opts: argparse.Namespace) -> dict[str, Any]:
    """Every measurement, in fresh processes, and how long they took."""
    t0 = time.perf_counter()
    models = list(MODELS)
    bake = bakeoff.measure(models, opts.scale, opts.chains, opts.draws)
    warm = {m: warmstart.measure(m, opts.scale, opts.chains, opts.draws, opts.repeats, 1) for m in models}
    big_rows = 0 if opts.quick else int(125_000 * opts.scale)
    rows = max(100, int(20_000 * opts.scale))
    _, streamed = streaming.report(big_rows, rows, opts.chains, opts.draws, max(opts.repeats, 1))
    shards = _sharded(opts)
    return {"bake": bake, "warm": warm, "streamed": streamed, "shards": shards, "elapsed": time.perf_counter() - t0}


def main(argv: list[str] | None = None) -> str:
    opts = _options(argv)
    out = Path(opts.out)
    text = md_sections.merge(out.read_text() if out.exists() else "", _sections(opts, **_measure(opts)))
    out.write_text(text)
    print(text)
    return text


def _sections(
    opts: argparse.Namespace, bake: Any, warm: dict[str, Any], streamed: str, shards: str, elapsed: float
) -> list[str]:
    """The generated sections, each starting with its heading from ``SECTIONS``."""
    intro, bake_doc, predict_doc, warm_doc, stream_doc, shard_doc = SECTIONS
    return [
        f"""{intro}

Regenerate the measured sections with `python bench/run_all.py` ({elapsed / 60:.1f} minutes on this
machine); the other sections are hand-written records of the scripts they name, kept as they are.
Machine: {machine()}. {opts.chains} chains x {opts.draws} draws, float64, scale {opts.scale}.
Every figure comes from a fresh Python process; the generated tables are what the last run printed.
""",
        f"""{bake_doc}

`python bench/bakeoff.py`. Peak = bytes the call allocates over the pre-call baseline,
tracked by memray (samples already on the device, every executable compiled beforehand);
predicted = XLA's memory analysis of the same allocation (output + temp - aliased).

{bakeoff.render(bake)}
""",
        f"""{predict_doc}

`python bench/predict.py` runs more strategies; this table is the bake-off's runs.

{predict.render(bake)}
""",
        f"""{warm_doc}

`python bench/warmstart.py --model NAME`: pymc-aot warm is the median of {opts.repeats} fresh
processes, the cold, stock and JAX-cache columns one fresh process each.
PyMC stock build = rewrite + jaxify + trace + lower + compile, what every stock run pays.
JAX pcc warm = the same with JAX's persistent compilation cache already filled.
pymc-aot warm = fingerprint + key + verified read + deserialize.

{warmstart.render(warm)}
""",
        f"""{stream_doc}

`python bench/streaming.py`: the regression's posterior into a Zarr store (`out=`) and, in
memory, `streamed(B)` against `batched(B)` and PyMC's vmap (peak by memray, fresh processes).

{streamed}
""",
        f"""{shard_doc}

`python bench/sharded.py`: `sharded(B)@N` splits the chains over N host devices, `batched(B)`
on each, against `auto`'s one-device choice and PyMC's vmap (peak by memray, fresh processes;
predicted = XLA's analysis per device times the devices).

{shards}
""",
    ]


if __name__ == "__main__":
    main()
