"""One fresh-process ``pm.sample`` for first_run.py.

Usage: _first_run_child.py MODE MODEL SCALE CHAINS DRAWS TUNE CACHE    (MODE: stock | cold | warm)

The process imports pymc and builds its model first; the clock times ``pm.sample`` alone.
``post`` is the postprocessing part: pymc-aot's preflight (auto's choice and compiles, before
sampling) plus the ``get_jaxified_graph`` call for the posterior and the ``_postprocess_samples``
seam (whichever are installed, PyMC's or ours).
``compiles``: executables pymc-aot compiled in the sampling thread (cold: counted on
``compiler.compile_transform``; warm: -1 if the compiler module was imported at all, else 0),
``later``: those compiled in the background (waited for before the process reports).
Prints one JSON line: {"total": s, "post": s, "preflight": s, "compiles": n, "later": n, "checksum": x}.
"""

from __future__ import annotations

import functools
import json
import sys
import time

mode, model_name, scale, chains, draws, tune, cache = sys.argv[1:8]

import numpy as np  # noqa: E402
import pymc as pm  # noqa: E402
import pymc.sampling.jax as pymc_jax  # noqa: E402

from bench.first_run_models import REAL_WORLD  # noqa: E402
from bench.models import MODELS  # noqa: E402

model = {**MODELS, **REAL_WORLD}[model_name](float(scale))
spent = {"post": 0.0, "preflight": 0.0}


def timed(fn, what):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[what] += time.perf_counter() - t0

    return wrapper


compiled = {"during": 0, "after": 0}
if mode != "stock":
    import pymc_aot
    from pymc_aot.runtime.pymc import pymc_jax_seams

    pymc_aot.enable(cache_dir=cache, sampler=False)  # postprocessing's first run; PyMC samples
    pymc_jax_seams._preflight = timed(pymc_jax_seams._preflight, "preflight")
if mode == "cold":
    import threading

    from pymc_aot.aot.build import compiler

    original = compiler.compile_transform

    def counted(*args, **kwargs):
        result = original(*args, **kwargs)
        compiled["during" if threading.current_thread() is threading.main_thread() else "after"] += 1
        return result

    compiler.compile_transform = counted
pymc_jax._postprocess_samples = timed(pymc_jax._postprocess_samples, "post")
graph_for = pymc_jax.get_jaxified_graph


def jaxified(inputs=None, outputs=None):
    """The posterior's graph (after sampling) counts as postprocessing; the sampler's logp does not."""
    if not any(getattr(o, "name", None) in model.named_vars for o in outputs or ()):
        return graph_for(inputs=inputs, outputs=outputs)
    return timed(graph_for, "post")(inputs=inputs, outputs=outputs)


pymc_jax.get_jaxified_graph = jaxified

t0 = time.perf_counter()
with model:
    idata = pm.sample(
        draws=int(draws), tune=int(tune), chains=int(chains), nuts_sampler="numpyro", random_seed=1,
        progressbar=False, compute_convergence_checks=False,
    )
total = time.perf_counter() - t0
if mode == "warm":
    compiled["during"] = -1 if "pymc_aot.aot.build.compiler" in sys.modules else 0
if mode == "cold":
    for thread in threading.enumerate():  # what the interpreter would wait for at exit
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
checksum = float(sum(np.nansum(np.asarray(v, dtype=float)) for v in idata.posterior.data_vars.values()))
print(json.dumps({
    "total": total, "post": spent["post"] + spent["preflight"], "preflight": spent["preflight"],
    "compiles": compiled["during"], "later": compiled["after"], "checksum": checksum,
}))
