"""One fresh-process postprocessing measurement for bakeoff.py / predict.py. Prints JSON.

Usage: _post_child.py METHOD MODEL SCALE CHAINS DRAWS TRACKFILE
METHOD: pymc:vmap | pymc:scan | aot:<strategy> (vmap, scan_vmap, batched(10), auto, ...)

Samples are put on the device and every executable is compiled before tracking starts;
memray then tracks one call (the peak of what the call allocates over the pre-call
baseline), and a second call on fresh inputs is timed.
"""

from __future__ import annotations

import json
import os
import sys
import time

method, model_name, scale, chains, draws, track_file = sys.argv[1:7]
c, d = int(chains), int(draws)

import jax  # noqa: E402
import memray  # noqa: E402
import numpy as np  # noqa: E402

from bench.models import MODELS  # noqa: E402
from pymc_aot import aot  # noqa: E402
from pymc_aot.aot.build.request import make_request, value_signature  # noqa: E402

model = MODELS[model_name](float(scale))
fp = aot.fingerprint_model(model)
signature = value_signature(model, fp, c, d)
rng = np.random.default_rng(0)
host = [rng.normal(scale=0.1, size=shape).astype(dtype) for _, shape, dtype in signature]


def fresh() -> list:
    return [jax.block_until_ready(jax.device_put(x)) for x in host]


predicted: dict = {}


def analysis(compiled) -> dict:
    mem = compiled.memory_analysis()
    return {
        "argument": mem.argument_size_in_bytes,
        "output": mem.output_size_in_bytes,
        "temp": mem.temp_size_in_bytes,
        "alias": mem.alias_size_in_bytes,
    }


if method.startswith("pymc:"):
    from pymc.sampling.jax import _postprocess_samples, get_jaxified_graph
    from pymc.util import get_default_varnames

    vectorize = method.split(":", 1)[1]
    outputs = list(get_default_varnames(model.unobserved_value_vars, include_transformed=False))
    jax_fn = get_jaxified_graph(inputs=model.value_vars, outputs=outputs)
    if vectorize == "vmap":  # PyMC's own jitted function, compiled ahead so compile is not measured
        process = lambda xs: jax.vmap(jax.vmap(jax_fn))(*xs)
        compiled = jax.jit(process, donate_argnums=0).lower(fresh()).compile()
        predicted = analysis(compiled)

        def call(xs):
            return compiled(xs)
    else:  # PyMC's legacy scan runs op by op: warm its pieces up once on the same shapes

        def call(xs):
            return _postprocess_samples(jax_fn, xs, postprocessing_vectorize="scan")

        jax.block_until_ready(call(fresh()))
else:
    from pymc_aot.aot.choice.resolve import resolve

    request = make_request(model, signature, strategy=method.split(":", 1)[1], fingerprint=fp)
    entry = resolve(request, None)  # no store: every executable is compiled in this process
    executable, data_indices, chosen = entry.executable, entry.metadata.data_indices, entry.metadata.chosen
    data = [jax.device_put(fp.data[i].get_value(borrow=True)) for i in data_indices]
    predicted = analysis(executable)

    def call(xs):
        return executable(*xs, *data)


xs = fresh()
if os.path.exists(track_file):
    os.remove(track_file)
with memray.Tracker(track_file):
    out = jax.block_until_ready(call(xs))
peak = memray.FileReader(track_file).metadata.peak_memory
os.remove(track_file)
output_bytes = int(sum(np.asarray(o).nbytes for o in out))
del out, xs
xs = fresh()
t0 = time.perf_counter()
jax.block_until_ready(call(xs))
seconds = time.perf_counter() - t0
result = {"measured_peak": int(peak), "output_bytes": output_bytes, "seconds": seconds}
if method.startswith("aot:"):
    result["chosen"] = chosen
if predicted:
    p = predicted
    result["predicted_peak"] = int(p["argument"] + p["output"] + p["temp"] - p["alias"])
    result["predicted_new"] = int(p["output"] + p["temp"] - p["alias"])
print(json.dumps(result))
