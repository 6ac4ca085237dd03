"""Run a transform of the constrained posterior: deterministics or pointwise log-likelihood.

The arrays are what ``idata.posterior`` holds, one per free random variable, shaped
``(chains, draws, *shape)``; the results are what ``pm.compute_deterministics`` and
``pm.compute_log_likelihood`` compute from them, by the cached executable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...aot.build.constrained import constrained_inputs, constrained_signature
from ...aot.build.options import RequestOptions
from ...aot.build.request import make_request
from ...aot.identity.fingerprint import fingerprint_model
from ...aot.identity.spec import resolve_constrained_outputs
from ...cache import CacheStore
from .transform_cache import TransformCache
from .validate import check_arrays, check_full_shapes, pick_constrained


def run_from_posterior(
    runtime: TransformCache,
    model: Any,
    posterior: Mapping[str, Any],
    options: RequestOptions,
    *,
    cache: CacheStore | str | None = None,
    use_cache: bool = True,
) -> dict[str, Any]:
    """Validate ``posterior``, find or build the executable in ``runtime``, run it.

    Returns one array per output, in model order (``var_names`` selects, it does not order).
    """
    fp = fingerprint_model(model)
    spec = resolve_constrained_outputs(model, var_names=options.var_names, log_likelihood=options.log_likelihood)
    inputs = constrained_inputs(model)
    chosen = pick_constrained(posterior, inputs.names)
    arrays, sig = check_arrays(chosen, inputs.names, inputs.dtypes, inputs.static_shapes, "posterior")
    request = make_request(model, sig, options, fingerprint=fp, spec=spec)
    store = runtime.store(cache) if use_cache else None
    if any(None in s for s in inputs.static_shapes) and not runtime.knows(request.key.digest, store):
        check_full_shapes(sig, constrained_signature(model, *sig[0][1][:2]), "posterior")
    return runtime.execute(request, arrays, store)
