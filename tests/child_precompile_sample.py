"""Fresh process: precompile a model, or sample it with pymc-aot enabled; prints the compiles.

Usage: python child_precompile_sample.py precompile|sample|thrice MODEL

``precompile``: ``pymc_aot.precompile`` the posterior and the log-likelihood for 2 chains x 20
draws. ``sample``: ``enable()`` then ``pm.sample(nuts_sampler="numpyro")`` of the same shape.
``thrice``: three ``postprocess`` calls of one model with a ``pm.sample`` and a jaxified
log-density in between. Prints ``{"compiles": N, "disk_hits": N, "counts": [...], "warnings": [...]}``
(``warnings``: pymc-aot's own, e.g. a fallback to PyMC's path, so a failure says why).
"""

from __future__ import annotations

import json
import sys
import warnings

import pymc as pm
from child_drift import shared_ops
from zoo import ZOO, draws_for

import pymc_aot
from pymc_aot import aot, runtime

compiles: list[int] = []
real_compile = aot.build.compiler.compile_transform


def counting_compile(*args, **kwargs):
    compiles.append(1)
    return real_compile(*args, **kwargs)


aot.build.compiler.compile_transform = counting_compile  # every compile, auto's candidates included
MODELS = {"shared_ops": shared_ops, "time_series": ZOO["time_series"]}
SAMPLE = {"draws": 20, "tune": 20, "chains": 2, "nuts_sampler": "numpyro", "random_seed": 3, "progressbar": False,
          "compute_convergence_checks": False}


def main() -> None:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = run(sys.argv[1], sys.argv[2])
    out["warnings"] = [str(w.message)[:300] for w in seen if str(w.message).startswith("pymc-aot")]
    print(json.dumps(out))


def run(mode: str, name: str) -> dict:
    model = MODELS[name]()
    counts = []
    if mode == "precompile":
        pymc_aot.precompile(model, chains=2, draws=20)
        pymc_aot.precompile(model, chains=2, draws=20, log_likelihood=True)
    elif mode == "sample":
        pymc_aot.enable()
        with model:
            pm.sample(**SAMPLE, idata_kwargs={"log_likelihood": True})
    else:
        from pymc.sampling.jax import get_jaxified_logp

        draws = draws_for(model)
        for between in (lambda: None, lambda: pm.sample(**SAMPLE, model=model), lambda: get_jaxified_logp(model)):
            between()
            pymc_aot.postprocess(model, draws)
            counts.append(len(compiles))
    return {"compiles": len(compiles), "disk_hits": runtime.COUNTERS.disk_hits, "counts": counts}


if __name__ == "__main__":
    main()
