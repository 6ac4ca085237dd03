"""One fresh-process pm.sample(nuts_sampler="numpyro") for sample_repeat.py. Prints JSON.

Usage: _sample_child.py MODE CACHE_DIR MODEL SCALE DRAWS TUNE CHAINS
MODE: stock | aot | aot+jax  (aot+jax also enables JAX's persistent cache in the pymc-aot root)
"""

from __future__ import annotations

import json
import sys
import time

mode, cache_dir, model_name, scale, draws, tune, chains = sys.argv[1:8]

import pymc as pm  # noqa: E402
import pymc.sampling.jax as pymc_jax  # noqa: E402

from bench.models import MODELS  # noqa: E402
from pymc_aot import runtime  # noqa: E402

if mode != "stock":
    # postprocessing and JAX's cache as BENCHMARKS measured them; PyMC samples (sample_start: the sampler)
    runtime.enable(cache_dir=cache_dir, jax_cache=mode == "aot+jax", sampler=False)

timings = {"postprocess": 0.0, "sampling": 0.0}
state = {"sampled": False}


def timed(name: str, bucket: str):
    inner = getattr(pymc_jax, name)

    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            if bucket == "sampling":
                state["sampled"] = True
                timings["sampling"] += time.perf_counter() - t0
            elif state["sampled"]:
                timings["postprocess"] += time.perf_counter() - t0

    setattr(pymc_jax, name, wrapper)


timed("_sample_numpyro_nuts", "sampling")
for seam in ("get_jaxified_graph", "_postprocess_samples", "_get_log_likelihood"):
    timed(seam, "postprocess")

model = MODELS[model_name](float(scale))
t0 = time.perf_counter()
with model:
    idata = pm.sample(
        draws=int(draws),
        tune=int(tune),
        chains=int(chains),
        nuts_sampler="numpyro",
        random_seed=1,
        progressbar=False,
        compute_convergence_checks=False,
        idata_kwargs={"log_likelihood": True},
    )
timings["total"] = time.perf_counter() - t0
timings["aot_compiles"] = runtime.COUNTERS.compiles
timings["aot_disk_hits"] = runtime.COUNTERS.disk_hits
print(json.dumps(timings))
