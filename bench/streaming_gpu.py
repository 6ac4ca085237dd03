"""On a GPU: ``auto`` under a budget of half the output streams, stays under it, equals the CPU.

    python bench/streaming_gpu.py [--rows 20000] [--chains 4] [--draws 1000]

Needs a CUDA jax; not part of CI. The budget is half the posterior's bytes, so nothing
device-resident fits and ``auto`` must choose ``streamed`` (host memory is the machine's).
Checks ``memory_stats()["peak_bytes_in_use"]`` of the GPU against the budget and the
results against the same postprocessing on the CPU backend. Prints JSON; exit 1 on failure.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--draws", type=int, default=1000)
    opts = parser.parse_args(argv)

    import jax
    import numpy as np

    from pymc_aot import aot, examples, runtime
    from pymc_aot.aot.build.request import value_signature

    gpu = jax.devices("gpu")[0]
    model = examples.regression(opts.rows, 50, 10)
    signature = value_signature(model, aot.fingerprint_model(model), opts.chains, opts.draws)
    rng = np.random.default_rng(0)
    samples = [rng.normal(scale=0.1, size=shape).astype(dtype) for _, shape, dtype in signature]
    on_cpu = runtime.postprocess(model, samples, strategy="batched(16)", backend="cpu")
    output = sum(np.asarray(v).nbytes for v in on_cpu.values())
    budget = output // 2
    before = gpu.memory_stats()["peak_bytes_in_use"]
    on_gpu = runtime.postprocess(model, samples, backend="gpu", memory_budget=budget)
    peak = gpu.memory_stats()["peak_bytes_in_use"]
    entry = aot.precompile(model, chains=opts.chains, draws=opts.draws, backend="gpu", memory_budget=budget)
    same = all(np.allclose(np.asarray(on_gpu[k]), np.asarray(on_cpu[k]), rtol=1e-9, atol=1e-12) for k in on_cpu)
    result = {
        "output_bytes": int(output), "budget": int(budget), "peak_bytes_in_use": int(peak),
        "peak_before": int(before), "under_budget": bool(peak <= budget), "equal_to_cpu": bool(same),
        "host_arrays": all(isinstance(v, np.ndarray) for v in on_gpu.values()), "chosen": entry.strategy,
    }
    print(json.dumps(result))
    if not (result["under_budget"] and same):
        raise SystemExit(1)
    return result


if __name__ == "__main__":
    main()
