"""What makes a stored executable load faster: XLA CPU compile options and strategies, measured.

    python bench/load_options.py [--model wide_hierarchical] [--repeats 5]

One process compiles every variant of the model's transform (4 x 100 draws); then each
variant is deserialized in ``--repeats`` fresh processes (taking turns): load wall and CPU
time, the first call, and a later call (median of 5). Medians over the processes.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, median, run_child
from pymc_aot.render import Table

# (label, strategy, XLA compile options)
VARIANTS: list[tuple[str, str, dict[str, object]]] = [
    ("default", "batched(50)", {}),
    ("codegen split 1", "batched(50)", {"xla_cpu_parallel_codegen_split_count": 1}),
    ("codegen split 64", "batched(50)", {"xla_cpu_parallel_codegen_split_count": 64}),
    ("LLVM -O0", "batched(50)", {"xla_backend_optimization_level": 0}),
    ("no expensive LLVM passes", "batched(50)", {"xla_llvm_disable_expensive_passes": True}),
    ("no fusion emitters", "batched(50)", {"xla_cpu_use_fusion_emitters": False}),
    ("outputs packed into one", "batched(50)+packed", {}),
    ("vmap strategy", "vmap", {}),
    ("vmap, outputs packed", "vmap+packed", {}),
    ("scan_vmap strategy", "scan_vmap", {}),
]
ENV = {"PYTHONDONTWRITEBYTECODE": ""}


def measure(model: str, repeats: int) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        for strategy in dict.fromkeys(s for _, s, _ in VARIANTS):
            chosen = {label: opts for label, s, opts in VARIANTS if s == strategy}
            run_child("_load_child.py", "build", model, strategy, tmp, json.dumps(chosen), env=ENV)
        runs: dict[str, list[dict]] = {label: [] for label, _, _ in VARIANTS}
        for _ in range(repeats):
            for label in runs:
                runs[label].append(run_child("_load_child.py", "load", model, tmp, label, env=ENV))
        built = {label: json.loads(Path(tmp, f"{label}.json").read_text()) for label in runs}
    static = ("kb", "hlo_lines", "compile_s")
    return {
        label: {**{k: built[label][k] for k in static}, **{k: median([r[k] for r in rs]) for k in rs[0]}}
        for label, rs in runs.items()
    }


LOAD_HEADERS = ("variant", "executable", "HLO lines", "compile", "load (wall)", "load (CPU)", "first call",
                "later call")


def render(model: str, results: dict[str, dict[str, float]]) -> str:
    rows = [
        (
            label, f"{r['kb']:.0f} KiB", f"{r['hlo_lines']:.0f}", f"{r['compile_s']:.2f} s",
            *(f"{1e3 * r[k]:.1f} ms" for k in ("load_s", "load_cpu_s", "first_call_s", "run_s")),
        )
        for label, r in results.items()
    ]
    return f"{model}, 4 chains x 100 draws\n\n" + Table.of(LOAD_HEADERS, rows).markdown()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="wide_hierarchical")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args(argv)
    results = measure(opts.model, opts.repeats)
    if opts.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"machine: {machine()}\n")
        print(render(opts.model, results))


if __name__ == "__main__":
    main()
