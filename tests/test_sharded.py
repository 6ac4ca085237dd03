"""``sharded(B)``: PyMC's numbers over 1, 2 and 4 host devices, keys that name the mesh,
hits in a fresh process, and a clear error where the devices asked for are not there.

The default suite imports ``pymc.sampling.jax`` (``reference.py``), which forces 100 host
CPU devices before JAX starts; fresh processes get their own environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pymc as pm
import pytest
from reference import assert_same, pymc_log_likelihood, pymc_posterior
from zoo import ZOO, draws_for, regression_data

from pymc_aot import aot, runtime
from pymc_aot.aot.build import loader
from pymc_aot.aot.build.request import make_request, value_signature
from pymc_aot.aot.choice.shard_fit import SHARD_RULE
from pymc_aot.aot.compat import inference_groups, sampler_options
from pymc_aot.aot.identity.fingerprint import fingerprint_model
from pymc_aot.aot.strategies import sharding
from pymc_aot.aot.strategies.sharding import DeviceCountError, plan_mesh
from pymc_aot.aot.strategies.strategies import get_strategy
from pymc_aot.cache import CacheStore
from pymc_aot.runtime.streams import sharded_input

HERE = Path(__file__).resolve().parent
SHAPES = [(2, 8, 1), (2, 8, 2), (4, 6, 4), (3, 8, 2), (3, 7, 2)]
"""(chains, draws, devices): chains split, draws split (3 chains on 2 devices), and neither."""


@pytest.fixture(scope="module")
def built():
    return {name: make() for name, make in ZOO.items()}


def _mesh_size(result: dict) -> int:
    return len(next(iter(result.values())).sharding.device_set)


@pytest.mark.parametrize("name", list(ZOO))
def test_posterior_equals_pymc_over_meshes(built, name, tmp_path):
    model = built[name]
    for chains, draws, devices in SHAPES:
        samples = draws_for(model, chains=chains, draws=draws)
        got = runtime.postprocess(model, samples, strategy="sharded(3)", devices=devices, cache=tmp_path)
        assert_same(got, pymc_posterior(model, samples))
        expected_mesh = 1 if (chains, draws) == (3, 7) else devices  # neither divides: one device
        assert _mesh_size(got) == expected_mesh


@pytest.mark.parametrize("name", ["regression_data", "lkj", "time_series"])
def test_log_likelihood_equals_pymc(built, name, tmp_path):
    model = built[name]
    samples = draws_for(model, chains=3, draws=8, seed=1)
    got = runtime.postprocess(model, samples, strategy="sharded(2)", devices=4, log_likelihood=True, cache=tmp_path)
    assert_same(got, pymc_log_likelihood(model, samples))


def test_outputs_stay_split_over_the_devices(built, tmp_path):
    samples = draws_for(built["shapes_and_bounds"], chains=4, draws=6)
    got = runtime.postprocess(built["shapes_and_bounds"], samples, strategy="sharded(5)", devices=4, cache=tmp_path)
    for name, value in got.items():
        shards = value.addressable_shards
        assert len(shards) == 4, name
        assert {s.data.shape[0] for s in shards} == {1}, name  # one chain per device, not replicated


def test_the_split_axis_and_mesh_size():
    cpu = jax.devices("cpu")
    assert (plan_mesh(4, "cpu", 4, 10).size, plan_mesh(4, "cpu", 4, 10).split_axis) == (4, 0)
    assert (plan_mesh(2, "cpu", 3, 10).size, plan_mesh(2, "cpu", 3, 10).split_axis) == (2, 1)
    assert (plan_mesh(4, "cpu", 6, 9).size, plan_mesh(4, "cpu", 6, 9).split_axis) == (3, 0)
    assert plan_mesh([cpu[5], cpu[3]], "cpu", 2, 2).devices == (cpu[5], cpu[3])


def test_key_names_the_mesh(built):
    model = built["scalars"]
    values = value_signature(model, fingerprint_model(model), 4, 10)
    keys = {n: make_request(model, values, strategy="sharded(5)", devices=n).key for n in (1, 2, 4)}
    assert len({k.digest for k in keys.values()}) == 3
    assert "shape=(2,)" in keys[2].mesh and "split=chains" in keys[2].mesh and "axis=shards" in keys[2].mesh
    other = make_request(model, values, strategy="sharded(5)", devices=[jax.devices("cpu")[1], jax.devices("cpu")[2]])
    assert other.key.digest != keys[2].digest  # other device ids: JAX's executable names them
    assert "mesh" not in make_request(model, values, strategy="batched(5)").key.parts()


def test_bad_devices_are_refused_clearly(built, tmp_path):
    model = built["scalars"]
    samples = draws_for(model, chains=2, draws=4)
    n = len(jax.devices("cpu"))
    with pytest.raises(DeviceCountError, match=rf"devices={n + 1}: the cpu backend has {n} device"):
        runtime.postprocess(model, samples, strategy="sharded(2)", devices=n + 1, cache=tmp_path)
    with pytest.raises(ValueError, match="positive number of devices, got 0"):
        runtime.postprocess(model, samples, strategy="sharded(2)", devices=0, cache=tmp_path)
    with pytest.raises(ValueError, match="needs a positive batch_size"):
        get_strategy("sharded")
    with pytest.raises(
        ValueError, match=r"devices=2 applies to the 'sharded' strategy \(and auto\), not 'batched\(2\)'"
    ):
        runtime.postprocess(model, samples, strategy="batched(2)", devices=2, cache=tmp_path)
    with pytest.raises(ValueError, match=r"devices: expected a non-empty list of cpu devices, got \['str'\]"):
        runtime.postprocess(model, samples, strategy="sharded(2)", devices=["cpu0"], cache=tmp_path)


def _child(tmp: Path, out: str, devices: str, *extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}  # JAX starts as in a fresh shell
    env.update(PYMC_AOT_CACHE_DIR=str(tmp / "cache"), PYTHONPATH=str(HERE))
    cmd = [sys.executable, str(HERE / "child_sharded.py"), str(tmp / out), "regression_data", devices, *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=HERE, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_fresh_process_hits_the_sharded_entry(built, tmp_path):
    first = _child(tmp_path, "first.npz", "2")
    assert (first["compiles"], first["disk_hits"], first["mesh"]) == (1, 0, 2)
    second = _child(tmp_path, "second.npz", "2", "--forbid-compile")
    assert (second["compiles"], second["disk_hits"], second["mesh"]) == (0, 1, 2)
    assert not second["pymc_jax_imported"]  # the hit gave JAX PyMC's host devices itself
    model = built["regression_data"]
    expected = pymc_posterior(model, draws_for(model, chains=3, draws=8, seed=3))
    with np.load(tmp_path / "second.npz") as got:
        assert_same({k: got[k] for k in expected}, expected)


@pytest.mark.slow
def test_one_host_device_is_a_clear_error_or_another_key(tmp_path):
    """JAX started with one CPU device: devices=2 names what was asked and what is there;
    the default uses the one device, under a key of its own (it compiles, it never loads
    the two-device entry)."""
    assert _child(tmp_path, "two.npz", "2")["mesh"] == 2
    asked = _child(tmp_path, "x.npz", "2", "--one-device")
    assert asked["cpu_devices"] == 1
    assert asked["error"][0] == "DeviceCountError"
    assert "devices=2" in asked["error"][1] and "has 1 device" in asked["error"][1]
    default = _child(tmp_path, "one.npz", "default", "--one-device")
    assert (default["mesh"], default["compiles"], default["disk_hits"]) == (1, 1, 0)


def test_auto_never_shards_on_the_cpu(built):
    model = built["scalars"]
    values = value_signature(model, fingerprint_model(model), 4, 10)
    assert make_request(model, values, devices=4).key.mesh == ""  # auto: no mesh to shard over


def test_auto_shards_when_nothing_fits_one_device(built, tmp_path, monkeypatch):
    """The accelerator rule, on host devices: a budget below every one-device candidate's
    peak picks sharded(B), whose per-device peak fits; the choice and its evidence are stored."""
    model = built["shapes_and_bounds"]
    entry = aot.precompile(model, chains=4, draws=8, memory_budget="1GiB", cache=tmp_path)
    one_device = CacheStore(tmp_path).metadata(entry.digest)["auto"]["candidates"]
    monkeypatch.setattr(sharding, "SHARD_ON_CPU", True)
    samples = draws_for(model, chains=4, draws=8)
    budget = min(c["peak"] for c in one_device) - 1
    got = runtime.postprocess(model, samples, memory_budget=budget, devices=4, cache=tmp_path)
    assert_same(got, pymc_posterior(model, samples))
    assert _mesh_size(got) == 4
    (auto,) = [
        r.metadata["auto"]
        for r in CacheStore(tmp_path).entries()
        if r.metadata.get("auto", {}).get("rule") == SHARD_RULE
    ]
    chosen = [c for c in auto["candidates"] if c["strategy"] == auto["chosen"]]
    assert auto["chosen"].startswith("sharded(") and chosen[0]["fits"] and chosen[0]["peak"] <= budget
    assert not any(c["fits"] for c in auto["candidates"] if not c["strategy"].startswith("sharded("))


def _count_moves(monkeypatch) -> list[tuple[int, ...]]:
    moved: list[tuple[int, ...]] = []
    real = sharded_input._move

    def move(x, sharding):
        moved.append(tuple(np.shape(x)))
        return real(x, sharding)

    monkeypatch.setattr(sharded_input, "_move", move)
    return moved


def test_samples_split_by_chain_are_used_where_they_are(built, tmp_path, monkeypatch):
    """Samples as ``chain_method="parallel"`` leaves them (one chain per device, from pmap):
    the mesh is their devices, and no sample array moves."""
    model = built["regression_data"]
    host = draws_for(model, chains=4, draws=6)
    samples = [jax.pmap(lambda x: x)(x) for x in host]
    devices = sharded_input.chain_devices(samples)
    assert devices == tuple(jax.devices("cpu")[:4])
    moved = _count_moves(monkeypatch)
    got = runtime.postprocess(model, samples, strategy="sharded(2)", devices=devices, cache=tmp_path)
    assert_same(got, pymc_posterior(model, host))
    assert all(shape[:2] != (4, 6) for shape in moved), moved  # only the data were put on the mesh
    assert sharded_input.chain_devices([np.ones((4, 6))]) is None
    assert sharded_input.chain_devices([jax.device_put(host[0], jax.devices("cpu")[0])]) is None


@pytest.mark.slow
def test_pm_sample_parallel_chains_equal_stock(tmp_path, monkeypatch):
    if jax.local_device_count("cpu") < 4:  # numpyro then runs the chains one after another
        pytest.skip(f"JAX started in this worker with {jax.local_device_count('cpu')} CPU devices, 4 chains need 4")
    model = regression_data()
    fast = {"draws": 10, "tune": 10, "chains": 4, "progressbar": False, "compute_convergence_checks": False}
    kw = {**fast, **sampler_options({"chain_method": "parallel"}), "random_seed": 3}
    with model:
        stock = pm.sample(nuts_sampler="numpyro", **kw)
    runtime.clear_memo()  # an earlier test's transform of this model would leave nothing stored here
    moved = _count_moves(monkeypatch)
    with runtime.enabled(cache_dir=str(tmp_path), strategy="sharded(4)", sampler=False), model:
        ours = pm.sample(nuts_sampler="numpyro", **kw)
    meshes = [r.metadata["key"].get("mesh", "") for r in CacheStore(tmp_path).entries()]
    assert meshes and all("shape=(4,) split=chains" in m for m in meshes), meshes  # not the default 2
    assert all(shape[:2] != (4, 10) for shape in moved), moved  # the chains stayed on their devices
    a, b = inference_groups(stock)["posterior"], inference_groups(ours)["posterior"]
    for name in a.data_vars:
        np.testing.assert_allclose(a[name].values, b[name].values, rtol=1e-10, err_msg=name)


@pytest.mark.slow
def test_compiled_sampler_leaves_parallel_chains_on_their_devices(tmp_path, monkeypatch):
    """``enable()``'s own sampler (on by default) leaves ``chain_method="parallel"`` draws as
    numpyro's ``pmap`` does, one chain per device: ``sharded`` postprocesses them there."""
    if jax.local_device_count("cpu") < 4:
        pytest.skip(f"JAX started in this worker with {jax.local_device_count('cpu')} CPU devices, 4 chains need 4")
    fast = {"draws": 10, "tune": 10, "chains": 4, "progressbar": False, "compute_convergence_checks": False}
    kw = {**fast, **sampler_options({"chain_method": "parallel"}), "random_seed": 3}
    runtime.clear_memo()  # the parallel-chains test above leaves this very transform in the memo
    moved = _count_moves(monkeypatch)
    with runtime.enabled(cache_dir=str(tmp_path), strategy="sharded(4)"), regression_data():
        pm.sample(nuts_sampler="numpyro", **kw)
    meshes = [r.metadata["key"].get("mesh", "") for r in CacheStore(tmp_path).entries()]
    transforms = [m for m in meshes if "axis=" in m]
    assert transforms and all("shape=(4,) split=chains" in m for m in transforms), meshes  # not the default 2
    assert all(shape[:2] != (4, 10) for shape in moved), moved  # the chains stayed on their devices


def test_loader_refuses_devices_this_process_lacks():
    device = jax.devices("cpu")[0]
    with pytest.raises(ValueError, match=r"devices \[0, 999\]; this process has \d+ \(ids \[999\] are missing\)"):
        loader.load_executable(b"", 1, 1, device, mesh_devices=(0, 999))


def test_precompiled_sharded_entry_is_what_postprocess_loads(built, tmp_path):
    model = built["zerosum"]
    entry = aot.precompile(model, chains=3, draws=8, strategy="sharded(3)", devices=2, cache=tmp_path)
    assert entry.strategy == "sharded(3)" and "shape=(2,) split=draws" in entry.key.mesh
    runtime.clear_memo()
    compiles = runtime.COUNTERS.compiles
    samples = draws_for(model, chains=3, draws=8)
    got = runtime.postprocess(model, samples, strategy="sharded(3)", devices=2, cache=tmp_path)
    assert runtime.COUNTERS.compiles == compiles and runtime.COUNTERS.last_source == "disk"
    assert_same(got, pymc_posterior(model, samples))


@pytest.mark.slow
def test_sharded_bench_runs_tiny(monkeypatch, capsys):
    """bench/sharded.py end to end on a tiny regression, so it cannot rot."""
    sys.path.insert(0, str(HERE.parent))
    from bench import sharded as bench

    monkeypatch.setattr(bench, "methods", lambda *_: ["pymc:vmap", "aot:sharded(4)@2", "aot:streamed(4)@2"])
    args = ["--model", "regression", "--scale", "0.02", "--draws", "20", "--repeats", "1", "--rounds", "1"]
    rows = bench.main(args)["regression"]
    assert rows["aot:sharded(4)@2"]["chosen"] == "sharded(4)"
    assert all(r["measured_peak"] > 0 and r["predicted_peak"] > 0 and r["seconds"] > 0 for r in rows.values())
    printed = capsys.readouterr().out
    assert "| aot:sharded(4)@2 | sharded(4) |" in printed and "| aot:streamed(4)@2 | streamed(4) |" in printed
