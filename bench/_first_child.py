"""One fresh-process run for first_result.py: a built model until its first postprocessed array.

Usage: _first_child.py MODE MODEL SCALE CHAINS DRAWS DIR    (MODE: stock | jax-pcc | aot)

The process imports pymc and jax and builds its model first, as a user's script does before
sampling; the clock starts after that and counts everything the path imports itself.
Prints one JSON line: {"seconds": ..., "modules": [...heavy modules the path imported...],
"phases": {step: seconds} (aot only: import, then the runtime's own steps, see
``RuntimeCounters.last_phases``)}.
"""

from __future__ import annotations

import json
import sys
import time

mode, model_name, scale, chains, draws, directory = sys.argv[1:7]

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pymc  # noqa: E402, F401

if mode == "jax-pcc":
    jax.config.update("jax_compilation_cache_dir", directory)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)

from bench.models import MODELS  # noqa: E402
from pymc_aot import examples  # noqa: E402

ISSUE_MODELS = {"regression_2000x20": lambda: examples.regression(2000, 20, 10)}  # issue 13's regression

model = ISSUE_MODELS[model_name]() if model_name in ISSUE_MODELS else MODELS[model_name](float(scale))
rng = np.random.default_rng(0)
point = model.initial_point()
samples = [
    rng.normal(size=(int(chains), int(draws), *np.shape(point[v.name]))).astype(v.dtype) for v in model.value_vars
]
jax.devices()  # the sampler has initialised the backend before postprocessing
WATCH = (
    "pymc.sampling.jax",
    "pytensor.link.jax.dispatch",
    "numpyro",
    "pymc_aot.aot.build.graph",
    "pymc_aot.aot.build.compiler",
)
before = {m for m in WATCH if m in sys.modules}
phases: dict[str, float] = {}

t0 = time.perf_counter()
if mode == "aot":
    import pymc_aot

    postprocess = pymc_aot.postprocess  # imports the runtime
    t_import = time.perf_counter()
    result = list(postprocess(model, samples, cache=directory).values())
    t_return = time.perf_counter()
    phases = {"import": t_import - t0, **pymc_aot.runtime.COUNTERS.last_phases}
else:
    import pymc.sampling.jax as pymc_jax
    from pymc.util import get_default_varnames

    outputs = list(get_default_varnames(model.unobserved_value_vars, include_transformed=False))
    fn = pymc_jax.get_jaxified_graph(inputs=model.value_vars, outputs=outputs)
    result = pymc_jax._postprocess_samples(
        fn, [jax.device_put(s) for s in samples], postprocessing_backend=None, postprocessing_vectorize="vmap",
        donate_samples=True,
    )
jax.block_until_ready(result)
t_end = time.perf_counter()
seconds = t_end - t0
if phases:
    phases["call"] = phases.get("call", 0.0) + t_end - t_return  # waiting for the results
    phases["other"] = seconds - sum(phases.values())
print(json.dumps({
    "seconds": seconds,
    "modules": sorted(m for m in WATCH if m in sys.modules and m not in before),
    "phases": phases,
    "dtypes": sorted({str(np.asarray(r).dtype) for r in result}),
}))
