"""One fresh-process measurement for predictive.py. Prints a JSON line.

Usage: _predictive_child.py METHOD WORKFLOW N P POSTERIOR.npz CACHE TRACK BATCHES
METHOD: pymc (stock) | pymc_jax (stock, compile_kwargs={"mode": "JAX"}) | aot (pymc-aot enabled on CACHE).
WORKFLOW: ppc (one pm.sample_posterior_predictive) | batches (BATCHES x pm.set_data of new rows of one
shape, then sample_posterior_predictive(predictions=True)). TRACK: a memray file, or "-" to time.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings

method, workflow, n, p, posterior_file, cache, track, batches = sys.argv[1:9]

import numpy as np  # noqa: E402
import pymc as pm  # noqa: E402

from bench._common import posterior_idata  # noqa: E402
from pymc_aot import examples  # noqa: E402

model = examples.regression(int(n), int(p), 10)
with np.load(posterior_file) as saved:
    posterior = {k: saved[k] for k in saved.files}
idata = posterior_idata(posterior)
result: dict = {}
if method == "aot":
    import pymc_aot
    from pymc_aot import runtime

    warnings.filterwarnings("error", message="pymc-aot")  # a fallback to PyMC would be measured as ours
    t0 = time.perf_counter()
    pymc_aot.enable(cache_dir=cache)
    result["enable"] = time.perf_counter() - t0
kwargs = {"compile_kwargs": {"mode": "JAX"}} if method == "pymc_jax" else {}
rng = np.random.default_rng(1)
new_x = [rng.normal(size=(int(n), int(p))) for _ in range(int(batches))] if workflow == "batches" else []


calls: list[float] = []  # seconds of each batch (pm.set_data and the call), for the steady state


def call():
    if workflow == "ppc":
        out = pm.sample_posterior_predictive(idata, model=model, random_seed=1, progressbar=False, **kwargs)
        return [out.posterior_predictive]
    outs = []
    for x in new_x:
        t = time.perf_counter()
        with model:
            pm.set_data({"x": x})
        outs.append(
            pm.sample_posterior_predictive(
                idata, model=model, predictions=True, random_seed=1, progressbar=False, **kwargs
            ).predictions
        )
        calls.append(time.perf_counter() - t)
    return outs


if track == "-":
    t0 = time.perf_counter()
    out = call()
    result["seconds"] = time.perf_counter() - t0
    if calls:
        result["calls"] = calls
else:
    import memray

    if os.path.exists(track):
        os.remove(track)
    with memray.Tracker(track):
        out = call()
    result["peak"] = int(memray.FileReader(track).metadata.peak_memory)
    os.remove(track)
result["output_bytes"] = int(sum(v.nbytes for ds in out for v in ds.data_vars.values()))
result["mean"] = float(np.mean([np.mean(v.values) for ds in out for v in ds.data_vars.values()]))
if method == "aot":
    result["compiles"] = runtime.COUNTERS.compiles
print(json.dumps(result))
