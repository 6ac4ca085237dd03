"""``posterior_predictive(..., out=)``: the draws written to a Zarr store are the in-memory draws, bit for bit."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
from zoo import regression_data

import pymc_aot
from pymc_aot.runtime.streams.zarr_store import open_store

pytest.importorskip("zarr")

CHAINS, DRAWS = 2, 50


@pytest.fixture(scope="module")
def model() -> pm.Model:
    return regression_data()


def _posterior() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2)
    return {"beta": rng.normal(size=(CHAINS, DRAWS, 3)), "sigma": np.abs(rng.normal(size=(CHAINS, DRAWS))) + 0.2}


@pytest.mark.parametrize("strategy", ["auto", "streamed(16)", "vmap"])
def test_out_writes_the_in_memory_draws(model: pm.Model, tmp_path, strategy: str) -> None:
    post = _posterior()
    names = ["mu", "y"]
    memory = pymc_aot.posterior_predictive(model, post, var_names=names, random_seed=7, strategy="vmap", cache=tmp_path)
    store = tmp_path / "ppc.zarr"
    written = pymc_aot.posterior_predictive(
        model, post, var_names=names, random_seed=7, strategy=strategy, cache=tmp_path, out=store
    )
    for name in names:
        np.testing.assert_array_equal(np.asarray(written[name][...]), np.asarray(memory[name]))
    reopened = open_store(store, "predictive")
    assert sorted(reopened) == names
    np.testing.assert_array_equal(np.asarray(reopened["y"][...]), np.asarray(memory["y"]))
