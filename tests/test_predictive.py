"""The posterior predictive through the cache: exact where it can be, identical to itself.

Deterministics equal PyMC's; one seed gives bit-identical draws whatever the strategy or
batch size, cold or warm; bad input is refused or recompiled as it should be.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
from idata_helpers import from_dict
from zoo import regression_data

import pymc_aot
from pymc_aot.runtime.transforms import engine
from pymc_aot.runtime.transforms.validate import SampleError

CHAINS, DRAWS = 2, 60


def _posterior(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "beta": rng.normal(size=(CHAINS, DRAWS, 3)),
        "sigma": np.abs(rng.normal(size=(CHAINS, DRAWS))) + 0.2,
    }


@pytest.fixture(scope="module")
def model() -> pm.Model:
    return regression_data()


def test_deterministic_equals_pymc(model: pm.Model, tmp_path) -> None:
    post = _posterior()
    ours = pymc_aot.posterior_predictive(
        model, post, var_names=["mu", "y"], random_seed=3, strategy="vmap", cache=tmp_path
    )

    stock = pm.sample_posterior_predictive(
        from_dict({"posterior": post}), model=model, var_names=["mu", "y"], random_seed=3, progressbar=False
    ).posterior_predictive
    np.testing.assert_allclose(np.asarray(ours["mu"]), stock["mu"].values, rtol=1e-12, atol=1e-12)
    assert np.asarray(ours["y"]).shape == stock["y"].shape
    assert not np.allclose(np.asarray(ours["y"]), np.asarray(ours["mu"]))  # y is drawn around mu


@pytest.mark.parametrize("strategy", ["scan", "nested_scan", "batched(7)", "streamed(13)", "scan_vmap"])
def test_same_seed_same_draws_whatever_the_strategy(model: pm.Model, tmp_path, strategy: str) -> None:
    post = _posterior()
    base = np.asarray(pymc_aot.posterior_predictive(model, post, random_seed=11, strategy="vmap", cache=tmp_path)["y"])
    other = pymc_aot.posterior_predictive(model, post, random_seed=11, strategy=strategy, cache=tmp_path)
    np.testing.assert_array_equal(np.asarray(other["y"]), base)
    another_seed = pymc_aot.posterior_predictive(model, post, random_seed=12, strategy=strategy, cache=tmp_path)
    assert not np.array_equal(np.asarray(another_seed["y"]), base)


def test_draw_keys_depend_on_the_draw_not_the_batch(model: pm.Model, tmp_path) -> None:
    """A draw's numbers are its own: the first chain alone gives what the first chain gave."""
    post = _posterior()
    whole = np.asarray(pymc_aot.posterior_predictive(model, post, random_seed=5, strategy="vmap", cache=tmp_path)["y"])
    first = {k: v[:1] for k, v in post.items()}
    alone = np.asarray(pymc_aot.posterior_predictive(model, first, random_seed=5, strategy="vmap", cache=tmp_path)["y"])
    np.testing.assert_array_equal(alone[0], whole[0])


def test_draws_are_threefry_whatever_the_default_prng(model: pm.Model, tmp_path) -> None:
    """A user's ``jax_default_prng_impl="rbg"`` neither breaks the draws (raw two-word keys) nor
    changes them: rbg, vmapped, would draw from the batch's first key only."""
    import jax

    post = _posterior()
    base = np.asarray(pymc_aot.posterior_predictive(model, post, random_seed=8, strategy="vmap", cache=tmp_path)["y"])
    previous = jax.config.jax_default_prng_impl
    jax.config.update("jax_default_prng_impl", "rbg")
    try:
        for strategy in ("vmap", "batched(7)"):
            out = pymc_aot.posterior_predictive(model, post, random_seed=8, strategy=strategy, cache=tmp_path)
            np.testing.assert_array_equal(np.asarray(out["y"]), base)
    finally:
        jax.config.update("jax_default_prng_impl", previous)


def test_one_executable_serves_every_seed(model: pm.Model, tmp_path) -> None:
    post = _posterior()
    pymc_aot.posterior_predictive(model, post, random_seed=1, strategy="vmap", cache=tmp_path)
    before = engine.COUNTERS.compiles
    pymc_aot.posterior_predictive(model, post, random_seed=2, strategy="vmap", cache=tmp_path)
    assert engine.COUNTERS.compiles == before


def test_missing_posterior_variable_is_named(model: pm.Model, tmp_path) -> None:
    post = _posterior()
    del post["sigma"]
    with pytest.raises(SampleError, match=r"lacks free variable\(s\) \['sigma'\]"):
        pymc_aot.posterior_predictive(model, post, random_seed=1, strategy="vmap", cache=tmp_path)


def test_unknown_var_name_is_named(model: pm.Model, tmp_path) -> None:
    with pytest.raises(ValueError, match=r"unknown variable.*'nope'"):
        pymc_aot.posterior_predictive(model, _posterior(), var_names=["nope"], cache=tmp_path)


def test_new_data_of_another_shape_recompiles(tmp_path) -> None:
    model = regression_data()
    post = _posterior()
    pymc_aot.posterior_predictive(model, post, var_names=["mu", "y"], random_seed=1, strategy="vmap", cache=tmp_path)
    new_x = np.random.default_rng(9).normal(size=(17, 3))
    before = engine.COUNTERS.compiles
    with model:
        pm.set_data({"x": new_x})
    out = pymc_aot.posterior_predictive(
        model, post, var_names=["mu", "y"], random_seed=1, strategy="vmap", cache=tmp_path
    )
    assert engine.COUNTERS.compiles == before + 1
    assert np.asarray(out["y"]).shape == (CHAINS, DRAWS, 17)
    np.testing.assert_allclose(np.asarray(out["mu"]), np.einsum("nk,cdk->cdn", new_x, post["beta"]), rtol=1e-12)


@pytest.mark.slow
def test_cold_and_warm_processes_give_the_same_draws(tmp_path) -> None:
    from children import run_child

    cold = run_child("child_predictive.py", tmp_path / "cache", tmp_path / "cold.npy")
    warm = run_child("child_predictive.py", tmp_path / "cache", tmp_path / "warm.npy")
    assert cold["compiles"] == 1 and warm["compiles"] == 0
    np.testing.assert_array_equal(np.load(tmp_path / "cold.npy"), np.load(tmp_path / "warm.npy"))


def test_a_mutable_dimension_of_new_length_recompiles(tmp_path) -> None:
    """Draw sizes from a mutable coordinate are compiled in (JAX needs them static) and keyed."""
    with pm.Model(coords={"obs": range(5)}) as model:
        x = pm.Data("x", np.arange(5.0), dims="obs")
        b = pm.Normal("b")
        pm.Normal("y", b * x, 1.0, dims="obs", observed=np.zeros(5))
    post = {"b": np.ones((1, 20))}
    first = pymc_aot.posterior_predictive(model, post, random_seed=1, strategy="vmap", cache=tmp_path)
    with model:
        pm.set_data({"x": np.arange(8.0)}, coords={"obs": range(8)})
    second = pymc_aot.posterior_predictive(model, post, random_seed=1, strategy="vmap", cache=tmp_path)
    assert np.asarray(first["y"]).shape == (1, 20, 5) and np.asarray(second["y"]).shape == (1, 20, 8)
    assert abs(np.asarray(second["y"])[..., 7].mean() - 7.0) < 1.0  # y ~ N(b * x, 1) at x = 7


@pytest.mark.slow
def test_same_draws_split_over_devices(tmp_path) -> None:
    from children import run_child

    assert run_child("child_predictive_sharded.py", tmp_path) == {"sharded": True, "streamed": True}


def test_inferencedata_dataset_and_dict_give_the_same_draws(model: pm.Model, tmp_path) -> None:

    post = _posterior()
    idata = from_dict({"posterior": post, "constant_data": {"x": model["x"].get_value()}})
    run = lambda p: np.asarray(pymc_aot.posterior_predictive(model, p, random_seed=4, strategy="vmap", cache=tmp_path)["y"])
    base = run(post)
    np.testing.assert_array_equal(run(idata), base)
    np.testing.assert_array_equal(run(idata.posterior), base)
