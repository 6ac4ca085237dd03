"""One fresh-process ``pm.sample`` for first_run.py.

Usage: _first_run_child.py MODE MODEL SCALE CHAINS DRAWS TUNE CACHE SAMPLER    (MODE: stock | cold | warm;
SAMPLER: on = ``enable()``, the default, the compiled sampler included; off = ``enable(sampler=False)``)

The process imports pymc and builds its model first; the clock times ``pm.sample`` alone.
``post`` is the postprocessing part: stock: the ``get_jaxified_graph`` call for the posterior and
``_postprocess_samples``; pymc-aot: the calling thread's time in its preflight (auto's choice and
compiles, before sampling: the call waits for it until its last transform is lowered, then for
its verdict before the first draw) plus the cached run behind its ``_postprocess_samples`` seam
(timed on pymc-aot's own functions: a function of ``pymc.sampling.jax`` replaced by this script
would give the model a lowered key). ``preflight``: the calling thread's part of ``post``;
``preflight_thread``: the preflight's own wall time, on its thread (beside PyMC's work after
the lowering).
``compiles``: executables pymc-aot compiled for the call (its preflight's; cold: counted on
``compiler.compile_transform``; warm: -1 if the compiler module was imported at all, else 0),
``later``: those compiled by auto's background candidates (waited for before the process reports, as the
interpreter waits at exit: ``exit`` is that wait in seconds); ``sampler``: the compiled sampler's
programs compiled before ``pm.sample`` returned, ``sampler_later``: after (0 today: a cold run
compiles its sampler before sampling).
Prints one JSON line: {"total": s, "post": s, "preflight": s, "preflight_thread": s, "compiles": n,
"later": n, "exit": s, "sampler": n, "sampler_later": n, "checksum": x}.
"""

from __future__ import annotations

import functools
import json
import sys
import time

mode, model_name, scale, chains, draws, tune, cache, sampler = sys.argv[1:9]

import numpy as np  # noqa: E402
import pymc as pm  # noqa: E402
import pymc.sampling.jax as pymc_jax  # noqa: E402

from bench.first_run_models import REAL_WORLD  # noqa: E402
from bench.models import MODELS  # noqa: E402

model = {**MODELS, **REAL_WORLD}[model_name](float(scale))
spent = {"post": 0.0, "preflight": 0.0, "preflight_thread": 0.0}


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
    from pymc_aot.runtime.pymc import preflight

    pymc_aot.enable(cache_dir=cache, sampler=sampler == "on")
    preflight.preflight = timed(preflight.preflight, "preflight_thread")  # looked up when called
    preflight.begin = timed(preflight.begin, "preflight")  # the call waits: until the last lowering
    preflight.Preflight.settle = timed(preflight.Preflight.settle, "preflight")  # for the verdict
    preflight.Preflight.join = timed(preflight.Preflight.join, "preflight")  # for the thread's end
if mode == "cold":
    import threading

    from pymc_aot.aot.build import compiler

    original = compiler.compile_transform

    def counted(*args, **kwargs):
        result = original(*args, **kwargs)
        background = threading.current_thread().name.startswith("pymc-aot-later")  # auto's later candidates
        compiled["after" if background else "during"] += 1
        return result

    compiler.compile_transform = counted
if mode == "stock":
    pymc_jax._postprocess_samples = timed(pymc_jax._postprocess_samples, "post")
    graph_for = pymc_jax.get_jaxified_graph

    def jaxified(inputs=None, outputs=None):
        """The posterior's graph (after sampling) counts as postprocessing; the sampler's logp does not."""
        if not any(getattr(o, "name", None) in model.named_vars for o in outputs or ()):
            return graph_for(inputs=inputs, outputs=outputs)
        return timed(graph_for, "post")(inputs=inputs, outputs=outputs)

    pymc_jax.get_jaxified_graph = jaxified
else:  # pymc-aot's own functions: a function of PyMC's replaced by this script would change the model's key
    from pymc_aot.runtime.pymc import pymc_jax_seams

    pymc_jax_seams._run_cached = timed(pymc_jax_seams._run_cached, "post")  # the postprocessing seam's work

t0 = time.perf_counter()
with model:
    idata = pm.sample(
        draws=int(draws), tune=int(tune), chains=int(chains), nuts_sampler="numpyro", random_seed=1,
        progressbar=False, compute_convergence_checks=False,
    )
total = time.perf_counter() - t0
sampler_counts = {"during": 0, "after": 0, "exit": 0.0}
if mode != "stock":
    from pymc_aot.runtime.sampler.counts import COUNTS

    sampler_counts["during"] = COUNTS["compiled"]
if mode == "warm":
    compiled["during"] = -1 if "pymc_aot.aot.build.compiler" in sys.modules else 0
if mode == "cold":
    t1 = time.perf_counter()
    for thread in threading.enumerate():  # what the interpreter would wait for at exit
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    sampler_counts["exit"] = time.perf_counter() - t1
    sampler_counts["after"] = COUNTS["compiled"] - sampler_counts["during"]
checksum = float(sum(np.nansum(np.asarray(v, dtype=float)) for v in idata.posterior.data_vars.values()))
print(json.dumps({
    "total": total, "post": spent["post"] + spent["preflight"], "preflight": spent["preflight"],
    "preflight_thread": spent["preflight_thread"],
    "compiles": compiled["during"], "later": compiled["after"], "exit": sampler_counts["exit"],
    "sampler": sampler_counts["during"], "sampler_later": sampler_counts["after"], "checksum": checksum,
}))
