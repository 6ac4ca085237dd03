"""Run in a fresh process: postprocess a zoo model with ``sharded(B)`` and save the arrays.

Usage: python child_sharded.py OUT.npz MODEL DEVICES [--forbid-compile] [--one-device]
Never imports ``pymc.sampling.jax`` itself (a hit must not need it). ``--one-device``
starts JAX's CPU backend with one host device before asking for the transform.
Prints JSON: counters, device count, whether PyMC's JAX sampling module was imported, or
the error's type and message.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

args = [a for a in sys.argv[1:] if not a.startswith("--")]
forbid = "--forbid-compile" in sys.argv
if "--one-device" in sys.argv:
    os.environ.pop("XLA_FLAGS", None)

import jax  # noqa: E402

if "--one-device" in sys.argv:
    jax.config.update("jax_num_cpu_devices", 1)
    jax.devices()  # the backend starts now, with one CPU device

from zoo import ZOO, draws_for  # noqa: E402

from pymc_aot import runtime  # noqa: E402
from pymc_aot.aot.build import entries  # noqa: E402

if forbid:

    def refuse(*_a, **_k):
        raise AssertionError("a compile happened on what should be a cache hit")

    entries.compile_and_store = refuse  # not aot.build.compiler: importing it imports pymc.sampling.jax
    jax.stages.Lowered.compile = refuse
    jax.stages.Traced.lower = refuse

out_path, name, devices = args[0], args[1], args[2]
model = ZOO[name]()
samples = draws_for(model, chains=3, draws=8, seed=3)
report: dict = {}
try:
    result = runtime.postprocess(
        model, samples, strategy="sharded(3)", devices=None if devices == "default" else int(devices)
    )
    np.savez(out_path, **{k: np.asarray(v) for k, v in result.items()})
    report["mesh"] = len(next(iter(result.values())).sharding.device_set)
except ValueError as exc:
    report["error"] = [type(exc).__name__, str(exc)]
report.update(
    compiles=runtime.COUNTERS.compiles,
    disk_hits=runtime.COUNTERS.disk_hits,
    cpu_devices=len(jax.devices("cpu")),
    pymc_jax_imported="pymc.sampling.jax" in sys.modules,
)
print(json.dumps(report))
