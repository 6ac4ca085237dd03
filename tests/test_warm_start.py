"""A hit in a fresh process: no builder imported, the build's key, PyMC's arrays.

A build imports PyTensor's JAX dispatch (which sets ``jax_enable_x64`` from ``floatX`` at
import); a hit must not import it, yet key and put draws on the device exactly as a build does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from children import run_child

pytestmark = pytest.mark.slow  # fresh processes / benchmark smoke: `-m slow` runs them

MODELS = ["regression_data", "lkj"]  # pm.Data arguments; a Cholesky (LAPACK kernels) on a hit
KINDS = [f"{m}/{k}" for m in MODELS for k in ("posterior", "log_likelihood")]


def _child(mode: str, cache: Path, out: Path, **env: str) -> dict:
    return run_child("child_warm.py", mode, out, *MODELS, env={"PYMC_AOT_CACHE_DIR": str(cache), **env})


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """A cache filled by a process that built everything (and so imported the JAX dispatch)."""
    tmp = tmp_path_factory.mktemp("warm")
    report = _child("build", tmp / "cache", tmp / "build.npz")
    assert report["counters"] == {"compiles": len(KINDS), "disk_hits": 0}
    assert "pytensor.link.jax.dispatch" in report["modules"]  # the build path really imports it
    return tmp, report


def _assert_matches(arrays: np.lib.npyio.NpzFile, dtype: type, tol: float) -> None:
    ours = [k for k in arrays.files if not k.startswith("pymc/")]
    assert ours and sorted(ours) == sorted(k[len("pymc/") :] for k in arrays.files if k.startswith("pymc/"))
    for name in ours:
        got, want = arrays[name], arrays[f"pymc/{name}"]
        assert got.dtype == want.dtype == dtype, (name, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=name)


def test_hit_imports_no_builder_and_returns_pymc_float64(built):
    tmp, build = built
    hit = _child("hit", tmp / "cache", tmp / "hit.npz")
    assert hit["modules"] == [], f"a hit imported {hit['modules']}"
    assert hit["counters"] == {"compiles": 0, "disk_hits": len(KINDS)}
    assert {k: hit[k] for k in KINDS} == {k: build[k] for k in KINDS}
    assert hit["store_hits"] == {build[k]: 1 for k in KINDS}  # recorded after the call, still recorded
    _assert_matches(np.load(tmp / "hit.npz"), np.float64, 1e-10)
    first, second = np.load(tmp / "build.npz"), np.load(tmp / "hit.npz")
    for name in first.files:
        np.testing.assert_array_equal(first[name], second[name], err_msg=name)


def test_hit_first_and_build_first_key_alike(built):
    tmp, build = built
    keys = _child("key", tmp / "cache", tmp / "unused.npz")
    assert keys["modules"] == []  # keyed before anything imported the JAX dispatch
    assert keys["before"] == keys["after"] == {k: build[k] for k in KINDS}


def test_float32_hit_keys_and_matches_like_its_build(tmp_path):
    env = {"PYTENSOR_FLAGS": "floatX=float32"}
    build = _child("build", tmp_path / "cache", tmp_path / "build.npz", **env)
    hit = _child("hit", tmp_path / "cache", tmp_path / "hit.npz", **env)
    assert hit["modules"] == [] and hit["counters"] == {"compiles": 0, "disk_hits": len(KINDS)}
    assert {k: hit[k] for k in KINDS} == {k: build[k] for k in KINDS}
    _assert_matches(np.load(tmp_path / "hit.npz"), np.float32, 1e-5)
