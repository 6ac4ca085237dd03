"""The key parts of the zoo's requests, as JSON on stdout, from whichever pymc_aot is on the path.

tests/test_rooms_keep_keys.py runs it against this checkout and against an older one; only the
public names (``aot.make_request``, ``aot.fingerprint_model``, ``aot.value_signature``) are used,
so any layout of the package answers.
"""

from __future__ import annotations

import json

from zoo import ZOO  # this script's folder is first on sys.path

import pymc_aot
from pymc_aot import aot

CASES = (
    {"strategy": "vmap"},
    {"strategy": "vmap", "log_likelihood": True},
    {"strategy": "batched", "batch_size": 5},
    {"strategy": "scan"},
    {"strategy": "streamed", "batch_size": 5},
    {"strategy": "auto", "memory_budget": 2**30},
)

out: dict = {"package": pymc_aot.__file__, "parts": {}}
for name, build in ZOO.items():
    model = build()
    fp = aot.fingerprint_model(model)
    values = aot.value_signature(model, fp, 2, 10)
    for case in CASES:
        key = aot.make_request(model, values, fingerprint=fp, **case).key
        out["parts"][f"{name} {sorted(case.items())}"] = key.parts()
print(json.dumps(out, sort_keys=True, default=str))
