"""The structural key is used only where every read of the code that reaches the build is audited;
anything else (dynamic reads, the environment, a shared value read in a logp, versioned code
replaced at run time) is keyed on the lowered program, with the reason. Zoo and bench models
all keep the structural key."""

from __future__ import annotations

import builtins
import operator
import os
import sys
import types
from pathlib import Path

import numpy as np
import pymc as pm
import pytensor
import pytest
from pymc.logprob.transforms import LogTransform
from zoo import ZOO

from pymc_aot.aot.identity.fingerprint import fingerprint_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.models import MODELS

OBS = np.linspace(-1.0, 1.0, 5)
DATA = pytensor.shared(np.float64(1.0), name="scale_data")
SETTINGS = types.SimpleNamespace(scale=1.0)


def _model(logp) -> pm.Model:
    with pm.Model() as m:
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.CustomDist("y", mu, logp=logp, observed=OBS)
    return m


def env_logp(value, mu):
    return -0.5 * ((value - mu) / float(os.environ.get("PYMC_AOT_TEST_SCALE", "1"))) ** 2


def getenv_logp(value, mu):
    return -0.5 * ((value - mu) / float(os.getenv("PYMC_AOT_TEST_SCALE", "1"))) ** 2


NAME = "scale"


def getattr_logp(value, mu):
    return -0.5 * ((value - mu) / getattr(sys.modules[__name__], NAME.upper())) ** 2


def dict_logp(value, mu):
    return -0.5 * ((value - mu) / sys.modules[__name__].__dict__["SCALE"]) ** 2


def attrgetter_logp(value, mu):
    return -0.5 * ((value - mu) / operator.attrgetter("SCALE")(sys.modules[__name__])) ** 2


def shared_logp(value, mu):
    return -0.5 * ((value - mu) / DATA.get_value()) ** 2


def static_getattr_logp(value, mu):
    return -0.5 * ((value - mu) / getattr(SETTINGS, "scale", 1.0)) ** 2


SCALE = 1.0


@pytest.mark.parametrize(
    ("logp", "why"),
    [
        (env_logp, "environ"),
        (getenv_logp, "getenv"),
        (getattr_logp, "computed attribute name"),
        (dict_logp, "__dict__"),
        (attrgetter_logp, "attrgetter"),
        (shared_logp, "get_value"),
    ],
)
def test_dynamic_reads_take_the_lowered_key_with_the_reason(logp, why):
    fp = fingerprint_model(_model(logp))
    assert not fp.exact and any(why in r for r in fp.reasons), fp.reasons


def test_a_constant_attribute_name_stays_structural():
    assert fingerprint_model(_model(static_getattr_logp)).exact


def test_a_versioned_counter_is_described_by_its_content():
    from collections import Counter

    counts = Counter(a=1)

    def logp(value, mu):
        return -0.5 * ((value - mu) / counts["a"]) ** 2

    before = fingerprint_model(_model(logp))
    counts["a"] = 3
    after = fingerprint_model(_model(logp))
    assert before.exact and after.exact and before.model_hash != after.model_hash


def test_a_name_injected_into_builtins_is_described_by_value():
    def logp(value, mu):
        return -0.5 * ((value - mu) / PYMC_AOT_INJECTED) ** 2  # noqa: F821 - injected below

    builtins.PYMC_AOT_INJECTED = 1.0
    try:
        before = fingerprint_model(_model(logp)).model_hash
        builtins.PYMC_AOT_INJECTED = 2.0
        assert fingerprint_model(_model(logp)).model_hash != before
    finally:
        del builtins.PYMC_AOT_INJECTED


def test_a_replaced_method_of_a_versioned_class_takes_the_lowered_key(monkeypatch):
    original = LogTransform.backward

    def backward(self, value, *inputs):
        return original(self, value, *inputs) * 2.0

    with pm.Model() as m:
        pm.HalfNormal("s", 1.0)
    assert fingerprint_model(m).exact
    monkeypatch.setattr(LogTransform, "backward", backward)
    fp = fingerprint_model(m)
    assert not fp.exact and "LogTransform.backward" in fp.reasons[0], fp.reasons


def test_a_replaced_module_function_of_pytensor_takes_the_lowered_key(monkeypatch):
    import pymc.logprob.transforms
    import pytensor.tensor as pt

    original = pt.exp

    def my_exp(x):
        return original(x) * 2.0

    with pm.Model() as m:
        pm.HalfNormal("s", 1.0)
    assert fingerprint_model(m).exact
    monkeypatch.setattr(pymc.logprob.transforms.pt, "exp", my_exp)  # the name PyMC's LogTransform reads
    fp = fingerprint_model(m)
    assert not fp.exact and any("pytensor.tensor.exp was replaced" in r for r in fp.reasons), fp.reasons
    monkeypatch.undo()  # put back: structural again
    assert fingerprint_model(m).exact


def test_every_zoo_and_bench_model_gets_the_structural_key():
    builders = {**ZOO, **{f"bench/{k}": (lambda f=f: f(0.05)) for k, f in MODELS.items()}}
    inexact = {name: fp.reasons for name, build in builders.items() if not (fp := fingerprint_model(build())).exact}
    assert not inexact, inexact
