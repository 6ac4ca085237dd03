"""Run in a fresh process: postprocess zoo models and save the arrays.

Usage: python child_postprocess.py OUT.npz MODEL [MODEL ...] [--forbid-compile]
With --forbid-compile, any graph build, lowering or XLA compile raises.
"""

from __future__ import annotations

import json
import sys

import numpy as np

args = [a for a in sys.argv[1:] if not a.startswith("--")]
forbid = "--forbid-compile" in sys.argv

from children import forbid_compiles  # noqa: E402
from zoo import ZOO, draws_for  # noqa: E402

from pymc_aot import runtime  # noqa: E402

if forbid:
    forbid_compiles()

out = {}
for name in args[1:]:
    model = ZOO[name]()
    samples = draws_for(model, seed=3)
    for kind in (False, True):
        result = runtime.postprocess(model, samples, log_likelihood=kind, strategy="batched(5)")
        for k, v in result.items():
            out[f"{name}/{kind}/{k}"] = np.asarray(v)
np.savez(args[0], **out)
print(json.dumps({"compiles": runtime.COUNTERS.compiles, "disk_hits": runtime.COUNTERS.disk_hits}))
