"""Run in a fresh process: ``pm.compute_log_likelihood`` / ``pm.compute_deterministics`` with
pymc-aot enabled, on a few models; save the posterior used and the results.

Usage: python child_compute.py OUT.npz CACHE VARIANT [--forbid-compile]
VARIANT: 0 or 1, the version of ``compute_models.two_observed``.
With --forbid-compile, any graph build, lowering or XLA compile raises, and so does any
pymc-aot warning (a fallback to PyMC's own path would compile a PyTensor function).
"""

from __future__ import annotations

import json
import sys
import warnings

import numpy as np

args = [a for a in sys.argv[1:] if not a.startswith("--")]
out_path, cache, variant = args[0], args[1], int(args[2])
forbid = "--forbid-compile" in sys.argv

import jax  # noqa: E402
import pymc as pm  # noqa: E402
from compute_models import constrained_posterior, group, make_idata, two_observed  # noqa: E402
from zoo import ZOO  # noqa: E402

import pymc_aot  # noqa: E402
from pymc_aot import aot, runtime  # noqa: E402

if forbid:

    def refuse(*_a, **_k):
        raise AssertionError("a compile happened on what should be a cache hit")

    aot.compiler.compile_transform = refuse
    aot.compiler.build_transform = refuse
    jax.stages.Lowered.compile = refuse
    jax.stages.Traced.lower = refuse
    warnings.filterwarnings("error", message="pymc-aot")

models = {
    "two_observed": lambda: two_observed(variant),
    "time_series": ZOO["time_series"],
    "regression_data": ZOO["regression_data"],
}
out = {}
for name, build in models.items():
    model = build()
    posterior = constrained_posterior(model, cache, seed=3)
    for k, v in posterior.items():
        out[f"{name}/posterior/{k}"] = v
    with pymc_aot.enabled(cache_dir=cache, strategy="batched(7)"):
        idata = pm.compute_log_likelihood(make_idata(model, posterior), model=model, progressbar=False)
        dets = pm.compute_deterministics(group(idata, "posterior"), model=model)
    for k, v in group(idata, "log_likelihood").items():
        out[f"{name}/log_likelihood/{k}"] = v.values
    for k, v in dets.items():
        out[f"{name}/deterministics/{k}"] = v.values
np.savez(out_path, **out)
print(json.dumps({"compiles": runtime.COUNTERS.compiles, "disk_hits": runtime.COUNTERS.disk_hits}))
