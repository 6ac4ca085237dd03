"""Real clients of pm.sample under enable(): a pymc-marketing MMM (data through pymc.dims) and a
bambi model, each against stock PyMC. Skipped unless both are installed: the optional nox session
``clients`` installs them (pymc-marketing pins pymc < 6.4)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pymc as pm
import pytest
from test_pymc_integration import FAST, assert_same_idata

import pymc_aot

pymc_marketing = pytest.importorskip("pymc_marketing")
bmb = pytest.importorskip("bambi")


def mmm_model() -> pm.Model:
    from pymc_marketing.mmm import MMM, GeometricAdstock, LogisticSaturation

    rng = np.random.default_rng(1)
    n = 52
    X = pd.DataFrame(
        {
            "date": pd.date_range("2024-01-01", periods=n, freq="W-MON"),
            "tv": rng.gamma(2.0, 1.0, n),
            "search": rng.gamma(2.0, 1.0, n),
            "promo": rng.binomial(1, 0.2, n).astype(float),
        }
    )
    y = pd.Series(3.0 + X["tv"] + 0.5 * X["search"] + rng.normal(0, 0.5, n), name="sales")
    mmm = MMM(
        date_column="date",
        channel_columns=["tv", "search"],
        control_columns=["promo"],
        adstock=GeometricAdstock(l_max=4),
        saturation=LogisticSaturation(),
        yearly_seasonality=2,
    )
    mmm.build_model(X, y)
    return mmm.model


def bambi_model() -> pm.Model:
    rng = np.random.default_rng(2)
    data = pd.DataFrame({"x": rng.normal(size=60), "g": np.repeat(list("abcdef"), 10)})
    data["y"] = 1.0 + 0.5 * data["x"] + rng.normal(size=60)
    model = bmb.Model("y ~ x + (1|g)", data)
    model.build()
    return model.backend.model


@pytest.mark.parametrize("make", [mmm_model, bambi_model], ids=["pymc-marketing-mmm", "bambi"])
def test_a_real_clients_model_samples_as_stock_cold_and_warm(make, cache_dir):
    model = make()
    kw = {"nuts_sampler": "numpyro", "random_seed": 5, "idata_kwargs": {"log_likelihood": True}, **FAST}
    with model:
        stock = pm.sample(**kw)
    for _ in ("cold", "warm"):
        pymc_aot.clear_memo()
        with warnings.catch_warnings(), pymc_aot.enabled(cache_dir=str(cache_dir), sampler=False), model:
            warnings.simplefilter("error", pymc_aot.FallbackWarning)
            ours = pm.sample(**kw)
        assert_same_idata(stock, ours)
