"""A cache that never lies: corruption, tampering, concurrency, failures, versions, eviction, input."""

from __future__ import annotations

import errno
import json
import logging
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest
from reference import assert_same, pymc_posterior
from zoo import draws_for, regression_data, scalars

from pymc_aot import aot, runtime
from pymc_aot.cache import CachePermissionError, CacheStore, generate_keypair
from pymc_aot.runtime.cli import main as cli_main

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def model():
    return regression_data()


def _only_entry(cache_dir) -> str:
    (record,) = CacheStore(cache_dir).entries()
    return record.digest


def test_corrupted_executable_is_dropped_and_rebuilt(model, cache_dir, caplog):
    aot.precompile(model, chains=2, draws=7, strategy="vmap")
    digest = _only_entry(cache_dir)
    store = CacheStore(cache_dir)
    exe = store.db.get(f"exe:{digest}")
    store.db.set(f"exe:{digest}", exe[: len(exe) // 2])
    runtime.clear_memo()
    samples = draws_for(model)
    with caplog.at_level(logging.WARNING, logger="pymc_aot.cache"):
        got = runtime.postprocess(model, samples, strategy="vmap")
    assert runtime.COUNTERS.last_source == "compile"
    assert "failed verification" in caplog.text
    assert_same(got, pymc_posterior(model, samples))
    assert CacheStore(cache_dir).get(digest) is not None, "rebuilt and stored again"


def test_group_writable_directory_is_refused(cache_dir):
    cache_dir.mkdir(parents=True)
    os.chmod(cache_dir, 0o777)
    with pytest.raises(CachePermissionError, match=r"group- or world-writable \(mode 777\).*chmod go-w"):
        CacheStore(cache_dir).get("a" * 64)


def test_key_file_readable_by_others_is_refused(cache_dir):
    store = CacheStore(cache_dir)
    store.put("a" * 64, b"x", {"key": {}})
    os.chmod(cache_dir / "secret.key", 0o644)
    with pytest.raises(CachePermissionError, match="mode 600"):
        CacheStore(cache_dir).get("a" * 64)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_foreign_owner_refused_unless_read_only_with_operator_public_key(model, cache_dir, tmp_path, monkeypatch):
    private_file, public_file = generate_keypair(tmp_path / "keys")
    writer = CacheStore(cache_dir, signing_key=private_file)
    aot.precompile(model, chains=2, draws=7, strategy="vmap", cache=writer)
    writer.close()
    for path in [cache_dir, *cache_dir.rglob("*")]:
        os.chown(path, 12345, 12345)
    with pytest.raises(CachePermissionError, match="belongs to uid 12345"):
        CacheStore(cache_dir).get("a" * 64)
    monkeypatch.setenv("PYMC_AOT_CACHE_READONLY", "1")
    with pytest.raises(CachePermissionError, match="PYMC_AOT_CACHE_PUBLIC_KEY"):
        CacheStore(cache_dir)
    monkeypatch.setenv("PYMC_AOT_CACHE_PUBLIC_KEY", str(public_file))

    def snapshot():
        return sorted((p.name, p.stat().st_mtime_ns) for p in cache_dir.rglob("*"))

    before = snapshot()
    runtime.clear_memo()
    samples = draws_for(model)
    got = runtime.postprocess(model, samples, strategy="vmap")
    assert runtime.COUNTERS.last_source == "disk"
    assert_same(got, pymc_posterior(model, samples))
    runtime.postprocess(model, draws_for(model, chains=3), strategy="vmap")  # a miss: compiled, not stored
    assert snapshot() == before, "nothing written"


def test_unwritable_store_warns_once_and_runs_uncached(model, cache_dir, caplog, monkeypatch):
    store = runtime.get_store(None)

    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store.db, "set", full)
    samples = draws_for(model)
    with caplog.at_level(logging.WARNING, logger="pymc_aot.cache"):
        for draws in (7, 8):
            s = draws_for(model, draws=draws)
            assert_same(runtime.postprocess(model, s, strategy="vmap"), pymc_posterior(model, s))
    assert caplog.text.count("not writable") == 1
    assert_same(runtime.postprocess(model, samples, strategy="vmap"), pymc_posterior(model, samples))


def test_cache_directory_deleted_mid_run(model, cache_dir):
    samples = draws_for(model)
    runtime.postprocess(model, samples, strategy="vmap")
    shutil.rmtree(cache_dir)
    runtime.clear_memo()
    for draws in (7, 9):
        s = draws_for(model, draws=draws)
        assert_same(runtime.postprocess(model, s, strategy="vmap"), pymc_posterior(model, s))


@pytest.mark.slow
def test_four_processes_at_once(tmp_path):
    env = dict(os.environ, PYMC_AOT_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(HERE),
               PYTHONWARNINGS="ignore")
    procs = [
        subprocess.Popen([sys.executable, str(HERE / "child_concurrent.py"), str(tmp_path / f"mu{i}.npy")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=HERE)
        for i in range(4)
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err[-2000:] for _, err in outs]
    digests = {json.loads(out.strip().splitlines()[-1])["digest"] for out, _ in outs}
    assert len(digests) == 1
    store = CacheStore(tmp_path / "cache")
    assert [r.digest for r in store.entries()] == list(digests), "one entry"
    model = regression_data()
    expected = pymc_posterior(model, draws_for(model, seed=4))["mu"]
    for i in range(4):
        np.testing.assert_allclose(np.load(tmp_path / f"mu{i}.npy"), expected, rtol=1e-10)
    assert store.put("f" * 64, b"after", {"key": {}}), "no lock left behind"


def test_other_library_versions_never_load_and_clear_stale(cache_dir, monkeypatch, capsys):
    model = scalars()
    old = aot.precompile(model, chains=2, draws=5, strategy="vmap")
    import pymc_aot.aot.identity.key as key_module

    real = key_module.library_versions()
    monkeypatch.setattr(key_module, "library_versions", lambda: (("jax", "0.0.1"), *real[1:]))
    newer = aot.precompile(model, chains=2, draws=5, strategy="vmap")
    assert newer.digest != old.digest and not newer.cached
    monkeypatch.undo()
    assert cli_main(["clear", "--stale", "--yes"]) == 0
    assert "removed 1 entry" in capsys.readouterr().out
    assert [r.digest for r in CacheStore(cache_dir).entries()] == [old.digest]


def test_eviction_keeps_the_limit_and_recent_entries(cache_dir):
    model = scalars()
    first = aot.precompile(model, chains=1, draws=1, strategy="vmap")
    one = CacheStore(cache_dir).volume()
    second = aot.precompile(model, chains=1, draws=2, strategy="vmap")
    per_entry = CacheStore(cache_dir).volume() - one
    limit = one + 8 * per_entry  # room for about nine entries; 23 are compiled
    store = CacheStore(cache_dir, size_limit=limit)
    digests = [first.digest, second.digest]
    for draws in range(3, 24):
        digests.append(aot.precompile(model, chains=1, draws=draws, strategy="vmap", cache=store).digest)
        store.get(first.digest)  # keep the first one in use
        assert store.volume() <= limit + 2 * per_entry
    kept = {r.digest for r in store.entries()}
    assert first.digest in kept and digests[-1] in kept
    assert len(kept) < len(digests), "something was evicted"
    assert digests[1] not in kept, "the least recently used went first"


def test_nan_and_inf_pass_through(model, cache_dir):
    samples = draws_for(model)
    samples[0][0, 0, 0] = np.nan
    samples[0][1, 2, 1] = np.inf
    got = runtime.postprocess(model, samples, strategy="batched(4)")
    expected = pymc_posterior(model, samples)
    for name in expected:
        np.testing.assert_array_equal(np.isnan(got[name]), np.isnan(expected[name]))
        np.testing.assert_allclose(np.nan_to_num(got[name]), np.nan_to_num(expected[name]), rtol=1e-10)


@pytest.mark.parametrize(("chains", "draws"), [(1, 5), (3, 1), (2, 0)])
def test_edge_shapes(model, cache_dir, chains, draws):
    samples = draws_for(model, chains=chains, draws=draws)
    for strategy in ("vmap", "nested_scan", "batched(4)"):
        got = runtime.postprocess(model, [s.copy() for s in samples], strategy=strategy)
        assert got["mu"].shape == (chains, draws, 50)
        if draws:
            assert_same(got, pymc_posterior(model, samples))


def test_samples_on_another_device(model, cache_dir):
    devices = jax.devices("cpu")
    if len(devices) < 2:
        pytest.skip("one host device")
    samples = draws_for(model)
    elsewhere = [jax.device_put(s, devices[-1]) for s in samples]
    got = runtime.postprocess(model, elsewhere, strategy="batched(4)")
    assert list(got["mu"].devices()) == [devices[0]]
    assert_same(got, pymc_posterior(model, samples))


def _mutate(blob, rng: random.Random):
    data = bytearray(blob.encode() if isinstance(blob, str) else blob)
    if rng.random() < 0.4 and len(data) > 1:
        data = data[: rng.randrange(0, len(data))]
    else:
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    return data.decode("utf-8", "replace") if isinstance(blob, str) else bytes(data)


def test_fuzz_truncation_and_bit_flips(model, cache_dir):
    trials = int(os.environ.get("PYMC_AOT_FUZZ_TRIALS", "40"))
    aot.precompile(model, chains=2, draws=7, strategy="vmap")
    digest = _only_entry(cache_dir)
    store = CacheStore(cache_dir)
    pristine = {k: store.db.get(f"{k}:{digest}") for k in ("exe", "meta")}
    samples = draws_for(model)
    expected = pymc_posterior(model, samples)
    rng = random.Random(1234)
    detected = 0
    for trial in range(trials):
        for k, v in pristine.items():
            store.db.set(f"{k}:{digest}", v)
        kind = rng.choice(["exe", "meta"])
        mutated = _mutate(pristine[kind], rng)
        if mutated == pristine[kind]:
            continue
        store.db.set(f"{kind}:{digest}", mutated)
        if store.get(digest) is None:
            detected += 1
        else:
            pytest.fail(f"trial {trial}: a mutated {kind} was accepted")
        if trial % 10 == 0:  # the runtime rebuilds and is right
            for k, v in pristine.items():
                store.db.set(f"{k}:{digest}", v)
            store.db.set(f"{kind}:{digest}", mutated)
            runtime.clear_memo()
            assert_same(runtime.postprocess(model, samples, strategy="vmap"), expected)
    assert detected >= trials * 0.9
    print(f"fuzz: {trials} trials, {detected} mutations detected")
