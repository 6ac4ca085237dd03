"""Run a posterior predictive through the cache: posterior draws in, predictive draws out.

The forward graph, the key and the executable are those of a ``predictive`` transform
(:mod:`pymc_aot.aot.predictive`); the draws' random keys come from ``random_seed`` and each
draw's flat (chain, draw) index, so every strategy gives the same numbers for one seed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from ...aot.build.options import RequestOptions
from ...aot.build.request import make_request, match_floatx
from ...aot.identity.fingerprint import fingerprint_model
from ...aot.identity.spec import OutputSpec
from ...aot.predictive import RNG_INPUT, plan_predictive, rng_array
from ...aot.predictive.forward import PredictivePlan, default_outputs, dim_lengths
from ..transforms.transform_cache import TransformCache
from ..transforms.validate import SampleError, check_arrays


def posterior_dict(posterior: Any) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """``(arrays by name, constant data, observed data)`` of an InferenceData, DataTree, Dataset
    or a dict of ``(chains, draws, ...)`` arrays (then no constant nor observed data)."""
    constant: dict[str, Any] = {}
    observed = None
    group = posterior
    if _has_group(posterior, "posterior"):
        if _has_group(posterior, "constant_data"):
            constant = {str(k): np.asarray(v) for k, v in _group(posterior, "constant_data").items()}
        if _has_group(posterior, "observed_data"):
            observed = _group(posterior, "observed_data")
        group = _group(posterior, "posterior")
    elif hasattr(group, "to_dataset"):  # a DataTree node, e.g. ArviZ 1.x's idata.posterior (PyMC 6)
        group = group.to_dataset()
    if hasattr(group, "data_vars"):
        group = group.transpose("chain", "draw", ...)
        return {str(k): v.values for k, v in group.data_vars.items()}, constant, observed
    if isinstance(group, Mapping):
        return dict(group), constant, observed
    raise SampleError(
        f"posterior: expected an InferenceData, DataTree, Dataset or dict of arrays, got {type(posterior).__name__}"
    )


def _has_group(obj: Any, name: str) -> bool:
    try:
        return hasattr(obj, "groups") and name in (obj.groups() if callable(obj.groups) else obj.children)
    except (TypeError, AttributeError):
        return False


def _group(obj: Any, name: str) -> Any:
    group = obj[name]
    return group.to_dataset() if hasattr(group, "to_dataset") else group


def make_plan(
    model: Any,
    var_names: Sequence[str] | None,
    available: Collection[str],
    constant_data: Mapping[str, Any],
    constant_coords: Collection[str] | None,
    observed_names: Collection[str] = (),
    allow_prior: bool = False,
) -> PredictivePlan:
    """PyMC's plan for these outputs; without ``allow_prior``, a free variable the outputs need
    that the posterior lacks (PyMC would draw it from its prior) is an error naming it."""
    if isinstance(var_names, str):
        var_names = [var_names]
    names = list(var_names) if var_names is not None else default_outputs(model, observed_names)
    unknown = [n for n in names if n not in model.named_vars]
    if unknown:
        raise ValueError(f"var_names: unknown variable(s) {unknown}; the model has {list(model.named_vars)}")
    plan = plan_predictive(model, names, available, constant_data, constant_coords)
    if not allow_prior:
        lacking = [n for n in plan.drawn if model[n] in model.free_RVs and n not in names]
        if lacking:
            raise SampleError(
                f"posterior: lacks free variable(s) {lacking} that the posterior predictive of {names} needs "
                f"(it holds {sorted(available)})"
            )
    return plan


def run_predictive(
    runtime: TransformCache,
    model: Any,
    posterior: Mapping[str, Any],
    plan: PredictivePlan,
    options: RequestOptions,
    *,
    random_seed: Any = None,
    cache: Any = None,
    use_cache: bool = True,
    out: Any = None,
) -> dict[str, Any]:
    """Draw ``plan.outputs`` for every (chain, draw) of ``posterior`` with the cached executable."""
    match_floatx()
    fp = fingerprint_model(model)
    given = [model[n] for n in plan.given]
    if given:
        arrays, sig = check_arrays(
            [posterior[n] for n in plan.given],
            plan.given,
            [str(v.dtype) for v in given],
            [tuple(v.type.shape) for v in given],
            "posterior",
        )
        chains, draws = sig[0][1][:2]
    else:
        arrays, sig = [], ()
        chains, draws = _chains_draws(posterior)
    rng = rng_array(random_seed, chains, draws)
    sig = (*sig, (RNG_INPUT, rng.shape, "uint32"))
    lengths = dim_lengths(model, plan.outputs, plan.given)
    spec = OutputSpec("predictive", plan.outputs, given=plan.given, dim_lengths=lengths)
    request = make_request(model, sig, options, fingerprint=fp, spec=spec)
    target = None
    if out is not None:
        from ..streams.zarr_store import check_target

        target = check_target(out)
    store = runtime.store(cache) if use_cache else None
    return runtime.execute(request, [*arrays, rng], store, target)


def _chains_draws(posterior: Mapping[str, Any]) -> tuple[int, int]:
    for value in posterior.values():
        shape = np.shape(value)
        if len(shape) >= 2:
            return int(shape[0]), int(shape[1])
    raise SampleError("posterior: no (chains, draws, ...) array to take the number of draws from")
