"""Run in a fresh process: postprocess a zoo model with ``streamed(B)`` over host devices.

Usage: python child_streamed_sharded.py OUT.npz MODEL DEVICES STRATEGY [--forbid-compile]
Never imports ``pymc.sampling.jax`` itself (a hit must not need it). Prints JSON: counters,
the stored entry's mesh devices, whether PyMC's JAX sampling module was imported.
"""

from __future__ import annotations

import json
import sys

import jax
import numpy as np
from zoo import ZOO, draws_for

from pymc_aot import runtime
from pymc_aot.aot.build import entries

args = [a for a in sys.argv[1:] if not a.startswith("--")]
if "--forbid-compile" in sys.argv:

    def refuse(*_a, **_k):
        raise AssertionError("a compile happened on what should be a cache hit")

    entries.compile_and_store = refuse  # not aot.build.compiler: importing it imports pymc.sampling.jax
    jax.stages.Lowered.compile = refuse
    jax.stages.Traced.lower = refuse

out_path, name, devices, strategy = args
model = ZOO[name]()
samples = draws_for(model, chains=3, draws=8, seed=3)
result = runtime.postprocess(model, samples, strategy=strategy, devices=int(devices))
np.savez(out_path, **{k: np.asarray(v) for k, v in result.items()})
print(
    json.dumps(
        {
            "compiles": runtime.COUNTERS.compiles,
            "disk_hits": runtime.COUNTERS.disk_hits,
            "host_arrays": all(isinstance(v, np.ndarray) for v in result.values()),
            "pymc_jax_imported": "pymc.sampling.jax" in sys.modules,
        }
    )
)
