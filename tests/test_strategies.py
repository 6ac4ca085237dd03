"""Every strategy gives PyMC's numbers on every zoo model."""

from __future__ import annotations

import numpy as np
import pytest
from reference import assert_same, pymc_log_likelihood, pymc_posterior
from zoo import ZOO, draws_for

from pymc_aot import runtime

STRATEGIES = ["vmap", "scan", "scan_vmap", "vmap_scan", "nested_scan", "batched(1)", "batched(4)", "batched(14)"]


@pytest.mark.parametrize("name", list(ZOO))
def test_posterior_all_strategies(zoo_models, name, tmp_path):
    model = zoo_models[name]
    samples = draws_for(model)
    expected = pymc_posterior(model, samples)
    for strategy in STRATEGIES:
        got = runtime.postprocess(model, [s.copy() for s in samples], strategy=strategy, cache=tmp_path)
        assert_same(got, expected)


@pytest.mark.parametrize("name", list(ZOO))
def test_log_likelihood_matches_pymc(zoo_models, name, tmp_path):
    model = zoo_models[name]
    samples = draws_for(model, seed=1)
    expected = pymc_log_likelihood(model, samples)
    for strategy in ("vmap", "batched(3)", "nested_scan"):
        got = runtime.postprocess(model, samples, strategy=strategy, log_likelihood=True, cache=tmp_path)
        assert_same(got, expected)


def test_var_names_and_keep_untransformed(zoo_models, tmp_path):
    model = zoo_models["shapes_and_bounds"]
    samples = draws_for(model)
    for var_names, keep in [(["v", "combo"], False), (None, True), (["p", "p_logodds__"], True)]:
        expected = pymc_posterior(model, samples, var_names=var_names, keep_untransformed=keep)
        got = runtime.postprocess(model, samples, var_names=var_names, keep_untransformed=keep, cache=tmp_path)
        assert_same(got, expected)


def test_numpy_inputs_survive_donation(zoo_models, tmp_path):
    model = zoo_models["scalars"]
    samples = draws_for(model)
    before = [s.copy() for s in samples]
    runtime.postprocess(model, samples, strategy="vmap", cache=tmp_path)
    for a, b in zip(samples, before, strict=True):
        np.testing.assert_array_equal(a, b)


def test_remainder_batch_writes_every_draw(zoo_models, tmp_path):
    """3 chains x 5 draws in batches of 4: the clamped last batch must cover draw 15."""
    model = zoo_models["scalars"]
    samples = draws_for(model, chains=3, draws=5)
    expected = pymc_posterior(model, samples)
    assert_same(runtime.postprocess(model, samples, strategy="batched(4)", cache=tmp_path), expected)
