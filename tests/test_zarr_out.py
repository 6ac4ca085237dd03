"""out=: postprocessed draws in a Zarr store, read back equal to PyMC; interrupted writes refused."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
from reference import assert_same, pymc_log_likelihood, pymc_posterior
from zoo import ZOO, draws_for

from pymc_aot import runtime
from pymc_aot.runtime.streams.zarr_store import IncompleteStoreError, open_dataset, open_store

HERE = Path(__file__).parent


def _read(result: dict) -> dict:
    return {k: np.asarray(v) for k, v in result.items()}


@pytest.mark.parametrize("name", list(ZOO))
def test_out_matches_pymc_through_the_store(zoo_models, name, tmp_path):
    """B dividing (7) and not dividing (4) the 14 draws, auto, and a non-streamed strategy."""
    model = zoo_models[name]
    samples = draws_for(model)
    expected = pymc_posterior(model, samples)
    expected_ll = pymc_log_likelihood(model, samples)
    for strategy in ("streamed(7)", "streamed(4)", "auto", "vmap"):
        store = tmp_path / f"{strategy}.zarr"
        got = runtime.postprocess(model, [s.copy() for s in samples], strategy=strategy, out=store, cache=tmp_path)
        assert all(not isinstance(v.variable._data, np.ndarray) for v in got.values()), "reads lazily from the store"
        assert_same(_read(got), expected)
        assert_same(_read(open_store(store)), expected)
        ds = open_dataset(store)
        assert_same({k: ds[k].values for k in expected}, expected)
        assert list(ds["chain"].values) == [0, 1] and list(ds["draw"].values) == list(range(7))
        ll = runtime.postprocess(model, samples, strategy=strategy, log_likelihood=True, out=store, cache=tmp_path)
        assert_same(_read(ll), expected_ll)
        assert_same(_read(open_store(store, "log_likelihood")), expected_ll)
        assert_same(_read(open_store(store)), expected), "the posterior group is kept beside the log-likelihood"


def test_integer_outputs_round_trip(tmp_path):
    with pm.Model() as model:
        v = pm.Normal("v", 0, 1, shape=4)
        pm.Deterministic("top", pt.argmax(v))
    samples = draws_for(model, chains=2, draws=9)
    expected = pymc_posterior(model, samples)
    got = runtime.postprocess(model, samples, strategy="streamed(4)", out=tmp_path / "s.zarr", cache=tmp_path)
    assert_same(_read(got), expected)
    ds = open_dataset(tmp_path / "s.zarr")
    assert ds["top"].dtype == expected["top"].dtype and (ds["top"].values == expected["top"]).all()


@pytest.mark.slow
def test_a_killed_writer_leaves_a_store_that_reads_as_incomplete(zoo_models, tmp_path):
    store = tmp_path / "posterior.zarr"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    child = subprocess.Popen(
        [sys.executable, str(HERE / "child_zarr_writer.py"), str(store), str(tmp_path / "cache")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        for line in child.stdout:
            if line.startswith("wrote 5"):  # five batches of 200 are in the store
                break
        else:
            pytest.fail(f"the writer never got going: {child.stderr.read()[-2000:]}")
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL
    chunks = list((store / "posterior").glob("*/c/**/*"))
    assert chunks, "the kill came after some batches were written"
    with pytest.raises(IncompleteStoreError, match="is incomplete: the process writing it stopped before the end"):
        open_store(store)
    with pytest.raises(IncompleteStoreError, match="incomplete"):
        open_dataset(store)
    # writing again over the broken store gives a complete one with PyMC's numbers
    model = zoo_models["shapes_and_bounds"]
    samples = draws_for(model, chains=2, draws=200)
    runtime.postprocess(model, samples, strategy="streamed(64)", out=store, cache=tmp_path / "cache")
    assert_same(_read(open_store(store)), pymc_posterior(model, samples))


def test_missing_group_and_bad_targets_are_named(zoo_models, tmp_path):
    model, samples = zoo_models["scalars"], draws_for(zoo_models["scalars"])
    runtime.postprocess(model, samples, strategy="streamed(3)", out=tmp_path / "p.zarr", cache=tmp_path)
    with pytest.raises(IncompleteStoreError, match="group 'log_likelihood': no such group"):
        open_store(tmp_path / "p.zarr", "log_likelihood")
    with pytest.raises(TypeError, match=r"out: expected a path to a Zarr store .* got int"):
        runtime.postprocess(model, samples, out=3, cache=tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"notes\.txt' exists and is not a Zarr"):
        runtime.postprocess(model, samples, out=tmp_path / "notes.txt", cache=tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_out_returns_a_dataset_with_the_models_dims_and_coords(tmp_path):
    import warnings

    import xarray as xr

    from pymc_aot.examples import eight_schools

    model = eight_schools()
    samples = draws_for(model, chains=2, draws=6)
    store = tmp_path / "schools.zarr"
    got = runtime.postprocess(model, samples, strategy="streamed(3)", out=store, cache=tmp_path)
    assert isinstance(got, xr.Dataset)
    assert got["theta"].dims == ("chain", "draw", "school") and list(got["school"].values) == list(model.coords["school"])
    assert not isinstance(got["theta"].variable._data, np.ndarray), "read lazily from the store"
    assert_same({k: got[k].values for k in ("mu", "theta")}, {k: v for k, v in pymc_posterior(model, samples).items()
                                                              if k in ("mu", "theta")})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "unconsolidated metadata" warning
        assert "theta" in xr.open_zarr(store, group="posterior", consolidated=True)
