"""The store's holes seen from the runtime: results equal stock PyMC, JAX's cache is checked."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import diskcache
import jax
import pytest
from reference import assert_same, pymc_posterior
from zoo import draws_for, scalars

from pymc_aot import aot, runtime
from pymc_aot.cache import CachePermissionError, CacheStore

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def model():
    return scalars()


@pytest.fixture
def jax_cache_dir_restored():
    before = jax.config.jax_compilation_cache_dir
    yield before
    runtime.disable()
    assert jax.config.jax_compilation_cache_dir == before


def test_cache_path_that_is_a_file_gives_pymcs_numbers_and_one_warning(model, tmp_path, monkeypatch, caplog):
    path = tmp_path / "a-file"
    path.write_text("not a cache")
    monkeypatch.setenv("PYMC_AOT_CACHE_DIR", str(path))
    runtime.clear_memo()
    with caplog.at_level(logging.WARNING, logger="pymc_aot.cache"):
        for draws in (7, 8):
            samples = draws_for(model, draws=draws)
            assert_same(runtime.postprocess(model, samples, strategy="vmap"), pymc_posterior(model, samples))
    records = [r for r in caplog.records if r.name == "pymc_aot.cache"]
    assert len(records) == 1 and "not a directory" in records[0].getMessage()
    assert path.read_text() == "not a cache"


def test_pickled_usage_row_does_not_block_the_model(model, cache_dir):
    entry = aot.precompile(model, chains=2, draws=7, strategy="vmap")
    planted = diskcache.Cache(str(cache_dir))  # the stock Disk pickles a dict
    planted.set(f"use:{entry.digest}", {"hits": 3})
    planted.close()
    samples = draws_for(model)
    expected = pymc_posterior(model, samples)
    for _ in range(3):
        runtime.clear_memo()
        assert_same(runtime.postprocess(model, samples, strategy="vmap"), expected)
    assert runtime.COUNTERS.last_source == "disk", "dropped once, rebuilt once, then hit"


def test_jax_cache_refuses_a_world_writable_root(tmp_path, jax_cache_dir_restored):
    root = tmp_path / "cache"
    root.mkdir()
    os.chmod(root, 0o777)
    with pytest.raises(CachePermissionError, match=r"world-writable \(mode 777\)"):
        runtime.enable(cache_dir=str(root), jax_cache=True)
    assert jax.config.jax_compilation_cache_dir == jax_cache_dir_restored
    assert not runtime.is_enabled(), "nothing patched"
    assert not (root / "jax-compilation-cache").exists()


def test_jax_cache_refuses_a_group_writable_subdirectory(tmp_path, jax_cache_dir_restored):
    root = tmp_path / "cache"
    (root / "jax-compilation-cache").mkdir(parents=True, mode=0o700)
    os.chmod(root, 0o700)
    os.chmod(root / "jax-compilation-cache", 0o770)
    with pytest.raises(CachePermissionError, match=r"jax-compilation-cache.*group- or world-writable"):
        runtime.enable(cache_dir=str(root), jax_cache=True)
    assert jax.config.jax_compilation_cache_dir == jax_cache_dir_restored


def test_jax_cache_is_made_private(tmp_path, jax_cache_dir_restored):
    root = tmp_path / "cache"
    assert runtime.enable(cache_dir=str(root), jax_cache=True)
    assert jax.config.jax_compilation_cache_dir == str(root / "jax-compilation-cache")
    assert (root / "jax-compilation-cache").stat().st_mode & 0o777 == 0o700
    assert root.stat().st_mode & 0o777 == 0o700


def test_jax_cache_never_goes_into_a_read_only_shared_cache(tmp_path, monkeypatch, caplog, jax_cache_dir_restored):
    from pymc_aot.cache import generate_keypair

    private_file, public_file = generate_keypair(tmp_path / "keys")
    root = tmp_path / "shared"
    assert CacheStore(root, signing_key=private_file).put("a" * 64, b"x", {"key": {}})
    monkeypatch.setenv("PYMC_AOT_CACHE_READONLY", "1")
    monkeypatch.setenv("PYMC_AOT_CACHE_PUBLIC_KEY", str(public_file))
    with caplog.at_level(logging.WARNING, logger="pymc_aot.cache"):
        assert runtime.enable(cache_dir=str(root), jax_cache=True)
    assert "read-only shared cache" in caplog.text
    assert jax.config.jax_compilation_cache_dir == jax_cache_dir_restored
    assert not (root / "jax-compilation-cache").exists()


def _child(out: Path, env: dict[str, str], *extra: str) -> dict:
    full_env = dict(os.environ, PYTHONPATH=str(HERE), PYTHONWARNINGS="ignore", **env)
    full_env.pop("PYMC_AOT_CACHE_KEY", None)
    proc = subprocess.run(
        [sys.executable, str(HERE / "child_postprocess.py"), str(out), "scalars", *extra],
        capture_output=True, text=True, env=full_env, cwd=HERE, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_operator_signs_and_workers_read_in_fresh_processes(tmp_path):
    import numpy as np

    from pymc_aot.cache import generate_keypair

    private_file, public_file = generate_keypair(tmp_path / "keys")
    _, stranger = generate_keypair(tmp_path / "stranger")
    shared = {"PYMC_AOT_CACHE_DIR": str(tmp_path / "shared")}
    filled = _child(tmp_path / "operator.npz", {**shared, "PYMC_AOT_CACHE_SIGNING_KEY": str(private_file)})
    assert filled["compiles"] > 0
    worker_env = {**shared, "PYMC_AOT_CACHE_READONLY": "1", "PYMC_AOT_CACHE_PUBLIC_KEY": str(public_file)}
    hit = _child(tmp_path / "worker.npz", worker_env, "--forbid-compile")
    assert hit["compiles"] == 0 and hit["disk_hits"] > 0
    refused = _child(tmp_path / "stranger.npz", {**worker_env, "PYMC_AOT_CACHE_PUBLIC_KEY": str(stranger)})
    assert refused["disk_hits"] == 0 and refused["compiles"] > 0, "another operator's entries are not trusted"
    model = scalars()
    samples = draws_for(model, seed=3)
    expected = pymc_posterior(model, samples)
    for name in ("operator", "worker", "stranger"):
        got = np.load(tmp_path / f"{name}.npz")
        for var, value in expected.items():
            np.testing.assert_allclose(got[f"scalars/False/{var}"], value, rtol=1e-10, err_msg=(name, var))
