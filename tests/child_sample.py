"""Fresh process: pm.sample(numpyro) with pymc-aot enabled; prints what the runtime did.

Usage: python child_sample.py OUT.nc [--forbid-compile]
"""

from __future__ import annotations

import json
import sys

import pymc as pm
from zoo import regression_data

import pymc_aot.aot.auto  # noqa: F401 - patched below
from pymc_aot import aot, runtime

builds = []
real_build = aot.compiler.build_transform


def counting_build(*args, **kwargs):
    if "--forbid-compile" in sys.argv:
        raise AssertionError("the postprocessing was compiled on what should be a cache hit")
    builds.append(1)
    return real_build(*args, **kwargs)


aot.compiler.build_transform = counting_build  # single strategies build here
aot.auto.build_transform = counting_build  # auto builds once for all its candidates

runtime.enable()
model = regression_data()
with model:
    idata = pm.sample(draws=20, tune=20, chains=2, nuts_sampler="numpyro", random_seed=3, progressbar=False,
                      compute_convergence_checks=False, idata_kwargs={"log_likelihood": True})
idata.to_netcdf(sys.argv[1])
print(json.dumps({"compiled": len(builds) > 0, "disk_hits": runtime.COUNTERS.disk_hits}))
