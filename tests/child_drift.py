"""Fresh process: every zoo and bench model's key, before and after other work in the process.

Usage: python child_drift.py ORDER   (ORDER: comma-separated stages, e.g. fresh,rewrite,compile,sample)

Stages: ``fresh`` (nothing ran yet), ``rewrite`` (an unrelated graph using PyTensor's shared op
instances rewritten and compiled), ``compile`` (pymc-aot compiled another model's transform),
``sample`` (``pm.sample(nuts_sampler="numpyro")`` of another model), ``logp`` (each model's own
log-density jaxified, as ``pm.sample`` does: PyTensor's JAX Scan rewrites its inner graph in place). After each stage every
model's fingerprint is taken again, of the model built at the start and of a model built anew.
Prints one JSON line: ``{model: {stage: [hash of the first build, hash of a new build]}}``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
from zoo import ZOO, draws_for

from bench.models import MODELS
from pymc_aot import runtime
from pymc_aot.aot.identity.fingerprint import fingerprint_model


def shared_ops() -> pm.Model:
    """Shared module-level op instances (``pt.exp``, ``pt.sin``) straight in the model's graph."""
    with pm.Model() as m:
        x = pm.Normal("x", 0, 1)
        pm.Deterministic("d", pt.sin(x) + pt.exp(x) + pt.log1p(pt.exp(x)) + pt.softplus(x))
        pm.Normal("y", pt.sigmoid(x), 1.0, observed=np.linspace(-1, 1, 5))
    return m


BUILDERS = {f"zoo/{k}": f for k, f in ZOO.items()} | {f"bench/{k}": (lambda f=f: f(0.05)) for k, f in MODELS.items()}
BUILDERS["shared_ops"] = shared_ops


def rewrite() -> None:
    x = pt.dvector("x")
    outs = [pt.exp(x), pt.sin(x), pt.log1p(pt.exp(x)), pt.softplus(x), pt.sigmoid(x), pt.cos(x) * pt.log(x)]
    pytensor.function([x], outs, mode="FAST_RUN")
    pytensor.function([x], outs, mode="JAX")


def compile_other() -> None:
    other = ZOO["scalars"]()
    runtime.postprocess(other, draws_for(other), strategy="vmap")
    runtime.log_likelihood(other, draws_for(other), strategy="vmap")


def sample_other() -> None:
    with shared_ops():
        pm.sample(draws=5, tune=5, chains=1, nuts_sampler="numpyro", progressbar=False, random_seed=1,
                  compute_convergence_checks=False)


def jaxify_own(models: dict) -> None:
    """What ``pm.sample(nuts_sampler="numpyro")`` does to each model's own graph before sampling."""
    from pymc.sampling.jax import get_jaxified_logp

    for model in models.values():
        get_jaxified_logp(model)


STAGES = {"fresh": lambda: None, "rewrite": rewrite, "compile": compile_other, "sample": sample_other}


def main() -> None:
    models = {name: build() for name, build in BUILDERS.items()}
    out: dict[str, dict[str, list[str]]] = {name: {} for name in models}
    for stage in sys.argv[1].split(","):
        STAGES[stage]() if stage != "logp" else jaxify_own(models)
        for name, model in models.items():
            out[name][stage] = [fingerprint_model(model).model_hash, fingerprint_model(BUILDERS[name]()).model_hash]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
