"""One fresh-process measurement for compute.py. Prints a JSON line.

Usage: _compute_child.py METHOD FUNCTION MODEL SCALE POSTERIOR.npz CACHE TRACK
METHOD: pymc (PyMC's own function) | aot (the same call with pymc-aot enabled on CACHE).
FUNCTION: log_likelihood | deterministics. TRACK: a memray file, or "-" to time the call.

The model is built and the posterior loaded (an InferenceData with the model's coords) before
the call; pymc-aot is enabled before it too (enabling imports PyMC's JAX module, reported as
``enable``). The call is timed, or tracked by memray (peak over the pre-call baseline), never
both: memray slows PyMC's Python loop down.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings

method, function, model_name, scale, posterior_file, cache, track = sys.argv[1:8]

import numpy as np  # noqa: E402
import pymc as pm  # noqa: E402
from pymc.backends.arviz import coords_and_dims_for_inferencedata  # noqa: E402

from bench._common import posterior_idata  # noqa: E402
from bench.compute import build  # noqa: E402

model = build(model_name, float(scale))
with np.load(posterior_file) as saved:
    posterior = {k: saved[k] for k in saved.files}
coords, dims = coords_and_dims_for_inferencedata(model)
idata = posterior_idata(posterior, coords=coords, dims=dims)

result: dict = {}
if method == "aot":
    import pymc_aot
    from pymc_aot import runtime

    warnings.filterwarnings("error", message="pymc-aot")  # a fallback to PyMC would be measured as ours
    t0 = time.perf_counter()
    pymc_aot.enable(cache_dir=cache)
    result["enable"] = time.perf_counter() - t0


def call():
    if function == "log_likelihood":
        return pm.compute_log_likelihood(idata, model=model, extend_inferencedata=False, progressbar=False)
    return pm.compute_deterministics(idata.posterior, model=model, progressbar=False)


if track == "-":
    t0 = time.perf_counter()
    out = call()
    result["seconds"] = time.perf_counter() - t0
else:
    import memray

    if os.path.exists(track):
        os.remove(track)
    with memray.Tracker(track):
        out = call()
    result["peak"] = int(memray.FileReader(track).metadata.peak_memory)
    os.remove(track)
result["output_bytes"] = int(sum(v.nbytes for v in out.data_vars.values()))
result["checksum"] = float(sum(np.nansum(v.values) for v in out.data_vars.values()))
if method == "aot":
    result["compiles"] = runtime.COUNTERS.compiles
    result["disk_hits"] = runtime.COUNTERS.disk_hits
print(json.dumps(result))
