"""Bad input gets a clear error naming the variable, what was expected and what came."""

from __future__ import annotations

import numpy as np
import pytest
from zoo import draws_for, regression_data, time_series

from pymc_aot import runtime
from pymc_aot.runtime import SampleError


@pytest.fixture(scope="module")
def model():
    return regression_data()


@pytest.fixture
def good(model):
    return draws_for(model)


def test_wrong_number_of_arrays(model, good, cache_dir):
    with pytest.raises(SampleError, match=r"expected 2 arrays, one per value variable \['beta', 'sigma_log__'\], got 1"):
        runtime.postprocess(model, good[:1])


def test_unknown_and_missing_names(model, good, cache_dir):
    with pytest.raises(SampleError, match=r"unknown name\(s\) \['sigma'\]; missing value variable\(s\) \['sigma_log__'\]"):
        runtime.postprocess(model, {"beta": good[0], "sigma": good[1]})


def test_wrong_rank(model, good, cache_dir):
    with pytest.raises(SampleError, match=r"samples\['beta'\]: expected 3 dimensions \(chains, draws, 3\), got shape \(14, 3\)"):
        runtime.postprocess(model, [good[0].reshape(14, 3), good[1]])


def test_wrong_static_shape(model, good, cache_dir):
    bad = np.zeros((2, 7, 4))
    with pytest.raises(SampleError, match=r"samples\['beta'\]: expected shape \(chains, draws, 3\), got \(2, 7, 4\)"):
        runtime.postprocess(model, [bad, good[1]])


def test_wrong_dynamic_shape_is_caught_before_compiling(cache_dir):
    model = time_series()  # the AR value variable has no static length
    samples = draws_for(model)
    samples[1] = samples[1][..., :10]
    compiles = runtime.COUNTERS.compiles
    with pytest.raises(SampleError, match=r"samples\['ar'\]: expected shape \(chains, draws, 14\), got \(2, 7, 10\)"):
        runtime.postprocess(model, samples)
    assert runtime.COUNTERS.compiles == compiles


def test_inconsistent_chains_draws(model, good, cache_dir):
    with pytest.raises(SampleError, match=r"samples\['sigma_log__'\]: chains x draws 2 x 6 does not match 2 x 7 of 'beta'"):
        runtime.postprocess(model, [good[0], good[1][:, :6]])


def test_lossy_dtype_refused_lossless_cast(model, good, cache_dir):
    with pytest.raises(SampleError, match=r"samples\['beta'\]: expected dtype float64 \(the model's\), got complex128"):
        runtime.postprocess(model, [good[0].astype(np.complex128), good[1]])
    as32 = runtime.postprocess(model, [good[0].astype(np.float32), good[1].astype(np.float32)])
    exact = runtime.postprocess(model, [good[0].astype(np.float32).astype(np.float64), good[1].astype(np.float32).astype(np.float64)])
    np.testing.assert_array_equal(as32["mu"], exact["mu"])


def test_not_a_list(model, cache_dir):
    with pytest.raises(SampleError, match="expected a list in value-variable order or a dict by name, got int"):
        runtime.postprocess(model, 3)


def test_unknown_strategy_and_bad_batch(model, good, cache_dir):
    with pytest.raises(ValueError, match="unknown strategy 'fastest'"):
        runtime.postprocess(model, good, strategy="fastest")
    with pytest.raises(ValueError, match="needs a positive batch_size, got 0"):
        runtime.postprocess(model, good, strategy="batched", batch_size=0)
    with pytest.raises(ValueError, match="batch_size=5 only applies to the 'batched' strategy"):
        runtime.postprocess(model, good, strategy="vmap", batch_size=5)


def test_unknown_var_names(model, good, cache_dir):
    with pytest.raises(ValueError, match=r"var_names: unknown variable\(s\) \['gamma'\]"):
        runtime.postprocess(model, good, var_names=["gamma"])
