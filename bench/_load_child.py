"""Fresh-process helper for load_options.py.

build MODEL STRATEGY DIR VARIANTS_JSON   compile the transform once per variant, write DIR/<variant>.bin/.json
load  MODEL DIR VARIANT                   deserialize it, call it once, then 5 more times; print one JSON line
"""

from __future__ import annotations

import json
import sys
import time

import jax
import numpy as np
import pymc  # noqa: F401

from bench.models import MODELS
from pymc_aot.aot.build.request import make_request, match_floatx, value_signature
from pymc_aot.aot.identity.fingerprint import fingerprint_model

CHAINS, DRAWS = 4, 100


def _packed(fn):
    """The per-draw function with every output raveled into one float64 vector (an experiment:
    one output buffer instead of one per variable; the host would split it)."""
    import jax.numpy as jnp

    return lambda *args: (jnp.concatenate([jnp.ravel(o).astype(jnp.float64) for o in fn(*args)]),)


def build(model, strategy: str, directory: str, variants: dict[str, dict]) -> None:
    from jax.experimental.serialize_executable import serialize

    from pymc_aot.aot.build.graph import build_transform

    strategy, _, packed = strategy.partition("+")
    fp = fingerprint_model(model)
    request = make_request(model, value_signature(model, fp, CHAINS, DRAWS), strategy=strategy, fingerprint=fp)
    graph = build_transform(model, request.spec, fp)
    fn = _packed(graph.fn) if packed else graph.fn
    key, sharding = request.key, jax.sharding.SingleDeviceSharding(request.device)
    sig = [*key.values, *(key.data[i] for i in graph.data_indices)]
    args = [jax.ShapeDtypeStruct(shape, np.dtype(dtype), sharding=sharding) for _, shape, dtype in sig]
    lowered = jax.jit(request.strategy.apply(fn, len(key.values))).lower(*args)
    for name, options in variants.items():
        t0 = time.perf_counter()
        compiled = lowered.compile(compiler_options=options or None)
        meta = {"compile_s": time.perf_counter() - t0, "hlo_lines": compiled.as_text().count("\n"),
                "n_args": len(args), "n_out": 1 if packed else len(graph.output_names),
                "data": list(graph.data_indices)}
        payload, _, _ = serialize(compiled)
        meta["kb"] = len(payload) / 1024
        with open(f"{directory}/{name}.bin", "wb") as fh:
            fh.write(payload)
        with open(f"{directory}/{name}.json", "w") as fh:
            json.dump(meta, fh)


def load(model, directory: str, name: str) -> dict[str, float]:
    from pymc_aot.aot.build.loader import load_executable

    match_floatx()
    fp = fingerprint_model(model)
    meta = json.load(open(f"{directory}/{name}.json"))
    payload = open(f"{directory}/{name}.bin", "rb").read()
    rng = np.random.default_rng(0)
    point = model.initial_point()
    draws = [rng.normal(size=(CHAINS, DRAWS, *np.shape(point[v.name]))) for v in model.value_vars]
    data = [fp.data[i].get_value(borrow=True) for i in meta["data"]]
    device = jax.devices()[0]
    w0, c0 = time.perf_counter(), time.process_time()
    exe = load_executable(payload, meta["n_args"], meta["n_out"], device)
    w1, c1 = time.perf_counter(), time.process_time()
    jax.block_until_ready(exe(*jax.device_put(draws, device), *data))
    w2 = time.perf_counter()
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        jax.block_until_ready(exe(*jax.device_put(draws, device), *data))
        runs.append(time.perf_counter() - t)
    return {"load_s": w1 - w0, "load_cpu_s": c1 - c0, "first_call_s": w2 - w1, "run_s": sorted(runs)[2]}


if __name__ == "__main__":
    mode, model_name = sys.argv[1], sys.argv[2]
    model = MODELS[model_name](1.0)
    if mode == "build":
        build(model, sys.argv[3], sys.argv[4], json.loads(sys.argv[5]))
        print(json.dumps({}))
    else:
        print(json.dumps(load(model, sys.argv[3], sys.argv[4])))
