"""floatX=float32 (jax_enable_x64 off) in a fresh process, against PyMC."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent

SCRIPT = """
import numpy as np, jax, pytensor
from zoo import ZOO, draws_for
from reference import assert_same, pymc_posterior, pymc_log_likelihood
from pymc_aot import runtime
assert pytensor.config.floatX == "float32" and not jax.config.jax_enable_x64
for name in ("shapes_and_bounds", "regression_data", "simplex_ordered"):
    model = ZOO[name]()
    samples = draws_for(model)
    assert all(s.dtype == np.float32 for s in samples)
    for strategy in ("vmap", "nested_scan", "batched(3)"):
        got = runtime.postprocess(model, [s.copy() for s in samples], strategy=strategy)
        assert all(np.asarray(v).dtype == np.float32 for v in got.values())
        assert_same(got, pymc_posterior(model, samples))
    assert_same(runtime.log_likelihood(model, samples), pymc_log_likelihood(model, samples))
    entry = runtime.get_store(None).entries()[-1]
    assert entry.metadata["key"]["x64"] is False and entry.metadata["key"]["floatX"] == "float32"
print("ok")
"""


@pytest.mark.slow
def test_float32_models_match_pymc(tmp_path):
    env = dict(
        os.environ,
        PYTENSOR_FLAGS="floatX=float32",
        PYMC_AOT_CACHE_DIR=str(tmp_path),
        PYTHONPATH=str(HERE),
    )
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, cwd=HERE, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("ok")
