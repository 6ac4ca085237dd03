"""One fresh-process measurement for warmstart.py. Prints a JSON line.

Modes: cold (compile into an empty cache), warm (key + load from the cache, key timed
apart), jax-pcc (PyMC's own build: rewrite + jaxify + trace + lower + compile, through JAX's
persistent compilation cache; the first run fills it and is PyMC's stock build).
"""

from __future__ import annotations

import json
import sys
import time

mode, model_name, scale, chains, draws, cache_dir = sys.argv[1:7]
scale_f, c, d = float(scale), int(chains), int(draws)

import jax  # noqa: E402
import numpy as np  # noqa: E402

if mode == "jax-pcc":
    jax.config.update("jax_compilation_cache_dir", cache_dir)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)

from bench.models import MODELS  # noqa: E402
from pymc_aot import aot  # noqa: E402
from pymc_aot.aot.build.compiler import compile_transform, load_executable  # noqa: E402
from pymc_aot.aot.build.request import make_request, value_signature  # noqa: E402
from pymc_aot.cache import CacheStore  # noqa: E402
from pymc_aot.cache.entry import EntryMetadata  # noqa: E402

model = MODELS[model_name](scale_f)
device = jax.devices()[0]  # the sampler has initialised the backend before postprocessing
out: dict[str, float] = {}


def key_only():
    fp = aot.fingerprint_model(model)
    values = tuple(
        (n, (c, d, *shape), dt) for n, shape, dt in zip(fp.value_names, SHAPES, fp.value_dtypes, strict=True)
    )
    return make_request(model, values, strategy="vmap", fingerprint=fp)


# per-draw shapes come with the samples at run time; computing them here is not timed
SHAPES = [s[1][2:] for s in value_signature(model, aot.fingerprint_model(model), 1, 1)]

if mode == "cold":
    t0 = time.perf_counter()
    request = key_only()
    t1 = time.perf_counter()
    compiled = compile_transform(request)
    t2 = time.perf_counter()
    CacheStore(cache_dir).put(request.key.digest, compiled.payload, compiled.metadata.to_json())
    timings = compiled.metadata.timings
    out = {
        "key": t1 - t0,
        "build": timings.build,
        "lower": timings.lower,
        "compile": timings.compile,
        "cold": t2 - t0,
    }
elif mode == "warm":
    store = CacheStore(cache_dir)
    t0 = time.perf_counter()
    request = key_only()
    t1 = time.perf_counter()
    payload, doc = store.get(request.key.digest)
    meta = EntryMetadata.from_json(doc)
    exe = load_executable(payload, meta.n_args, len(meta.output_names), device)
    t2 = time.perf_counter()
    out = {"key": t1 - t0, "load": t2 - t1, "warm": t2 - t0}
elif mode == "jax-pcc":
    from pymc.sampling.jax import get_jaxified_graph
    from pymc.util import get_default_varnames

    t0 = time.perf_counter()
    outputs = list(get_default_varnames(model.unobserved_value_vars, include_transformed=False))
    fn = get_jaxified_graph(inputs=model.value_vars, outputs=outputs)
    args = [jax.ShapeDtypeStruct((c, d, *s), np.dtype(v.dtype)) for s, v in zip(SHAPES, model.value_vars, strict=True)]
    jax.jit(lambda *xs: jax.vmap(jax.vmap(fn))(*xs), donate_argnums=tuple(range(len(args)))).lower(*args).compile()
    out = {"jax_pcc": time.perf_counter() - t0}
print(json.dumps(out))
