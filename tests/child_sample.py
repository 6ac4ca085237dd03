"""Fresh process: pm.sample(numpyro) with pymc-aot enabled; prints what the runtime did.

Usage: python child_sample.py OUT.nc [--forbid-compile]
"""

from __future__ import annotations

import json
import sys

import pymc as pm
from zoo import regression_data

import aot.compiler
import runtime

if "--forbid-compile" in sys.argv:

    def refuse(*_a, **_k):
        raise AssertionError("the postprocessing was compiled on what should be a cache hit")

    aot.compiler.compile_transform = refuse
    aot.compiler.build_transform = refuse

runtime.enable()
model = regression_data()
with model:
    idata = pm.sample(draws=20, tune=20, chains=2, nuts_sampler="numpyro", random_seed=3, progressbar=False,
                      compute_convergence_checks=False, idata_kwargs={"log_likelihood": True})
idata.to_netcdf(sys.argv[1])
print(json.dumps({"compiles": runtime.COUNTERS.compiles, "disk_hits": runtime.COUNTERS.disk_hits}))
