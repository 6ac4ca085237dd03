"""Models stock PyMC postprocesses that pymc-aot must not crash on: a user Op lowered through
``jax.pure_callback`` (its executable cannot be serialized: run uncached, one warning; in a child
process, tests/child_pure_callback.py), an integer scalar ``pm.Data`` used as a shape or slice bound."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from children import run_child
from reference import assert_same, pymc_posterior
from zoo import draws_for

from pymc_aot import runtime


def test_a_pure_callback_op_runs_uncached_with_one_warning(cache_dir):
    found = run_child("child_pure_callback.py", cache_dir)  # its registration would reach every later key here
    ours = [w for w in found["warnings"] if "cannot be stored" in w]
    assert len(ours) == 1, found["warnings"]


def test_an_integer_scalar_data_used_as_a_slice_bound_is_a_constant_keyed_by_value(cache_dir):
    with pm.Model() as model:
        n = pm.Data("n", np.array(2, dtype="int64"))
        x = pm.Normal("x", 0.0, 1.0, shape=4)
        pm.Deterministic("head", x[:n])
        pm.Deterministic("ones", pt.ones((n,)) * x[0])
    draws = draws_for(model)
    assert_same(runtime.postprocess(model, draws, strategy="vmap"), pymc_posterior(model, draws))
    pm.set_data({"n": np.array(3, dtype="int64")}, model=model)
    assert_same(runtime.postprocess(model, draws, strategy="vmap"), pymc_posterior(model, draws))
