"""PyMC 6's ``sample_posterior_predictive``: ``sample_vars``/``freeze_vars`` and trace variables it keeps.

Only PyMC 5.28 runs here: PyMC 6's signature is given to the seam by a stand-in, and its
semantics (trace variables are kept unless ``sample_vars`` names them) by the compat switch.
"""

from __future__ import annotations

import warnings

import numpy as np
import pymc as pm
import pytest
from idata_helpers import from_dict
from zoo import regression_data

import pymc_aot
from pymc_aot.aot import compat
from pymc_aot.runtime.predictive import hook

CHAINS, DRAWS = 2, 20


@pytest.fixture(scope="module")
def model_idata():
    model = regression_data()
    rng = np.random.default_rng(3)
    post = {"beta": rng.normal(size=(CHAINS, DRAWS, 3)), "sigma": np.abs(rng.normal(size=(CHAINS, DRAWS))) + 0.2}
    constant = {"x": model["x"].get_value(), "yobs": model["yobs"].get_value()}
    return model, from_dict({"posterior": post, "constant_data": constant, "observed_data": {"y": constant["yobs"]}})


def pymc6_signature(  # the parameters of PyMC 6.4's function, in its order
    trace, model=None, var_names=None, sample_vars=None, freeze_vars=None, sample_dims=None, random_seed=None,
    progressbar=True, progressbar_theme=None, return_inferencedata=True, extend_inferencedata=False,
    predictions=False, idata_kwargs=None, compile_kwargs=None,
):  # fmt: skip
    return "PyMC's own"


def _pymc_aot_warnings(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, pymc_aot.FallbackWarning)]


@pytest.mark.parametrize("argument", ["sample_vars", "freeze_vars"])
def test_sample_and_freeze_vars_go_to_pymc_with_one_warning(model_idata, tmp_path, argument) -> None:
    model, idata = model_idata
    seam = hook._seam(pymc6_signature)
    with pymc_aot.enabled(cache_dir=str(tmp_path), strategy="vmap"):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            out = seam(idata, model=model, **{argument: ["beta"]})
        assert out == "PyMC's own"
        messages = _pymc_aot_warnings(record)
        assert len(messages) == 1 and argument in messages[0]
        with warnings.catch_warnings():
            warnings.simplefilter("error", pymc_aot.FallbackWarning)
            served = seam(idata, model=model, random_seed=1, progressbar=False, **{argument: None})
    assert served.posterior_predictive["y"].shape == (CHAINS, DRAWS, 50)


def test_a_trace_variable_pymc6_keeps_goes_to_pymc(model_idata, tmp_path, monkeypatch) -> None:
    """PyMC 6 copies ``beta`` from the trace where PyMC 5 (and the cache's plan) draws it afresh."""
    model, idata = model_idata
    monkeypatch.setattr(compat, "freezes_trace_variables", lambda: True)
    stock = pm.sample_posterior_predictive(idata, model=model, var_names=["beta", "y"], random_seed=4, progressbar=False)
    with pymc_aot.enabled(cache_dir=str(tmp_path), strategy="vmap"):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            ours = pm.sample_posterior_predictive(
                idata, model=model, var_names=["beta", "y"], random_seed=4, progressbar=False
            )
        messages = _pymc_aot_warnings(record)
        assert len(messages) == 1 and "['beta']" in messages[0] and "sample_vars" in messages[0]
        np.testing.assert_array_equal(ours.posterior_predictive["y"].values, stock.posterior_predictive["y"].values)
        with warnings.catch_warnings():
            warnings.simplefilter("error", pymc_aot.FallbackWarning)  # the default check draws no trace variable
            served = pm.sample_posterior_predictive(idata, model=model, random_seed=4, progressbar=False)
    assert served.posterior_predictive["y"].shape == (CHAINS, DRAWS, 50)
