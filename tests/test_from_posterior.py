"""Transforms of the constrained posterior: keys, precompile, input checks, fresh processes, pm.sample."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pymc as pm
import pytest
from children import run_child
from compute_models import constrained_posterior, group, make_idata, two_observed

import pymc_aot
from pymc_aot import runtime
from pymc_aot.aot import fingerprint_model, make_request
from pymc_aot.aot.build.constrained import constrained_signature
from pymc_aot.aot.identity.spec import OutputSpec
from pymc_aot.runtime.pymc.posterior_io import PYMC_MAJOR
from pymc_aot.runtime.transforms.engine import from_posterior


def untransformed() -> pm.Model:
    """Value variable and random variable share name, shape and dtype: only the kind tells
    a posterior transform from a constrained one."""
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 1, shape=2)
        pm.Deterministic("d", 2 * mu)
        pm.Normal("y", mu.sum(), 1, observed=np.arange(3.0))
    return m


def test_every_kind_has_its_own_key_even_on_identical_inputs():
    model = untransformed()
    fp = fingerprint_model(model)
    values = constrained_signature(model, 2, 5)
    specs = [
        OutputSpec("posterior", ("mu", "d")),
        OutputSpec("deterministics", ("d",)),
        OutputSpec("log_likelihood", ("y",)),
        OutputSpec("constrained_log_likelihood", ("y",)),
    ]
    keys = [make_request(model, values, strategy="vmap", fingerprint=fp, spec=s).key for s in specs]
    assert len({k.digest for k in keys}) == 4
    assert [k.kind for k in keys] == [s.kind for s in specs]
    assert [k.donate for k in keys] == [True, False, False, False]  # a user's posterior is never consumed


def test_the_unconstrained_entry_is_never_a_hit_for_the_constrained_one(cache_dir):
    model = untransformed()
    draws = [np.random.default_rng(0).normal(size=(2, 5, 2))]
    unconstrained = runtime.postprocess(model, draws, log_likelihood=True, strategy="vmap")
    compiles = runtime.COUNTERS.compiles
    constrained = from_posterior(model, {"mu": draws[0]}, log_likelihood=True, strategy="vmap")
    assert runtime.COUNTERS.compiles == compiles + 1
    np.testing.assert_allclose(np.asarray(constrained["y"]), np.asarray(unconstrained["y"]), rtol=1e-12)


def test_precompile_from_constrained_then_a_hit_without_compiling(cache_dir):
    model = two_observed()
    posterior = constrained_posterior(model, cache_dir, chains=3, draws=4)
    entries = [
        pymc_aot.precompile(model, chains=3, draws=4, inputs="constrained", log_likelihood=ll, strategy="vmap")
        for ll in (True, False)
    ]
    assert [e.metadata.key["kind"] for e in entries] == ["constrained_log_likelihood", "deterministics"]
    assert entries[0].metadata.key["values"] == [["b", [3, 4, 2], "float64"], ["s", [3, 4], "float64"]]
    runtime.clear_memo()
    compiles = runtime.COUNTERS.compiles
    ll = from_posterior(model, posterior, log_likelihood=True, strategy="vmap")
    dets = from_posterior(model, posterior, strategy="vmap")
    assert runtime.COUNTERS.compiles == compiles and runtime.COUNTERS.last_source == "disk"
    assert list(ll) == ["y1", "y2"] and list(dets) == ["mu", "scale2"]
    np.testing.assert_allclose(np.asarray(dets["mu"]), posterior["mu"], rtol=1e-12)


def test_precompile_rejects_an_unknown_input_kind_and_nothing_to_compile(cache_dir):
    with pytest.raises(ValueError, match="inputs: expected 'unconstrained' or 'constrained', got 'raw'"):
        pymc_aot.precompile(two_observed(), inputs="raw")
    with pm.Model() as no_deterministics:
        pm.Normal("y", pm.Normal("mu"), 1, observed=[0.0])
    with pytest.raises(ValueError, match="nothing to compile from the constrained posterior: the model has no determ"):
        pymc_aot.precompile(no_deterministics, inputs="constrained")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p.pop("s"), r"posterior: missing free variable\(s\) \['s'\]"),
        (lambda p: p.update(b=p["b"][..., :1]), r"posterior\['b'\]: expected shape \(chains, draws, 2\), got \(2, 7, 1\)"),
        (lambda p: p.update(s=p["s"][:, :3]), r"posterior\['s'\]: chains x draws 2 x 3 does not match 2 x 7 of 'b'"),
        (lambda p: p.update(b=p["b"].astype(np.complex64)), r"posterior\['b'\]: expected dtype float64"),
        (lambda p: p.update(s=p["s"][0]), r"posterior\['s'\]: expected 2 dimensions \(chains, draws\), got shape \(7,\)"),
    ],
)
def test_a_posterior_that_does_not_fit_is_named(change, message, cache_dir):
    model = two_observed()
    posterior = constrained_posterior(model, cache_dir)
    change(posterior)
    with pytest.raises(pymc_aot.SampleError, match=message):
        from_posterior(model, posterior, log_likelihood=True)


def test_var_names_name_what_is_unknown(cache_dir):
    model = two_observed()
    posterior = constrained_posterior(model, cache_dir)
    with pytest.raises(ValueError, match=r"unknown variable\(s\) \['mu'\]; the model has observed variables"):
        from_posterior(model, posterior, log_likelihood=True, var_names=["mu"])


def _child(out: Path, cache: Path, variant: int, *forbid: str) -> dict:
    return run_child("child_compute.py", out, cache, variant, *forbid, timeout=900)


def _expected(models: dict, saved) -> dict[str, np.ndarray]:
    """Stock PyMC on the posterior a child used."""
    out = {}
    for name, model in models.items():
        posterior = {k.split("/")[2]: saved[k] for k in saved.files if k.startswith(f"{name}/posterior/")}
        idata = pm.compute_log_likelihood(make_idata(model, posterior), model=model, progressbar=False)
        for k, v in group(idata, "log_likelihood").items():
            out[f"{name}/log_likelihood/{k}"] = v.values
        for k, v in pm.compute_deterministics(group(idata, "posterior"), model=model, progressbar=False).items():
            out[f"{name}/deterministics/{k}"] = v.values
    return out


@pytest.mark.slow
def test_fresh_process_warm_cache_compiles_nothing_and_a_changed_model_is_not_served_stale(tmp_path):
    from zoo import ZOO

    cache = tmp_path / "cache"
    first = _child(tmp_path / "a.npz", cache, 0)
    assert first["compiles"] > 0
    warm = _child(tmp_path / "b.npz", cache, 0, "--forbid-compile")
    assert warm["compiles"] == 0 and warm["disk_hits"] > 0
    a, b = np.load(tmp_path / "a.npz"), np.load(tmp_path / "b.npz")
    assert sorted(a.files) == sorted(b.files)
    for k in a.files:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    models = {"two_observed": two_observed(0), "time_series": ZOO["time_series"](), "regression_data": ZOO["regression_data"]()}
    for k, v in _expected(models, a).items():
        np.testing.assert_allclose(a[k], v, rtol=1e-10, atol=1e-10, err_msg=k)
    # the changed model on the first version's cache: new numbers, PyMC's numbers
    _child(tmp_path / "c.npz", cache, 1)
    c = np.load(tmp_path / "c.npz")
    changed = _expected({"two_observed": two_observed(1)}, c)
    for k, v in changed.items():
        np.testing.assert_allclose(c[k], v, rtol=1e-10, atol=1e-10, err_msg=k)
    assert not np.allclose(c["two_observed/deterministics/mu"], a["two_observed/deterministics/mu"])
    assert not np.allclose(c["two_observed/log_likelihood/y2"], a["two_observed/log_likelihood/y2"])


@pytest.mark.slow
def test_pm_sample_with_pymcs_nuts_gets_its_log_likelihood_from_the_cache(cache_dir):
    model = two_observed()
    kwargs = dict(draws=15, tune=15, chains=2, cores=1, random_seed=3, progressbar=False, compute_convergence_checks=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # PyMC 6 deprecates idata_kwargs log_likelihood
        with pymc_aot.enabled(cache_dir=str(cache_dir), strategy="vmap"), model:
            events = len(runtime.COUNTERS.events)
            idata = pm.sample(nuts_sampler="pymc", idata_kwargs={"log_likelihood": True}, **kwargs)
        ours = runtime.COUNTERS.events[events:]
    assert [what for what, _ in ours] == ["compile"]
    got = group(idata, "log_likelihood")
    posterior = group(idata, "posterior")
    free = {rv.name: posterior[rv.name].values for rv in model.free_RVs}
    expected = pm.compute_log_likelihood(make_idata(model, free), model=model, progressbar=False)
    for name, want in group(expected, "log_likelihood").items():
        assert got[name].dims == want.dims
        np.testing.assert_allclose(got[name].values, want.values, rtol=1e-10, atol=1e-10)
    if PYMC_MAJOR < 6:
        assert got.attrs["inference_library"] == "pymc"


@pytest.mark.slow
def test_nutpie_posterior_gets_its_log_likelihood_from_the_cache(cache_dir):
    pytest.importorskip("nutpie")
    model = two_observed()
    kwargs = dict(draws=20, tune=20, chains=2, random_seed=3, progressbar=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyMC 5 ignores idata_kwargs for nutpie; PyMC 6 deprecates them
        with pymc_aot.enabled(cache_dir=str(cache_dir), strategy="vmap"), model:
            events = len(runtime.COUNTERS.events)
            idata = pm.sample(nuts_sampler="nutpie", idata_kwargs={"log_likelihood": True}, **kwargs)
            if PYMC_MAJOR < 6:  # PyMC 5.28 leaves it to the user
                idata = pm.compute_log_likelihood(idata)
    assert [what for what, _ in runtime.COUNTERS.events[events:]] == ["compile"]
    posterior = group(idata, "posterior")
    free = {rv.name: posterior[rv.name].values for rv in model.free_RVs}
    expected = group(pm.compute_log_likelihood(make_idata(model, free), model=model, progressbar=False), "log_likelihood")
    got = group(idata, "log_likelihood")
    for name, want in expected.items():
        np.testing.assert_allclose(got[name].values, want.values, rtol=1e-10, atol=1e-10)
