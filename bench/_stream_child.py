"""One fresh-process streaming measurement for streaming.py. Prints JSON.

Usage: _stream_child.py METHOD ROWS CHAINS DRAWS STORE TRACKFILE REPEATS
METHOD: pymc:vmap | aot:<strategy> (in memory) | out:<strategy> (into the Zarr store STORE)

The model is ``examples.regression(ROWS, 50, 10)``: its ``mu`` deterministic is ROWS x
CHAINS*DRAWS float64. Samples are put on the device and the executable is compiled and
loaded before tracking starts; memray then tracks one call (peak of what it allocates),
and REPEATS more calls, untracked, are timed (median; for out:, each on a deleted store).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

method, rows, chains, draws, store, track_file, repeats = sys.argv[1:8]
c, d = int(chains), int(draws)
owner, _, strategy = method.partition(":")

import jax  # noqa: E402
import numpy as np  # noqa: E402

from bench._common import host_inputs, measure_calls, pymc_vmap_executable  # noqa: E402
from pymc_aot import aot, examples  # noqa: E402
from pymc_aot.aot.build.request import make_request, value_signature  # noqa: E402
from pymc_aot.runtime.transforms.engine import DEFAULT  # noqa: E402

model = examples.regression(int(rows), 50, 10)
fp = aot.fingerprint_model(model)
signature = value_signature(model, fp, c, d)
host = host_inputs(signature)
out = store if owner == "out" else None


def fresh() -> list:
    return [jax.block_until_ready(jax.device_put(x)) for x in host]


chosen = ""
if owner == "pymc":
    compiled = pymc_vmap_executable(model, fresh)
    data_bytes = 0  # PyMC closes over the data: constants inside the executable

    def call(xs):
        return jax.block_until_ready(compiled(xs))
else:
    request = make_request(model, signature, strategy=strategy, fingerprint=fp, to_disk=out is not None)
    loaded = DEFAULT.load(request, None)  # compiled (no store) and kept in this process's memo
    chosen = loaded.metadata.chosen
    data_bytes = sum(np.asarray(fp.data[i].get_value()).nbytes for i in loaded.data_indices)

    def call(xs):
        result = DEFAULT.run(model, xs, strategy=strategy, use_cache=False, fingerprint=fp, out=out)
        return jax.block_until_ready(result)


def clear_store() -> None:
    if out is not None and os.path.exists(out):
        shutil.rmtree(out)


peak, output_bytes, times = measure_calls(call, fresh, track_file, int(repeats), before=clear_store)
seconds = sorted(times)[len(times) // 2]
on_disk = sum(f.stat().st_size for f in Path(out).rglob("*") if f.is_file()) if out else 0
clear_store()
inputs = int(sum(x.nbytes for x in host) + data_bytes)
print(json.dumps({"measured_peak": int(peak), "output_bytes": output_bytes, "input_bytes": inputs,
                  "seconds": seconds, "chosen": chosen, "store_bytes": on_disk}))
