"""Run in a fresh process: postprocess twin model files with pymc-aot and with stock PyMC.

Usage: python child_twin.py OUT_DIR CASE_DIR [CASE_DIR ...]
Writes OUT_DIR/<case>.npz (``ours/<name>`` and ``stock/<name>`` arrays) and prints one JSON
line: per case, what the runtime did (compiles, disk hits), the fingerprint's verdict and the
stored entry's key kind.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from reference import pymc_log_likelihood, pymc_posterior

from pymc_aot import runtime
from pymc_aot.aot.identity.fingerprint import fingerprint_model
from pymc_aot.runtime.cli.modelref import load_model


def fixed_draws(model, seed: int, chains: int = 2, draws: int = 7) -> list[np.ndarray]:
    """Draws that depend only on the value variables' shapes, so both twins get the same ones."""
    rng = np.random.default_rng(seed)
    point = model.initial_point()
    return [
        rng.normal(0.1, 0.4, size=(chains, draws, *np.shape(point[v.name]))).astype(v.dtype) for v in model.value_vars
    ]


def run_case(case_dir: Path, out_dir: Path) -> dict:
    model = load_model(f"{case_dir / 'model.py'}:model")
    fp = fingerprint_model(model)
    samples = fixed_draws(model, seed=11)
    before = (runtime.COUNTERS.compiles, runtime.COUNTERS.disk_hits)
    ours = runtime.postprocess(model, samples, strategy="vmap")
    stock = pymc_posterior(model, samples)
    kinds = {runtime.COUNTERS.events[-1][1]}
    if model.observed_RVs:
        ours |= {f"ll/{k}": v for k, v in runtime.log_likelihood(model, samples, strategy="vmap").items()}
        stock |= {f"ll/{k}": v for k, v in pymc_log_likelihood(model, samples).items()}
        kinds.add(runtime.COUNTERS.events[-1][1])
    store = runtime.get_store(None)
    arrays = {f"ours/{k}": np.asarray(v) for k, v in ours.items()} | {f"stock/{k}": v for k, v in stock.items()}
    np.savez(out_dir / f"{case_dir.name}.npz", **arrays)
    return {
        "compiles": runtime.COUNTERS.compiles - before[0],
        "disk_hits": runtime.COUNTERS.disk_hits - before[1],
        "exact": getattr(fp, "exact", None),
        "reasons": list(getattr(fp, "reasons", ())),
        "key_kinds": sorted({store.metadata(d)["key"].get("key_kind", "?") for d in kinds}),
    }


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    report = {Path(d).name: run_case(Path(d), out_dir) for d in sys.argv[2:]}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
