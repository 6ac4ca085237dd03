"""Run in a fresh process: stream a posterior into a Zarr store slowly, to be killed mid-write.

Usage: python child_zarr_writer.py STORE CACHE_DIR
Prints "wrote N" (flushed) after each batch reaches the store; each write then sleeps 50 ms
(a slow disk), so the parent has time to kill the process between two batches.
"""

from __future__ import annotations

import sys
import time

from zoo import ZOO, draws_for

from pymc_aot import runtime
from pymc_aot.runtime.streams import zarr_store

store, cache_dir = sys.argv[1:3]
original = zarr_store.ZarrWriter.write
count = [0]


def slow_write(self, first, batch):
    original(self, first, batch)
    count[0] += 1
    print(f"wrote {count[0]}", flush=True)
    time.sleep(0.05)


zarr_store.ZarrWriter.write = slow_write
model = ZOO["shapes_and_bounds"]()
samples = draws_for(model, chains=2, draws=200)
runtime.postprocess(model, samples, strategy="streamed(2)", out=store, cache=cache_dir)
print("finished", flush=True)
