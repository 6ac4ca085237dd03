"""One fresh-process warm preflight for first_result.py --preflight.

Usage: _preflight_child.py SHAPES MODEL SCALE CHAINS DRAWS DIR    (SHAPES: initial-point | inferred)

What ``pm.sample(nuts_sampler=..., idata_kwargs={"log_likelihood": True})`` does before sampling
under ``enable()`` with ``auto``: two precompiles (posterior, log-likelihood) on a cache already
filled. ``initial-point`` takes the input shapes the old way (``model.initial_point()``, a PyTensor
compile); ``inferred`` by shape inference (``aot/build/value_shapes.py``). Prints one JSON line:
{"seconds": ..., "compiled": whether anything was compiled}.
"""

from __future__ import annotations

import json
import sys
import time

shapes, model_name, scale, chains, draws, directory = sys.argv[1:7]

import numpy as np  # noqa: E402
import pymc  # noqa: E402, F401

from bench.models import PREFLIGHT_MODELS  # noqa: E402
from pymc_aot.aot import value_shapes  # noqa: E402
from pymc_aot.aot.build.options import RequestOptions  # noqa: E402
from pymc_aot.aot.choice.resolve import precompile_with  # noqa: E402

if shapes == "initial-point":

    def _from_initial_point(model):
        point = model.initial_point()
        return [tuple(np.shape(point[model.rvs_to_values[rv].name])) for rv in model.free_RVs]

    value_shapes.value_shapes = _from_initial_point

model = PREFLIGHT_MODELS[model_name](float(scale))
options = RequestOptions(memory_budget="2GiB")
shape = {"chains": int(chains), "draws": int(draws), "cache": directory}
t0 = time.perf_counter()
entries = [precompile_with(model, options.replace(log_likelihood=ll), **shape) for ll in (False, True)]
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "compiled": any(e.compiles for e in entries)}))
