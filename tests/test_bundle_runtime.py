"""A bundle from a real run, read by workers in fresh processes: imported, or read in place."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from reference import pymc_posterior
from zoo import draws_for, scalars

from pymc_aot.cache import CacheStore, generate_keypair
from pymc_aot.cache.transfer import export_bundle, import_bundle

pytestmark = pytest.mark.slow  # fresh worker processes

HERE = Path(__file__).parent


def _child(out: Path, env: dict[str, str], *extra: str) -> dict:
    full_env = dict(os.environ, PYTHONPATH=str(HERE), PYTHONWARNINGS="ignore", **env)
    for name in ("PYMC_AOT_CACHE_KEY", "PYMC_AOT_CACHE_SIGNING_KEY", "PYMC_AOT_CACHE_PUBLIC_KEY"):
        if name not in env:
            full_env.pop(name, None)
    proc = subprocess.run(
        [sys.executable, str(HERE / "child_postprocess.py"), str(out), "scalars", *extra],
        capture_output=True, text=True, env=full_env, cwd=HERE, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_workers_compile_nothing_from_a_bundle(tmp_path):
    private_file, public_file = generate_keypair(tmp_path / "keys")
    filled = _child(tmp_path / "operator.npz", {"PYMC_AOT_CACHE_DIR": str(tmp_path / "operator")})
    assert filled["compiles"] > 0
    bundle = tmp_path / "models.pmaot"
    export_bundle(CacheStore(tmp_path / "operator"), bundle, private_file)
    with zipfile.ZipFile(bundle) as zf:
        zf.extractall(tmp_path / "unpacked")
    import_bundle(CacheStore(tmp_path / "imported"), bundle, public_file)
    read_only = {"PYMC_AOT_CACHE_READONLY": "1", "PYMC_AOT_CACHE_PUBLIC_KEY": str(public_file)}
    workers = {
        "imported": {"PYMC_AOT_CACHE_DIR": str(tmp_path / "imported")},
        "bundle": {"PYMC_AOT_CACHE_DIR": str(bundle), **read_only},
        "unpacked": {"PYMC_AOT_CACHE_DIR": str(tmp_path / "unpacked"), **read_only},
    }
    before = bundle.stat().st_mtime_ns
    for name, env in workers.items():
        hit = _child(tmp_path / f"{name}.npz", env, "--forbid-compile")
        assert hit["compiles"] == 0 and hit["disk_hits"] > 0, name
    assert bundle.stat().st_mtime_ns == before
    model = scalars()
    expected = pymc_posterior(model, draws_for(model, seed=3))
    for name in ("operator", *workers):
        got = np.load(tmp_path / f"{name}.npz")
        for var, value in expected.items():
            np.testing.assert_allclose(got[f"scalars/False/{var}"], value, rtol=1e-10, err_msg=(name, var))
