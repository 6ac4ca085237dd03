"""Run in a fresh process: postprocess one zoo model (``auto`` strategy) on the cache given.

Usage: python child_hit_modules.py CACHE_DIR
Prints one JSON line: the counters, and which of ``OFF_THE_HIT_PATH`` got imported.
"""

from __future__ import annotations

import json
import sys

import jax  # noqa: F401 - a user's script has imported jax and pymc
import pymc  # noqa: F401
from zoo import ZOO, draws_for

OFF_THE_HIT_PATH = (
    # builders: PyTensor's JAX dispatch and what imports it
    "pymc.sampling.jax",
    "pytensor.link.jax.dispatch",
    "numpyro",
    "pymc_aot.aot.build.graph",
    "pymc_aot.aot.build.compiler",
    # the store's writer and listings
    "diskcache",
    "pymc_aot.cache.candidates",
    "pymc_aot.cache.entry_record",
    # other entry points: from_posterior, out=, display
    "pymc_aot.runtime.transforms.from_posterior",
    "pymc_aot.aot.build.constrained",
    "pymc_aot.runtime.streams.zarr_store",
    "pymc_aot.render",
)
model = ZOO["regression_data"]()
draws = draws_for(model, seed=5)
before = {m for m in OFF_THE_HIT_PATH if m in sys.modules}
from pymc_aot import runtime  # noqa: E402

runtime.postprocess(model, draws, cache=sys.argv[1])
print(json.dumps({
    "counters": {"compiles": runtime.COUNTERS.compiles, "disk_hits": runtime.COUNTERS.disk_hits},
    "imported": sorted(m for m in OFF_THE_HIT_PATH if m in sys.modules and m not in before),
    "already": sorted(before),
    "watched": list(OFF_THE_HIT_PATH),
}))
