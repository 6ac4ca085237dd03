"""One fresh-process peak-memory measurement of a warm posterior predictive. Prints a JSON line.

Usage: _predictive_peak_child.py METHOD N P POSTERIOR.npz CACHE TRACK STORE [STRATEGY]
METHOD: pymc (stock ``pm.sample_posterior_predictive``) | aot (the same call, pymc-aot enabled on
CACHE) | out (``pymc_aot.posterior_predictive(..., out=STORE)``). One call warms the process up
(compiles, loads, starts JAX); the second is measured: memray's peak of what it allocates
(TRACK, host and XLA's CPU buffers alike) and the process RSS over its pre-call value,
sampled every 2 ms. ``input_bytes``: the posterior arrays and the model's data.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import sys
import threading
import time
import warnings

method, n, p, posterior_file, cache, track, store = sys.argv[1:8]
strategy = sys.argv[8] if len(sys.argv) > 8 else "auto"

import numpy as np  # noqa: E402
import pymc as pm  # noqa: E402

import pymc_aot  # noqa: E402
from bench._common import posterior_idata  # noqa: E402
from pymc_aot import examples  # noqa: E402

model = examples.regression(int(n), int(p), 10)
with np.load(posterior_file) as saved:
    posterior = {k: saved[k] for k in saved.files}
idata = posterior_idata(posterior)
if method == "aot":
    warnings.filterwarnings("error", message="pymc-aot")
    pymc_aot.enable(cache_dir=cache)


def call() -> dict:
    if method == "out":
        shutil.rmtree(store, ignore_errors=True)
        return pymc_aot.posterior_predictive(model, posterior, random_seed=1, cache=cache, out=store, strategy=strategy)
    out = pm.sample_posterior_predictive(idata, model=model, random_seed=1, progressbar=False)
    return dict(out.posterior_predictive.data_vars)


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class RssPeak(threading.Thread):
    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.base = self.peak = rss()
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.peak = max(self.peak, rss())
            time.sleep(0.002)


out = call()
del out
gc.collect()
sampler = RssPeak()
sampler.start()
import memray  # noqa: E402

if os.path.exists(track):
    os.remove(track)
t0 = time.perf_counter()
with memray.Tracker(track, native_traces=False):
    out = call()
seconds = time.perf_counter() - t0
sampler.done.set()
sampler.join()
peak = int(memray.FileReader(track).metadata.peak_memory)
os.remove(track)
shapes = {k: (tuple(v.shape), np.dtype(v.dtype).itemsize) for k, v in out.items()}
data = sum(np.asarray(model[name].get_value()).nbytes for name in ("x", "group", "y_obs"))
result = {
    "peak": peak,
    "rss_peak": max(0, sampler.peak - sampler.base),
    "seconds": seconds,
    "output_bytes": int(sum(int(np.prod(s)) * size for s, size in shapes.values())),
    "input_bytes": int(sum(v.nbytes for v in posterior.values()) + data),
}
print(json.dumps(result))
