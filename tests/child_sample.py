"""Fresh process: pm.sample(numpyro) with pymc-aot enabled; prints what the runtime did.

Usage: python child_sample.py OUT.nc [--forbid-compile]
"""

from __future__ import annotations

import json
import sys

import pymc as pm
from zoo import regression_data

from pymc_aot import aot, runtime

compiles = []
real_compile = aot.build.compiler.compile_transform


def counting_compile(*args, **kwargs):
    if "--forbid-compile" in sys.argv:
        raise AssertionError("the postprocessing was compiled on what should be a cache hit")
    compiles.append(1)
    return real_compile(*args, **kwargs)


aot.build.compiler.compile_transform = counting_compile  # every compile, auto's candidates included

runtime.enable()
model = regression_data()
with model:
    idata = pm.sample(draws=20, tune=20, chains=2, nuts_sampler="numpyro", random_seed=3, progressbar=False,
                      compute_convergence_checks=False, idata_kwargs={"log_likelihood": True})
idata.to_netcdf(sys.argv[1])
print(json.dumps({"compiled": len(compiles) > 0, "disk_hits": runtime.COUNTERS.disk_hits}))
