"""``streamed(B)`` with ``devices=``: each call's batch split over host devices, every device's
piece copied to the host (or a Zarr store) at its rows; PyMC's numbers over 1, 2 and 4
devices, keys that name the mesh, a hit in a fresh process, clear errors.

The default suite imports ``pymc.sampling.jax`` (``reference.py``), which forces 100 host
CPU devices before JAX starts; the fresh process gets them from the request itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pymc as pm
import pytest
from reference import assert_same, pymc_log_likelihood, pymc_posterior
from zoo import draws_for

from pymc_aot import runtime
from pymc_aot.aot.build.request import make_request, value_signature
from pymc_aot.aot.choice.shard_fit import SHARD_STREAM_RULE
from pymc_aot.aot.identity.fingerprint import fingerprint_model
from pymc_aot.aot.strategies import sharding
from pymc_aot.cache import CacheStore
from pymc_aot.runtime.streams import streaming
from pymc_aot.runtime.streams.zarr_store import open_store

HERE = Path(__file__).resolve().parent
SHAPES = [(3, 8, 1, 5), (3, 8, 2, 10), (4, 5, 4, 8), (3, 8, 4, 16), (2, 3, 2, 40)]
"""(chains, draws, devices, B): one device; 3 chains on 2 and 4 devices (the draws split);
4 chains on 4 (the chains split); B/D dividing no device's draws; B beyond every draw."""
MESH = {1: None, 2: 2, 4: 4}
"""The mesh each device count gives these shapes (None: plain ``streamed``, one device)."""


@pytest.fixture
def layouts(monkeypatch) -> list[int]:
    """Device blocks of every meshed streamed run (how many devices wrote pieces)."""
    seen: list[int] = []
    real = streaming.mesh_layout

    def spy(*args):
        layout = real(*args)
        seen.append(len(layout.blocks))
        return layout

    monkeypatch.setattr(streaming, "mesh_layout", spy)
    return seen


def _mesh_devices(cache: Path) -> list:
    """Each stored entry's device ids (None: one device)."""
    return [(r.metadata.get("mesh") or {}).get("device_ids") for r in CacheStore(cache).entries()]


@pytest.mark.parametrize("name", ["scalars", "regression_data", "simplex_ordered"])
def test_posterior_equals_pymc_over_meshes(zoo_models, name, tmp_path, layouts):
    model = zoo_models[name]
    for chains, draws, devices, b in SHAPES:
        samples = draws_for(model, chains=chains, draws=draws)
        cache = tmp_path / f"{chains}x{draws}on{devices}"
        got = runtime.postprocess(model, samples, strategy=f"streamed({b})", devices=devices, cache=cache)
        assert all(isinstance(v, np.ndarray) for v in got.values()), "streamed to host arrays"
        assert_same(got, pymc_posterior(model, samples))
        (mesh,) = _mesh_devices(cache)
        assert (len(mesh) if mesh else None) == MESH[devices], (chains, draws, devices)
    assert layouts == [d for _, _, d, _ in SHAPES if d > 1], "every meshed run wrote one piece per device"


@pytest.mark.parametrize("name", ["regression_data", "time_series"])
def test_log_likelihood_equals_pymc(zoo_models, name, tmp_path):
    model = zoo_models[name]
    for chains, draws, devices, b in SHAPES[1:3]:
        samples = draws_for(model, chains=chains, draws=draws, seed=1)
        got = runtime.postprocess(
            model, samples, strategy=f"streamed({b})", devices=devices, log_likelihood=True, cache=tmp_path
        )
        assert_same(got, pymc_log_likelihood(model, samples))


@pytest.mark.parametrize("name", ["shapes_and_bounds", "regression_data"])
def test_out_zarr_equals_pymc(zoo_models, name, tmp_path, layouts):
    model = zoo_models[name]
    for chains, draws, devices, b in SHAPES[1:4]:
        samples = draws_for(model, chains=chains, draws=draws, seed=2)
        store = tmp_path / f"{chains}x{draws}on{devices}.zarr"
        got = runtime.postprocess(model, samples, strategy=f"streamed({b})", devices=devices, out=store, cache=tmp_path)
        expected = pymc_posterior(model, samples)
        assert_same({k: np.asarray(v) for k, v in got.items()}, expected)
        assert_same({k: np.asarray(v) for k, v in open_store(store).items()}, expected)
    assert layouts == [2, 4, 4]


@pytest.mark.parametrize("split_axis, chains, draws, devices", [(0, 4, 5, 2), (1, 3, 8, 4), (1, 2, 6, 3)])
def test_every_device_row_lands_once(split_axis, chains, draws, devices):
    """Each device's block, streamed B/D rows a call (the last clamped), covers its own rows
    of the whole samples; together the blocks cover every row exactly once."""
    layout = streaming.mesh_layout(list(range(devices)), split_axis, chains, draws)
    per_device = chains * draws // devices
    written = np.zeros((chains, draws), int)
    for device, block in layout.blocks.items():
        for start, first_new in streaming.batch_starts(per_device, 2):
            for flat, offset, size in block.runs(first_new, start + 2 - first_new, draws):
                assert offset >= 0 and size > 0
                written.reshape(-1)[flat : flat + size] += 1
        rows = slice(block.chain0, block.chain0 + per_device // block.width)
        assert (written[rows, block.draw0 : block.draw0 + block.width] >= 1).all(), device
    assert (written == 1).all()


def _small(shift: float) -> pm.Model:
    with pm.Model() as model:
        d = pm.Data("d", np.arange(6.0))
        x = pm.HalfNormal("x", shape=3)
        pm.Deterministic("y", x.sum() * d + shift)
    return model


def test_a_changed_model_or_new_data_on_the_first_cache(tmp_path):
    """The second run, on the first one's cache: a changed model compiles anew, new data
    reuse the entry; both equal PyMC (a stale entry would return the first numbers)."""
    samples = draws_for(_small(0.0), chains=3, draws=8)
    run = lambda m: runtime.postprocess(m, samples, strategy="streamed(4)", devices=2, cache=tmp_path)
    compiles = runtime.COUNTERS.compiles
    assert_same(run(_small(0.0)), pymc_posterior(_small(0.0), samples))
    changed = _small(1.0)
    assert_same(run(changed), pymc_posterior(changed, samples))
    assert runtime.COUNTERS.compiles == compiles + 2
    with changed:
        pm.set_data({"d": np.arange(6.0) ** 2})
    assert_same(run(changed), pymc_posterior(changed, samples))
    assert runtime.COUNTERS.compiles == compiles + 2


def test_key_names_the_mesh(zoo_models):
    model = zoo_models["scalars"]
    values = value_signature(model, fingerprint_model(model), 4, 10)
    keys = {n: make_request(model, values, strategy="streamed(8)", devices=n).key for n in (None, 1, 2, 4)}
    assert keys[None] == keys[1], "devices=1 is plain streamed"
    assert "mesh" not in keys[1].parts()
    assert len({keys[n].digest for n in (1, 2, 4)}) == 3
    assert "shape=(4,)" in keys[4].mesh and "split=chains" in keys[4].mesh
    sharded = make_request(model, values, strategy="sharded(8)", devices=4).key
    assert sharded.mesh == keys[4].mesh and sharded.digest != keys[4].digest


def test_a_batch_the_devices_do_not_divide_is_refused(zoo_models, tmp_path):
    model = zoo_models["scalars"]
    samples = draws_for(model, chains=4, draws=6)
    with pytest.raises(ValueError, match=r"streamed\(6\) over 4 devices .*: batch_size must be a multiple of 4, got 6"):
        runtime.postprocess(model, samples, strategy="streamed(6)", devices=4, cache=tmp_path)
    # 3 chains x 9 draws split evenly over 3 of the 4 devices asked for: B is checked against 3
    with pytest.raises(ValueError, match=r"over 3 devices .*multiple of 3, got 4"):
        runtime.postprocess(model, draws_for(model, chains=3, draws=9), strategy="streamed(4)", devices=4, cache=tmp_path)
    with pytest.raises(ValueError, match=r"devices=2 applies to .*not 'batched\(2\)'; 'streamed\(B\)' takes it too"):
        runtime.postprocess(model, samples, strategy="batched(2)", devices=2, cache=tmp_path)


def test_auto_never_streams_over_devices_on_the_cpu(zoo_models, tmp_path):
    model = zoo_models["scalars"]
    samples = draws_for(model, chains=4, draws=6)
    got = runtime.postprocess(model, samples, devices=4, out=tmp_path / "auto.zarr", cache=tmp_path / "c")
    assert_same({k: np.asarray(v) for k, v in got.items()}, pymc_posterior(model, samples))
    records = CacheStore(tmp_path / "c").entries()
    chosen = [r.metadata for r in records if r.metadata.get("auto")]
    assert chosen and chosen[0]["auto"]["chosen"].startswith("streamed(")
    assert _mesh_devices(tmp_path / "c") == [None] * len(records), "no candidate was put on a mesh"


def test_auto_streams_over_devices_when_the_inputs_fit_no_device(tmp_path, monkeypatch, layouts):
    """The accelerator rule, on host devices: with ``out=`` and a budget below the samples
    themselves, one device cannot hold the inputs; over 4 each holds a quarter, and auto
    streams there. The choice, its rule and its evidence are stored under the auto key."""
    with pm.Model() as model:
        x = pm.Normal("x", shape=300)
        pm.Deterministic("y", pm.math.exp(x))
    samples = draws_for(model, chains=4, draws=8)
    monkeypatch.setattr(sharding, "SHARD_ON_CPU", True)
    budget = sum(s.nbytes for s in samples) - 1
    store = tmp_path / "auto.zarr"
    got = runtime.postprocess(model, samples, memory_budget=budget, devices=4, out=store, cache=tmp_path / "c")
    assert_same({k: np.asarray(v) for k, v in open_store(store).items()}, pymc_posterior(model, samples))
    assert_same({k: np.asarray(v) for k, v in got.items()}, pymc_posterior(model, samples))
    assert layouts == [4]
    (auto,) = [r.metadata["auto"] for r in CacheStore(tmp_path / "c").entries() if r.metadata.get("auto")]
    assert auto["rule"] == SHARD_STREAM_RULE and auto["chosen"].endswith(" over 4 devices")
    chosen = [c for c in auto["candidates"] if c["strategy"] == auto["chosen"]]
    assert chosen[0]["fits"] and chosen[0]["peak"] <= budget
    assert not any(c["fits"] for c in auto["candidates"] if c["strategy"] != auto["chosen"])


def _child(tmp: Path, out: str, *extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}  # JAX starts as in a fresh shell
    env.update(PYMC_AOT_CACHE_DIR=str(tmp / "cache"), PYTHONPATH=str(HERE))
    cmd = [sys.executable, str(HERE / "child_streamed_sharded.py"), str(tmp / out), "regression_data", "2", *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=HERE, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_fresh_process_hits_the_entry(zoo_models, tmp_path):
    first = _child(tmp_path, "first.npz", "streamed(10)")
    assert (first["compiles"], first["disk_hits"], first["host_arrays"]) == (1, 0, True)
    second = _child(tmp_path, "second.npz", "streamed(10)", "--forbid-compile")
    assert (second["compiles"], second["disk_hits"], second["host_arrays"]) == (0, 1, True)
    assert not second["pymc_jax_imported"]  # the hit gave JAX PyMC's host devices itself
    (mesh,) = _mesh_devices(tmp_path / "cache")
    assert len(mesh) == 2
    model = zoo_models["regression_data"]
    expected = pymc_posterior(model, draws_for(model, chains=3, draws=8, seed=3))
    with np.load(tmp_path / "second.npz") as got:
        assert_same({k: got[k] for k in expected}, expected)
