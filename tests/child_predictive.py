"""A fresh process: the regression's posterior predictive (streamed(16), seed 4) saved to argv[2]."""

from __future__ import annotations

import json
import sys

import numpy as np
from zoo import regression_data

import pymc_aot
from pymc_aot.runtime.transforms import engine

rng = np.random.default_rng(0)
post = {"beta": rng.normal(size=(2, 30, 3)), "sigma": np.abs(rng.normal(size=(2, 30))) + 0.2}
out = pymc_aot.posterior_predictive(regression_data(), post, random_seed=4, strategy="streamed(16)", cache=sys.argv[1])
np.save(sys.argv[2], np.asarray(out["y"]))
print(json.dumps({"compiles": engine.COUNTERS.compiles}))
