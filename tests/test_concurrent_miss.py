"""Concurrent misses of one key on one writable cache directory (issue 25): processes that
miss at the same moment each get PyMC's numbers, compile at most once each, leave one valid
entry, and a reader polling the store meanwhile never meets a partial or broken entry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from reference import pymc_posterior
from zoo import draws_for, regression_data

from pymc_aot.cache import CacheStore

pytestmark = pytest.mark.slow  # four Python processes importing PyMC and JAX
HERE = Path(__file__).resolve().parent
WORKERS = 3


def _start(base: Path, role: str, *rest: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(HERE), PYTHONWARNINGS="ignore")
    for name in ("PYMC_AOT_CACHE_READONLY", "PYMC_AOT_CACHE_REMOTE", "PYMC_AOT_CACHE_SIGNING_KEY"):
        env.pop(name, None)
    command = [sys.executable, str(HERE / "child_concurrent_miss.py"), role, str(base), *rest]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=HERE)


def _release_together(base: Path, procs: list[subprocess.Popen], names: list[str]) -> None:
    deadline = time.monotonic() + 900
    while not all((base / f"ready-{n}").exists() for n in names):
        dead = [p for p in procs if p.poll() is not None]
        assert not dead, dead[0].communicate()[1][-3000:]
        assert time.monotonic() < deadline, "the children did not start"
        time.sleep(0.05)
    (base / "go").touch()


def test_processes_missing_one_key_at_once_store_it_once_and_never_read_it_broken(tmp_path):
    workers = [_start(tmp_path, "worker", str(i)) for i in range(WORKERS)]
    reader = _start(tmp_path, "reader")
    _release_together(tmp_path, [*workers, reader], [*map(str, range(WORKERS)), "reader"])
    outs = [p.communicate(timeout=900) for p in workers]
    (tmp_path / "done").touch()
    read_out = reader.communicate(timeout=300)
    for p, (_, err) in zip([*workers, reader], [*outs, read_out], strict=True):
        assert p.returncode == 0, err[-3000:]
    counted = [json.loads(out.strip().splitlines()[-1]) for out, _ in outs]
    polled = json.loads(read_out[0].strip().splitlines()[-1])
    assert all(c["warnings"] == [] for c in counted), counted
    assert polled["warnings"] == [], polled["warnings"][:3]
    assert polled["found"] >= 1, polled
    assert all(c["compiles"] + c["disk_hits"] == 1 and c["compiles"] <= 1 for c in counted), counted
    store = CacheStore(tmp_path / "cache")
    entries = store.entries()
    assert len(entries) == 1, "stored once"
    assert store.get(entries[0].digest) is not None, "the stored entry verifies"
    model = regression_data()
    expected = pymc_posterior(model, draws_for(model, seed=4))["mu"]
    for i in range(WORKERS):
        np.testing.assert_allclose(np.load(tmp_path / f"mu{i}.npy"), expected, rtol=1e-10)
