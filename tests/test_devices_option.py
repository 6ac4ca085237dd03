"""``devices=`` where users give it besides ``postprocess``: ``from_posterior``, ``enable`` (and
through it ``pm.sample`` and ``pm.compute_log_likelihood``), each against stock PyMC.

``reference.py`` imports ``pymc.sampling.jax``, which forces 100 host CPU devices before JAX
starts (as in ``test_sharded.py``).
"""

from __future__ import annotations

import warnings

import jax
import numpy as np
import pymc as pm
import pytest
from compute_models import constrained_posterior, group, make_idata, two_observed
from reference import assert_same  # noqa: F401 - imports pymc.sampling.jax first: host devices
from test_compute import assert_same_dataset
from zoo import draws_for, regression_data

import pymc_aot
from pymc_aot.aot.compat import inference_groups, sampler_options
from pymc_aot.aot.strategies.sharding import DeviceCountError, default_device_count
from pymc_aot.cache import CacheStore
from pymc_aot.runtime.streams import sharded_input
from pymc_aot.runtime.transforms.engine import from_posterior


def _meshes(cache_dir) -> dict[str, str]:
    """digest -> mesh of every sharded entry in the store."""
    entries = CacheStore(cache_dir).entries()
    return {r.digest: m for r in entries if (m := r.metadata["key"].get("mesh", ""))}


def _mesh_size(result: dict) -> int:
    return len(next(iter(result.values())).sharding.device_set)


def test_from_posterior_over_two_devices_equals_pymc(cache_dir):
    model = two_observed()
    posterior = constrained_posterior(model, cache_dir, chains=2, draws=6)
    free = {rv.name: posterior[rv.name] for rv in model.free_RVs}
    ll_pymc = group(pm.compute_log_likelihood(make_idata(model, posterior), model=model, progressbar=False), "log_likelihood")
    det_pymc = pm.compute_deterministics(group(make_idata(model, free), "posterior"), model=model, progressbar=False)
    ll = from_posterior(model, free, log_likelihood=True, strategy="sharded(3)", devices=2)
    det = from_posterior(model, free, strategy="sharded(3)", devices=2)
    assert _mesh_size(ll) == _mesh_size(det) == 2
    for ours, theirs in ((ll, ll_pymc), (det, det_pymc)):
        assert sorted(ours) == sorted(theirs.data_vars)
        for name, value in ours.items():
            np.testing.assert_allclose(np.asarray(value), theirs[name].values, rtol=1e-10, atol=1e-10, err_msg=name)
    meshes = list(_meshes(cache_dir).values())
    assert len(meshes) == 2 and all("shape=(2,) split=chains" in m for m in meshes), meshes


def test_compute_log_likelihood_takes_enables_devices_and_the_key_names_them(cache_dir):
    model = two_observed()
    posterior = constrained_posterior(model, cache_dir, chains=2, draws=6)
    expected = group(pm.compute_log_likelihood(make_idata(model, posterior), model=model, progressbar=False), "log_likelihood")
    for n in (1, 2):
        idata = make_idata(model, posterior)
        with warnings.catch_warnings(record=True) as caught, pymc_aot.enabled(
            cache_dir=str(cache_dir), strategy="sharded(3)", devices=n
        ):
            warnings.simplefilter("always")
            pm.compute_log_likelihood(idata, model=model)
        assert not [str(w.message) for w in caught if "pymc-aot" in str(w.message)]  # not PyMC's fallback
        assert_same_dataset(group(idata, "log_likelihood"), expected)
    meshes = sorted(_meshes(cache_dir).values())
    assert len(meshes) == 2, meshes  # one entry per device count: two digests
    assert "shape=(1,)" in meshes[0] and "shape=(2,)" in meshes[1], meshes


def test_compute_log_likelihood_streamed_over_enables_devices(cache_dir):
    model = two_observed()
    posterior = constrained_posterior(model, cache_dir, chains=2, draws=6)
    expected = group(pm.compute_log_likelihood(make_idata(model, posterior), model=model, progressbar=False), "log_likelihood")
    idata = make_idata(model, posterior)
    with warnings.catch_warnings(record=True) as caught, pymc_aot.enabled(
        cache_dir=str(cache_dir), strategy="streamed(2)", devices=2
    ):
        warnings.simplefilter("always")
        pm.compute_log_likelihood(idata, model=model)
    assert not [str(w.message) for w in caught if "pymc-aot" in str(w.message)]
    assert_same_dataset(group(idata, "log_likelihood"), expected)
    meshes = list(_meshes(cache_dir).values())
    assert len(meshes) == 1 and "shape=(2,)" in meshes[0], meshes  # streamed over the two devices asked for


@pytest.mark.slow
def test_pm_sample_under_enable_devices_equals_stock(cache_dir):
    """Chains vectorized on one device: ``enable``'s ``devices`` is the mesh (2, or 4 where the
    default mesh is 2 devices, so that the default cannot pass for it)."""
    n = 4 if default_device_count("cpu") == 2 else 2
    model = regression_data()
    kw = {
        "draws": 25,
        "tune": 25,
        "chains": 4,
        "progressbar": False,
        "compute_convergence_checks": False,
        "random_seed": 3,
        "idata_kwargs": {"log_likelihood": True},
        **sampler_options({"chain_method": "vectorized"}),
    }
    with model:
        stock = pm.sample(nuts_sampler="numpyro", **kw)
    with warnings.catch_warnings(record=True) as caught, pymc_aot.enabled(
        cache_dir=str(cache_dir), strategy="sharded(25)", devices=n, sampler=False
    ), model:
        warnings.simplefilter("always")
        ours = pm.sample(nuts_sampler="numpyro", **kw)
    assert not [str(w.message) for w in caught if "pymc-aot" in str(w.message)]
    meshes = list(_meshes(cache_dir).values())
    assert len(meshes) == 2 and all(f"shape=({n},) split=chains" in m for m in meshes), meshes
    for name in ("posterior", "log_likelihood"):
        a, b = inference_groups(stock)[name], inference_groups(ours)[name]
        assert sorted(a.data_vars) == sorted(b.data_vars)
        for var in a.data_vars:
            np.testing.assert_allclose(a[var].values, b[var].values, rtol=1e-10, err_msg=f"{name}/{var}")


def test_samples_living_on_their_devices_win_over_enables_devices():
    host = draws_for(regression_data(), chains=4, draws=3)
    parallel = [jax.pmap(lambda x: x)(x) for x in host]  # as chain_method="parallel" leaves them
    assert sharded_input.devices_for("sharded(2)", parallel, 2) == tuple(jax.devices("cpu")[:4])
    assert sharded_input.devices_for("sharded(2)", host, 2) == 2
    assert sharded_input.devices_for("auto", host, 2) == 2  # auto may shard on accelerators
    assert sharded_input.devices_for("streamed(4)", parallel, 2) == 2  # a streamed batch is split anew
    assert sharded_input.devices_for("vmap", parallel, 2) is None  # the user's postprocessing_vectorize


def test_bad_devices_at_enable_are_refused_clearly(cache_dir):
    n = len(jax.devices("cpu"))
    with pytest.raises(DeviceCountError, match=rf"devices={n + 1}: the cpu backend has {n} device"):
        pymc_aot.enable(cache_dir=str(cache_dir), strategy="sharded(2)", devices=n + 1)
    with pytest.raises(ValueError, match=r"devices=2 applies to the 'sharded' strategy \(and auto\), not 'vmap'"):
        pymc_aot.enable(cache_dir=str(cache_dir), strategy="vmap", devices=2)
    with pytest.raises(ValueError, match="devices: expected a positive number of devices, got 0"):
        pymc_aot.enable(cache_dir=str(cache_dir), strategy="sharded(2)", devices=0)
    with pytest.raises(ValueError, match=r"devices: expected a non-empty list of cpu devices, got \['str'\]"):
        pymc_aot.enable(cache_dir=str(cache_dir), strategy="sharded(2)", devices=["cpu0"])
    with pytest.raises(ValueError, match="devices: expected a device count or a list of devices, got True"):
        pymc_aot.enable(cache_dir=str(cache_dir), strategy="sharded(2)", devices=True)
    assert not pymc_aot.is_enabled()  # nothing was patched
    with pymc_aot.enabled(cache_dir=str(cache_dir), devices=2):  # auto may shard (on accelerators)
        assert pymc_aot.runtime.pymc.pymc_hooks.STATE.options.devices == 2
