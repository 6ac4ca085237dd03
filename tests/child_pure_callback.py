"""Run in a fresh process (its ``jax_funcify`` registration is in every later key of the process
that makes it, so it must not live in a test worker): a user Op lowered through
``jax.pure_callback`` postprocessed twice, the memo cleared between.

Usage: python child_pure_callback.py CACHE_DIR
Prints one JSON line: the pymc-aot warnings seen and whether both results equal PyMC's.
"""

from __future__ import annotations

import json
import os
import sys
import warnings

import jax
import numpy as np
import pymc as pm
import pytensor.tensor as pt
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.link.jax.dispatch import jax_funcify
from reference import assert_same, pymc_posterior
from zoo import draws_for

from pymc_aot import runtime


class HostSquare(Op):
    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = np.asarray(inputs[0] ** 2)


@jax_funcify.register(HostSquare)
def _host_square(op, **kwargs):
    def square(x):
        spec = jax.ShapeDtypeStruct(x.shape, x.dtype)
        return jax.pure_callback(lambda a: np.asarray(a) ** 2, spec, x, vmap_method="sequential")

    return square


def main() -> None:
    os.environ["PYMC_AOT_CACHE_DIR"] = sys.argv[1]
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 1.0, shape=3)
        pm.Deterministic("sq", HostSquare()(x))
    draws = draws_for(model)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = runtime.postprocess(model, draws, strategy="vmap")
        runtime.clear_memo()
        second = runtime.postprocess(model, draws, strategy="vmap")
    assert_same(first, pymc_posterior(model, draws))
    assert_same(second, pymc_posterior(model, draws))
    print(json.dumps({"warnings": [str(w.message) for w in caught if "pymc-aot" in str(w.message)]}))


if __name__ == "__main__":
    main()
