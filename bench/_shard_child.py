"""One fresh-process measurement for sharded.py. Prints JSON.

Usage: _shard_child.py METHOD MODEL SCALE CHAINS DRAWS TRACKFILE REPEATS
METHOD: pymc:vmap | aot:auto | aot:<strategy> | aot:sharded(B)@N (N host devices)

Samples are put on the default device and the executable compiled and loaded before
anything is measured; memray then tracks one call (peak of what it allocates, every host
device's buffers included: they are all this process's memory) and REPEATS more calls,
untracked, are timed (median).
"""

from __future__ import annotations

import json
import sys

import pymc.sampling.jax  # noqa: F401 - PyMC's 100 host devices, as in a pm.sample process

method, model_name, scale, chains, draws, track_file, repeats = sys.argv[1:8]
owner, _, spec = method.partition(":")
strategy, _, n_devices = spec.partition("@")

import jax  # noqa: E402

from bench._common import host_inputs, measure_calls, pymc_vmap_executable  # noqa: E402
from bench.models import MODELS  # noqa: E402
from pymc_aot import aot  # noqa: E402
from pymc_aot.aot.build.request import make_request, value_signature  # noqa: E402
from pymc_aot.runtime.transforms.engine import DEFAULT  # noqa: E402

model = MODELS[model_name](float(scale))
fp = aot.fingerprint_model(model)
signature = value_signature(model, fp, int(chains), int(draws))
host = host_inputs(signature)
devices = int(n_devices) if n_devices else None


def fresh() -> list:
    return [jax.block_until_ready(jax.device_put(x)) for x in host]


chosen = ""
if owner == "pymc":
    compiled = pymc_vmap_executable(model, fresh)
    predicted = compiled.memory_analysis()
    predicted_peak = predicted.argument_size_in_bytes + predicted.output_size_in_bytes + predicted.temp_size_in_bytes
    predicted_peak -= predicted.alias_size_in_bytes

    def call(xs):
        return jax.block_until_ready(compiled(xs))
else:
    request = make_request(model, signature, strategy=strategy, fingerprint=fp, devices=devices)
    loaded = DEFAULT.load(request, None)  # compiled (no store) and kept in this process's memo
    chosen = loaded.metadata.chosen
    mesh = len(loaded.metadata.mesh_devices or (0,))
    predicted_peak = loaded.metadata.device_peak * mesh  # XLA's analysis is per device

    def call(xs):
        result = DEFAULT.run(model, xs, strategy=strategy, use_cache=False, fingerprint=fp, devices=devices)
        return jax.block_until_ready(result)


peak, output_bytes, times = measure_calls(call, fresh, track_file, int(repeats))
print(
    json.dumps(
        {
            "measured_peak": int(peak),
            "predicted_peak": int(predicted_peak),
            "output_bytes": output_bytes,
            "seconds": sorted(times)[len(times) // 2],
            "times": times,
            "chosen": chosen,
        }
    )
)
