"""``pm.compute_log_likelihood`` / ``pm.compute_deterministics``: stock PyMC against pymc-aot.

    python bench/compute.py [--model regression --model wide_hierarchical] [--function ...]
                            [--scale 1.0] [--chains 4] [--draws 1000] [--repeats 1] [--json]

Every figure is one fresh process (PyMC's and the warm time: the median of ``--repeats``,
the two interleaved). PyMC = the
stock function. pymc-aot cold = the same call with ``pymc_aot.enable()`` on an empty cache
(``strategy="auto"`` compiles its candidates), warm = a fresh process on the cache the cold
run filled. Time = the call alone (model built, posterior loaded, pymc-aot enabled); peak =
what the call allocates over the pre-call baseline, tracked by memray in a separate process.
``regression``: 20000 x 20 design matrix in pm.Data; ``wide_hierarchical``: bench/models.py.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import median, run_child, shape_arguments, show

FUNCTIONS = ("log_likelihood", "deterministics")
MODEL_NAMES = ("regression", "wide_hierarchical")

Row = dict[str, Any]


def build(name: str, scale: float = 1.0) -> Any:
    """The benchmark's models: the regression at 20000 x 20, the wide model of bench/models.py."""
    from bench.models import MODELS, _n
    from pymc_aot import examples

    if name == "regression":
        return examples.regression(_n(20_000, scale, 20), _n(20, scale, 3), 10)
    return MODELS[name](scale)


def make_posterior(name: str, scale: float, chains: int, draws: int, path: Path) -> None:
    """A constrained posterior of the free variables (what idata.posterior holds), saved to ``path``."""
    import numpy as np

    import pymc_aot

    model = build(name, scale)
    rng = np.random.default_rng(0)
    point = model.initial_point()
    samples = [
        (point[v.name] + rng.normal(scale=0.1, size=(chains, draws, *np.shape(point[v.name])))).astype(v.dtype)
        for v in model.value_vars
    ]
    free = [rv.name for rv in model.free_RVs]
    with tempfile.TemporaryDirectory() as tmp:
        result = pymc_aot.postprocess(model, samples, var_names=free, strategy="batched(100)", cache=tmp)
        np.savez(path, **{k: np.asarray(v) for k, v in result.items()})


def measure(name: str, function: str, scale: float, chains: int, draws: int, repeats: int = 1) -> Row:
    with tempfile.TemporaryDirectory() as tmp:
        posterior, track = Path(tmp) / "posterior.npz", f"{tmp}/track.bin"
        make_posterior(name, scale, chains, draws, posterior)

        def child(method: str, cache: str, tracked: bool) -> Row:
            args = (method, function, name, str(scale), str(posterior), cache, track if tracked else "-")
            return run_child("_compute_child.py", *args, timeout=1800)

        cold, cold_peak = child("aot", f"{tmp}/c1", False), child("aot", f"{tmp}/c2", True)
        stock, warm = [], []
        for _ in range(repeats):  # interleaved, so that a busy spell on the machine hits both
            stock.append(child("pymc", "-", False))
            warm.append(child("aot", f"{tmp}/c1", False))
        stock_peak, warm_peak = child("pymc", "-", True), child("aot", f"{tmp}/c1", True)
    if any(w["compiles"] for w in [*warm, warm_peak]) or not cold["compiles"]:
        raise RuntimeError(f"{name}/{function}: the warm runs compiled, or the cold one did not")
    reference = stock[0]["checksum"]
    scale_of = max(abs(reference), 1.0)
    return {
        "output_bytes": stock[0]["output_bytes"],
        "pymc": median([s["seconds"] for s in stock]),
        "cold": cold["seconds"],
        "cold_compiles": cold["compiles"],
        "warm": median([w["seconds"] for w in warm]),
        "enable": median([w["enable"] for w in warm]),
        "pymc_peak": stock_peak["peak"],
        "cold_peak": cold_peak["peak"],
        "warm_peak": warm_peak["peak"],
        "checksum_rel_diff": max(abs(r["checksum"] - reference) / scale_of for r in [cold, *warm]),
    }


def _mib(n: float) -> str:
    return f"{n / 2**20:,.0f} MiB"


def render(results: dict[str, dict[str, Row]]) -> str:
    lines = [
        "| model | function | output | PyMC | pymc-aot cold (compiles) | pymc-aot warm | PyMC / warm "
        "| peak PyMC | peak cold | peak warm |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, rows in results.items():
        for function, r in rows.items():
            lines.append(
                f"| {name} | {function} | {_mib(r['output_bytes'])} | {r['pymc']:.2f} s | {r['cold']:.2f} s "
                f"({r['cold_compiles']}) | {r['warm']:.2f} s | {r['pymc'] / r['warm']:.1f}x | "
                f"{_mib(r['pymc_peak'])} | {_mib(r['cold_peak'])} | {_mib(r['warm_peak'])} |"
            )
    worst = max(r["checksum_rel_diff"] for rows in results.values() for r in rows.values())
    enable = max(r["enable"] for rows in results.values() for r in rows.values())
    lines += ["", f"sum of every output, pymc-aot vs PyMC: largest relative difference {worst:.1e}; "
              f"enable() before the call (imports PyMC's JAX module): at most {enable:.2f} s"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, dict[str, Row]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shape_arguments(parser, models=MODEL_NAMES)
    parser.add_argument("--function", action="append", choices=FUNCTIONS)
    parser.add_argument("--repeats", type=int, default=1)
    opts = parser.parse_args(argv)
    results = {
        name: {
            f: measure(name, f, opts.scale, opts.chains, opts.draws, opts.repeats)
            for f in (opts.function or FUNCTIONS)
        }
        for name in (opts.model or MODEL_NAMES)
    }
    show(results, opts, render)
    return results


if __name__ == "__main__":
    main()
