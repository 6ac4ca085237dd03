"""Run in a fresh process: the warm start's imports, keys and arrays.

Usage: python child_warm.py MODE OUT.npz MODEL [MODEL ...]
MODE build: postprocess (posterior and log-likelihood) on the cache, which compiles.
MODE hit:   the same on a filled cache; saves the arrays, then PyMC's own for the same draws.
MODE key:   each request's digest before and after importing pymc.sampling.jax.
Prints one JSON line: heavy modules imported before PyMC's reference ran, counters, digests.
"""

from __future__ import annotations

import json
import sys

import jax  # noqa: F401 - a user's script has imported jax and pymc
import numpy as np
import pymc
from zoo import ZOO, draws_for

from pymc_aot import runtime

HEAVY = ("pymc.sampling.jax", "pytensor.link.jax.dispatch", "numpyro", "pymc_aot.aot.build.graph", "pymc_aot.aot.build.compiler")
mode, out_path, names = sys.argv[1], sys.argv[2], sys.argv[3:]
models = {name: ZOO[name]() for name in names}
draws = {name: draws_for(m, seed=3) for name, m in models.items()}
kinds = {"posterior": False, "log_likelihood": True}


def digests() -> dict[str, str]:
    from pymc_aot.aot.build.request import make_request, value_signature
    from pymc_aot.aot.identity.fingerprint import fingerprint_model

    found = {}
    for name, model in models.items():
        fp = fingerprint_model(model)
        chains, n_draws = draws[name][0].shape[:2]
        sig = value_signature(model, fp, chains, n_draws)
        for kind, ll in kinds.items():
            request = make_request(model, sig, strategy="vmap", log_likelihood=ll, fingerprint=fp)
            found[f"{name}/{kind}"] = request.key.digest
    return found


report: dict[str, object] = {}
if mode == "key":
    report["before"] = digests()
    report["modules"] = [m for m in HEAVY if m in sys.modules]
    import pymc.sampling.jax  # noqa: F401 - sets jax_enable_x64 from floatX at import

    report["after"] = digests()
else:
    arrays: dict[str, np.ndarray] = {}
    for name, model in models.items():
        for kind, ll in kinds.items():
            got = runtime.postprocess(model, [d.copy() for d in draws[name]], strategy="vmap", log_likelihood=ll)
            arrays.update({f"{name}/{kind}/{k}": np.asarray(v) for k, v in got.items()})
            report[f"{name}/{kind}"] = runtime.COUNTERS.events[-1][1]
    report["modules"] = [m for m in HEAVY if m in sys.modules]
    report["counters"] = {"compiles": runtime.COUNTERS.compiles, "disk_hits": runtime.COUNTERS.disk_hits}
    report["store_hits"] = {r.digest: r.hits for r in runtime.get_store(None).entries()}
    if mode == "hit":
        from reference import pymc_log_likelihood, pymc_posterior

        for name, model in models.items():
            ref = {"posterior": pymc_posterior(model, draws[name]), "log_likelihood": pymc_log_likelihood(model, draws[name])}
            arrays.update({f"pymc/{name}/{kind}/{k}": v for kind, r in ref.items() for k, v in r.items()})
    np.savez(out_path, **arrays)
print(json.dumps(report))
