"""Which key each model gets, and what the key costs: structural fingerprint vs lowered program.

    python bench/key_cost.py [--model NAME ...] [--scale 1.0] [--json]

For every model of the test zoo (tests/zoo.py) and of bench/models.py, in a fresh process:
the key kind the model gets; the structural fingerprint's time on the first call in the
process (what a cache hit pays) and its best of 10 later calls; the lowered key's time
(rewrite + jaxify + trace + lower of the per-draw posterior transform, no compile), best of
3; and their ratio. The lowered key is timed on every model, also those that do not need it.

The garbage collector is paused while timing: with pymc and jax loaded, a full collection
takes 0.1-0.3 s here and lands on whichever call happens to allocate when it is due.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, run_child
from pymc_aot.render import Table


def _builders(scale: float) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from zoo import ZOO

    from bench.models import MODELS

    bench = {f"bench/{k}": (lambda f=f: f(scale)) for k, f in MODELS.items()}
    return {**{f"zoo/{k}": f for k, f in ZOO.items()}, **bench}


def child(name: str, scale: float) -> dict:
    """One model, in this (fresh) process."""
    from pymc_aot.aot.build.lowered_key import lowered_model_hash
    from pymc_aot.aot.build.request import value_signature
    from pymc_aot.aot.identity.fingerprint import fingerprint_model
    from pymc_aot.aot.identity.spec import resolve_outputs

    model = _builders(scale)[name]()
    gc.collect()
    gc.disable()
    t0 = time.perf_counter()
    fp = fingerprint_model(model)
    first = time.perf_counter() - t0
    later = []
    for _ in range(10):
        t0 = time.perf_counter()
        fingerprint_model(model)
        later.append(time.perf_counter() - t0)
    values = value_signature(model, fp, 4, 1000)
    spec = resolve_outputs(model, var_names=None, keep_untransformed=False, log_likelihood=False)
    lowered = []
    for _ in range(3):
        t0 = time.perf_counter()
        lowered_model_hash(model, spec, values, fp)
        lowered.append(time.perf_counter() - t0)
    return {
        "kind": "structural" if fp.exact else "lowered",
        "reasons": list(fp.reasons),
        "structural_first": first,
        "structural": min(later),
        "lowered": min(lowered),
    }


KEY_HEADERS = ("model", "key", "structural, first call", "structural, later", "lowered (build+trace+lower)",
               "lowered / first")


def render(results: dict) -> str:
    rows = [
        (
            name, r["kind"], f"{1e3 * r['structural_first']:.1f} ms", f"{1e3 * r['structural']:.1f} ms",
            f"{1e3 * r['lowered']:.0f} ms", f"{r['lowered'] / r['structural_first']:.0f}x",
        )
        for name, r in results.items()
    ]
    share = sum(r["kind"] == "structural" for r in results.values()) / len(results)
    slowest = max(results, key=lambda n: results[n]["lowered"])
    caption = f"structural key: {share:.0%} of {len(results)} models; slowest lowered key: {slowest}"
    return Table.of(KEY_HEADERS, rows, caption).markdown()


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", help="zoo/NAME or bench/NAME (repeatable); default all")
    parser.add_argument("--scale", type=float, default=1.0, help="scale of the bench models")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.child:
        import json

        print(json.dumps(child(opts.child, opts.scale)))
        return {}
    names = opts.model or list(_builders(opts.scale))
    results = {n: run_child("key_cost.py", "--child", n, "--scale", str(opts.scale)) for n in names}
    if opts.json:
        import json

        print(json.dumps(results, indent=2))
    else:
        print(f"machine: {machine()}\n")
        print(render(results))
    return results


if __name__ == "__main__":
    main()
