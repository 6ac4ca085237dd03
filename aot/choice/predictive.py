"""``precompile`` for the posterior predictive: the entry ``pm.sample_posterior_predictive`` will
need after ``pm.sample``, compiled ahead (``pymc-aot precompile MODEL --predictive``).

The posterior is taken to hold what ``pm.sample`` stores (every free variable and
deterministic) and the data to be unchanged since, so the plan is the one a posterior
predictive check right after sampling follows.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytensor
import pytensor.tensor as pt

from ...cache import CacheStore
from ..build.entries import TransformEntry
from ..build.options import RequestOptions
from ..build.request import Progress, make_request
from ..identity.fingerprint import fingerprint_model
from ..identity.key import Signature
from ..identity.spec import OutputSpec
from ..predictive.forward import PredictivePlan, default_outputs, dim_lengths, plan_predictive
from ..predictive.keying import RNG_INPUT
from .resolve import resolve


def after_sampling_plan(model: Any, var_names: Any = None) -> PredictivePlan:
    """The plan of a posterior predictive on ``pm.sample``'s posterior, data unchanged."""
    names = list(var_names) if var_names is not None else default_outputs(model)
    in_posterior = [v.name for v in (*model.free_RVs, *model.deterministics)]
    fp = fingerprint_model(model)
    constant_data = {v.name: v.get_value(borrow=True) for v in fp.data if v.name is not None}
    return plan_predictive(model, names, in_posterior, constant_data, set(model.coords))


def given_signature(model: Any, given: tuple[str, ...], chains: int, draws: int) -> Signature:
    """Shapes ``(chains, draws, *shape)`` and dtypes of the given variables (shapes evaluated)."""
    if not given:
        return ()
    shapes = pytensor.function(
        [], [pt.as_tensor(model[n].shape) for n in given], mode="FAST_COMPILE", on_unused_input="ignore"
    )()
    return tuple(
        (n, (int(chains), int(draws), *(int(s) for s in shape)), str(model[n].dtype))
        for n, shape in zip(given, shapes, strict=True)
    )


def precompile_predictive(
    model: Any,
    options: RequestOptions,
    *,
    chains: int = 4,
    draws: int = 1000,
    cache: CacheStore | str | None = None,
    progress: Progress | None = None,
) -> TransformEntry:
    """Compile and store the posterior predictive of ``options.var_names`` (default: PyMC's)."""
    plan = after_sampling_plan(model, options.var_names)
    sig = (*given_signature(model, plan.given, chains, draws), (RNG_INPUT, (chains, draws, 3), "uint32"))
    lengths = dim_lengths(model, plan.outputs, plan.given)
    spec = OutputSpec("predictive", plan.outputs, given=plan.given, dim_lengths=lengths)
    request = make_request(model, sig, options.replace(var_names=None), spec=spec)
    store = cache if isinstance(cache, CacheStore) else CacheStore(cache)
    try:
        entry = resolve(request, store, progress)
    finally:
        if store is not cache:
            store.close()
    return dataclasses.replace(entry, payload=b"", executable=None)
