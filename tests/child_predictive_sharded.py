"""A fresh process (JAX not started): the regression's posterior predictive with ``sharded(10)``
and ``streamed(10)`` over 2 host devices, and with ``vmap`` on one; prints whether they agree."""

from __future__ import annotations

import json
import sys

import numpy as np
from zoo import regression_data

import pymc_aot

rng = np.random.default_rng(0)
post = {"beta": rng.normal(size=(2, 30, 3)), "sigma": np.abs(rng.normal(size=(2, 30))) + 0.2}
model = regression_data()
run = lambda **kw: np.asarray(pymc_aot.posterior_predictive(model, post, random_seed=8, cache=sys.argv[1], **kw)["y"])
sharded = run(strategy="sharded(10)", devices=2)
streamed = run(strategy="streamed(10)", devices=2)
single = run(strategy="vmap")
print(json.dumps({"sharded": bool(np.array_equal(sharded, single)), "streamed": bool(np.array_equal(streamed, single))}))
