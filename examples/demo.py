"""Precompile a model, then postprocess synthetic draws twice: the second run is a cache hit.

    python examples/demo.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = """
import sys, time
import numpy as np
from pymc_aot import runtime
sys.path.insert(0, {here!r})
from eight_schools import model
rng = np.random.default_rng(0)
point = model.initial_point()
samples = [rng.normal(size=(4, 1000, *np.shape(point[v.name]))) for v in model.value_vars]
t0 = time.perf_counter()
import jax, pymc.sampling.jax  # what every pm.sample(nuts_sampler="numpyro"/"blackjax") has imported by then
t1 = time.perf_counter()
out = runtime.postprocess(model, samples)
t2 = time.perf_counter()
phases = ", ".join(f"{{k}} {{v * 1000:.1f}}" for k, v in runtime.COUNTERS.last_phases.items())
print(f"  imports (jax, pymc.sampling.jax; once per process, pm.sample pays them too): {{(t1 - t0) * 1000:7.1f}} ms")
print(f"  postprocess: {{runtime.COUNTERS.last_source:8s}} {{(t2 - t1) * 1000:7.1f}} ms   ({{phases}} ms)   "
      f"theta {{tuple(out['theta'].shape)}}  mean {{float(np.mean(out['theta'])):+.4f}}")
"""


def main() -> None:
    from pymc_aot import aot
    sys.path.insert(0, str(HERE))
    from eight_schools import model

    t0 = time.perf_counter()
    entry = aot.precompile(model, chains=4, draws=1000)
    state = "already cached" if entry.cached else f"compiled in {entry.timings['total']:.2f} s"
    print(f"precompile eight_schools (4 x 1000, {entry.strategy}): {state}, key {entry.digest[:12]}, "
          f"predicted peak {entry.memory.peak / 2**20:.2f} MiB  [{time.perf_counter() - t0:.2f} s]")
    print(f"cache: {entry.location}")
    for run in (1, 2):
        print(f"fresh process #{run}:")
        env = {**os.environ, "PYTHONWARNINGS": "ignore::FutureWarning"}
        subprocess.run([sys.executable, "-c", CHILD.format(here=str(HERE))], check=True, env=env)
    print("'disk' means the executable came from the cache: no PyTensor rewrite, no jaxify, no XLA compile;")
    print("its time is what the README's 'a cache hit costs' counts: fingerprint, key, read, deserialize, run.")


if __name__ == "__main__":
    main()
