"""The predictive draws as ``pm.sample_posterior_predictive`` returns them (its last step)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

SAMPLE_DIMS = ["chain", "draw"]


def to_pymc_result(results: Mapping[str, Any], model: Any, trace: Any, arguments: Mapping[str, Any]) -> Any:
    """A dict (``return_inferencedata=False``), or the InferenceData PyMC builds: group
    ``posterior_predictive`` (or ``predictions``), the posterior's chain/draw coordinates,
    ``idata_kwargs``, added to ``trace`` with ``extend_inferencedata``."""
    import pymc as pm

    ppc = {name: np.asarray(value) for name, value in results.items()}
    if not arguments["return_inferencedata"]:
        return ppc
    idata = trace if hasattr(trace, "groups") else None
    posterior = trace["posterior"] if idata is not None else trace
    posterior = posterior.to_dataset() if hasattr(posterior, "to_dataset") else posterior
    kwargs = dict(arguments["idata_kwargs"] or {})
    coords = kwargs.get("coords", {})
    kwargs["coords"] = {**{d: posterior[d].values for d in SAMPLE_DIMS}, **coords}
    kwargs.setdefault("sample_dims", SAMPLE_DIMS)
    kwargs["model"] = model
    if arguments["predictions"]:
        if arguments["extend_inferencedata"]:
            kwargs.setdefault("idata_orig", idata)
            kwargs.setdefault("inplace", True)
        return pm.predictions_to_inference_data(ppc, **kwargs)
    result = pm.to_inference_data(posterior_predictive=ppc, **kwargs)
    if arguments["extend_inferencedata"] and idata is not None:
        from ...aot.compat import extend_inference

        extend_inference(idata, result)
        return idata
    return result
