"""Host devices whenever pymc-aot starts JAX, and a mesh that shrinks says so (issue 24, item 5)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent


def test_every_request_asks_for_pymcs_host_devices_before_jax_starts(monkeypatch):
    from zoo import scalars

    from pymc_aot.aot.build import request

    asked = []
    monkeypatch.setattr(request, "ensure_host_devices", lambda backend: asked.append(backend))
    model = scalars()
    request.make_request(model, (("mu", (2, 5), "float64"), ("sigma_log__", (2, 5), "float64")), strategy="vmap")
    assert asked == [None], "a plain vmap request starts JAX too: a later sharded call needs the devices"


def test_a_mesh_that_shrinks_says_so(monkeypatch):
    from pymc_aot.aot.strategies import sharding

    monkeypatch.setattr(sharding, "requested_devices", lambda devices, platform: ("d0", "d1", "d2"))
    with pytest.warns(UserWarning, match=r"devices=3 split neither 4 chains nor 10 draws evenly; the mesh uses 2"):
        plan = sharding.plan_mesh(3, "cpu", 4, 10)
    assert plan.size == 2


@pytest.mark.slow
def test_sharded_after_an_earlier_call_in_a_fresh_process(tmp_path):
    code = (
        "from zoo import draws_for, scalars; import pymc_aot\n"
        "m = scalars(); s = draws_for(m, chains=2, draws=10)\n"
        "pymc_aot.postprocess(m, s, strategy='vmap')\n"
        "out = pymc_aot.postprocess(m, s, strategy='sharded(5)', devices=2)\n"
        "print('RESULT', len(next(iter(out.values())).sharding.device_set))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(HERE), "PYMC_AOT_CACHE_DIR": str(tmp_path / "c")}
    env.pop("XLA_FLAGS", None)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "RESULT 2"
