"""One fresh-process pm.sample for sample_start.py. Prints JSON.

Usage: _sample_start_child.py MODE CACHE_DIR MODEL SCALE DRAWS TUNE CHAINS SAMPLER [CHUNK_SIZE]
MODE: stock | stock+jax (JAX's persistent cache in CACHE_DIR) | aot (the compiled sampler, chunks of
CHUNK_SIZE steps, default 100); a ``+newdata`` suffix scales the pm.Data values by 1.01 before
sampling (same shapes, new values).
"""

from __future__ import annotations

import json
import sys
import time

mode, cache_dir, model_name, scale, draws, tune, chains, sampler = sys.argv[1:9]
chunk_size = int(sys.argv[9]) if len(sys.argv) > 9 else 100
T0 = time.perf_counter()

import jax  # noqa: E402
import pymc as pm  # noqa: E402
import pymc.sampling.jax as pymc_jax  # noqa: E402

from bench.models import MODELS  # noqa: E402
from pymc_aot import runtime  # noqa: E402

events: list[tuple[float, float]] = []  # (end time, seconds) of JAX's trace / lower / compile steps
WATCHED = ("jaxpr_trace_duration", "jaxpr_to_mlir_module_duration", "backend_compile_duration", "cache_retrieval")
jax.monitoring.register_event_duration_secs_listener(
    lambda event, secs, **_: events.append((time.perf_counter(), secs)) if any(w in event for w in WATCHED) else None
)
if mode.startswith("stock+jax"):
    jax.config.update("jax_compilation_cache_dir", cache_dir)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
elif mode.startswith("aot"):
    runtime.enable(cache_dir=cache_dir, strategy="vmap", chunk_size=chunk_size)  # the compiled sampler: default

window: dict[str, float] = {}
name = f"_sample_{sampler}_nuts"
inner = getattr(pymc_jax, name)


def timed(*args, **kwargs):
    window["start"] = time.perf_counter()
    try:
        return inner(*args, **kwargs)
    finally:
        window["end"] = time.perf_counter()


if not mode.startswith("aot"):  # pymc-aot's counters time its own sampler: a replaced PyMC function
    setattr(pymc_jax, name, timed)  # would make the model's key inexact (issue 26) and sampling PyMC's
model = MODELS[model_name](float(scale))
if mode.endswith("+newdata"):
    with model:
        pm.set_data({v.name: v.get_value() * 1.01 for v in model.data_vars if v.dtype.startswith("float")})
t0 = time.perf_counter()
with model:
    pm.sample(
        draws=int(draws),
        tune=int(tune),
        chains=int(chains),
        nuts_sampler=sampler,
        random_seed=1,
        progressbar=False,
        compute_convergence_checks=False,
    )
t_end = time.perf_counter()
if mode.startswith("aot"):
    from pymc_aot.runtime.sampler.counts import DONE, READY

    ready, window["end"] = READY[-1], DONE[-1]
    window["start"] = ready  # "window": the sampler's call; here only its sampling is timed
else:  # the sampler's own trace / lower / compile time, inside its window
    ready = window["start"] + sum(s for end, s in events if window["start"] <= end <= window["end"])
print(
    json.dumps(
        {
            "first_draw": ready - t0,
            "sampling": window["end"] - ready,
            "postprocess": t_end - window["end"],
            "total": t_end - t0,
            "window": window["end"] - window["start"],
            "process": t_end - T0,
        }
    )
)
