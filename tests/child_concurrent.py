"""One of N processes precompiling and postprocessing the same model at once."""

from __future__ import annotations

import json
import sys

import numpy as np
from zoo import draws_for, regression_data

from pymc_aot import aot, runtime

model = regression_data()
entry = aot.precompile(model, chains=2, draws=7, strategy="batched", batch_size=3)
out = runtime.postprocess(model, draws_for(model, seed=4), strategy="batched", batch_size=3)
np.save(sys.argv[1], np.asarray(out["mu"]))
print(json.dumps({"digest": entry.digest}))
