"""Fresh process: pm.sample on the compiled sampler; writes the posterior and prints what ran.

Usage: python child_sampler.py SAMPLER OUT.npz JSON_OPTIONS
options: tune, draws, chains, seed, chunk_size, checkpoint, chain_method, slow_writes (seconds after each chunk)
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
import pymc as pm
from zoo import regression_data

from pymc_aot import runtime
from pymc_aot.aot.compat import sampler_options

sampler, out, options = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
if options.get("slow_writes"):
    from pymc_aot.runtime.sampler import checkpoint

    real_write = checkpoint.Checkpoint.write

    def slow_write(self, *args, **kwargs):
        real_write(self, *args, **kwargs)
        time.sleep(options["slow_writes"])

    checkpoint.Checkpoint.write = slow_write

runtime.enable(strategy="vmap", chunk_size=options.get("chunk_size", 50), checkpoint=options.get("checkpoint"))
with regression_data():
    idata = pm.sample(
        draws=options.get("draws", 60),
        tune=options.get("tune", 60),
        chains=options.get("chains", 2),
        nuts_sampler=sampler,
        random_seed=options.get("seed", 5),
        progressbar=False,
        compute_convergence_checks=False,
        **sampler_options({"chain_method": options.get("chain_method", "parallel")}),
    )
from pymc_aot.runtime.sampler.counts import COUNTS  # noqa: E402

arrays = {f"posterior/{k}": v.values for k, v in idata.posterior.items()}
arrays.update({f"sample_stats/{k}": v.values for k, v in idata.sample_stats.items()})
np.savez(out, **arrays)
print(json.dumps(COUNTS))
