"""A fresh process: ``pm.sample_posterior_predictive`` on the Poisson model inside ``enable()``
(cache argv[1], strategy vmap), on a 2 x 30 posterior shaped like ``pm.sample``'s."""

from __future__ import annotations

import json
import sys
import warnings

import numpy as np
import pymc as pm
from idata_helpers import from_dict
from predictive_models import poisson

import pymc_aot
from pymc_aot.runtime.transforms import engine

model = poisson()
rng = np.random.default_rng(0)
idata = from_dict(
    {
        "posterior": {"a": rng.normal(1, 0.1, size=(2, 30)), "b": rng.normal(0, 0.1, size=(2, 30))},
        "constant_data": {"x": model["x"].get_value()},
        "observed_data": {"y": model.rvs_to_values[model["y"]].data},
    }
)
warnings.simplefilter("error", RuntimeWarning)
with pymc_aot.enabled(cache_dir=sys.argv[1], strategy="vmap"):
    out = pm.sample_posterior_predictive(idata, model=model, random_seed=1, progressbar=False)
assert out.posterior_predictive["y"].shape == (2, 30, 6)
print(json.dumps({"compiles": engine.COUNTERS.compiles, "disk_hits": engine.COUNTERS.disk_hits}))
