"""The first ``pm.sample`` with ``pymc_aot.enable()`` against stock PyMC, and the warm one after.

    python bench/first_run.py [--quick] [--models radon,lkj] [--repeats 1] [--sampler-off]

Per model, fresh processes in turn: ``stock`` (``pm.sample(nuts_sampler="numpyro")``),
``cold`` (inside ``enable()``, the default, empty cache: auto's choice and compiles happen here, and
the compiled sampler's programs are compiled and stored before it samples) and ``warm`` (the same
cache again: nothing compiled, the stored sampler runs). ``--sampler-off``: ``enable(sampler=False)``
instead (PyMC's sampler: the postprocessing alone). Each times ``pm.sample`` (``total``) and its
postprocessing part (``post``: the calling thread's time in pymc-aot's preflight plus the
``_postprocess_samples`` seam; stock: PyMC's seam; ``cold_preflight_thread``: the preflight's own
wall time on its thread, of which the call waits for the part up to its last lowering); ``exit``:
how long the cold process then waits at exit for its background compiles.
``same``: the runs that draw with one sampler give one posterior: cold equals warm bit for bit, and
with ``--sampler-off`` both equal stock (the compiled sampler's draws are another XLA program's:
equal to stock's in distribution, ``tests/test_sampler_distribution.py``). Models: bench/models.py's
and bench/first_run_models.py's (radon with coords, a latent GP, an LKJ model). Ratios are within
one run: the machine is shared.

Targets (issue 27): cold/stock total <= 1.1 and cold/stock post <= 1.5 on every model.
``--quick``: models at scale 0.25, 4 chains x 300 draws, 300 tuning steps, one repeat.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import median, run_child
from bench.first_run_models import REAL_WORLD
from bench.models import MODELS

ALL = [*MODELS, *REAL_WORLD]
MODES = ("stock", "cold", "warm")


def measure(
    model: str, scale: float, chains: int, draws: int, tune: int, repeats: int, sampler: bool = True
) -> dict[str, object]:
    runs: dict[str, list[dict]] = {m: [] for m in MODES}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeats):
            for mode in MODES:
                cache = f"{tmp}/cache{i}"
                args = (mode, model, str(scale), str(chains), str(draws), str(tune), cache, "on" if sampler else "off")
                runs[mode].append(run_child("_first_run_child.py", *args))
    out: dict[str, object] = {"model": model}
    for mode, rs in runs.items():
        out[f"{mode}_total"] = median([r["total"] for r in rs])
        out[f"{mode}_post"] = median([r["post"] for r in rs])
    out["cold_compiles"] = max(r["compiles"] for r in runs["cold"])
    out["cold_later"] = max(r["later"] for r in runs["cold"])
    out["cold_preflight_thread"] = median([r.get("preflight_thread", 0.0) for r in runs["cold"]])
    out["cold_exit"] = median([r["exit"] for r in runs["cold"]])
    out["cold_sampler"] = max(r["sampler"] for r in runs["cold"])
    out["cold_sampler_later"] = max(r["sampler_later"] for r in runs["cold"])
    out["warm_compiles"] = max(r["compiles"] for r in runs["warm"])  # -1: the compiler was imported
    out["warm_sampler_compiles"] = max(r["sampler"] for r in runs["warm"])
    out["cold_over_stock_total"] = out["cold_total"] / out["stock_total"]
    out["cold_over_stock_post"] = out["cold_post"] / out["stock_post"]
    out["warm_over_stock_total"] = out["warm_total"] / out["stock_total"]
    alike = MODES if not sampler else ("cold", "warm")  # the compiled sampler's draws are not stock's
    out["same"] = len({round(r["checksum"], 6) for mode in alike for r in runs[mode]}) == 1
    return out


def row(r: dict) -> str:
    return (
        f"{r['model']:18s} stock {r['stock_total']:6.1f}s (post {r['stock_post']:5.2f})  "
        f"cold {r['cold_total']:6.1f}s (post {r['cold_post']:5.2f}, preflight thread "
        f"{r['cold_preflight_thread']:5.2f}, {r['cold_compiles']}+{r['cold_later']} compiles, "
        f"sampler {r['cold_sampler']}+{r['cold_sampler_later']}, exit {r['cold_exit']:5.1f}s)  "
        f"warm {r['warm_total']:6.1f}s (post {r['warm_post']:5.2f})  "
        f"cold/stock total {r['cold_over_stock_total']:.2f} post {r['cold_over_stock_post']:.2f}  "
        f"warm/stock total {r['warm_over_stock_total']:.2f}  same {r['same']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--models", default=",".join(ALL))
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sampler-off", action="store_true", help="enable(sampler=False): the postprocessing alone")
    opts = parser.parse_args()
    scale, chains, draws, tune = (0.25, 4, 300, 300) if opts.quick else (1.0, 4, 1000, 1000)
    repeats = opts.repeats or (1 if opts.quick else 3)
    results = []
    for model in opts.models.split(","):
        results.append(measure(model, scale, chains, draws, tune, repeats, sampler=not opts.sampler_off))
        print(json.dumps(results[-1]) if opts.json else row(results[-1]), flush=True)
    met = all(r["cold_over_stock_total"] <= 1.1 and r["cold_over_stock_post"] <= 1.5 for r in results)
    print(f"targets (cold/stock total <= 1.1, post <= 1.5 on every model): {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
