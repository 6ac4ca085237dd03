"""Models stock PyMC postprocesses that pymc-aot must not crash on: a user Op lowered through
``jax.pure_callback`` (its executable cannot be serialized: run uncached, one warning)."""

from __future__ import annotations

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


def test_a_pure_callback_op_runs_uncached_with_one_warning(cache_dir):
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 1.0, shape=3)
        pm.Deterministic("sq", HostSquare()(x))
    draws = draws_for(model)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = runtime.postprocess(model, draws, strategy="vmap")
        runtime.clear_memo()
        second = runtime.postprocess(model, draws, strategy="vmap")
    ours = [w for w in caught if "cannot be stored" in str(w.message)]
    assert len(ours) == 1, [str(w.message) for w in caught]
    assert_same(first, pymc_posterior(model, draws))
    assert_same(second, pymc_posterior(model, draws))


def test_an_integer_scalar_data_used_as_a_slice_bound_is_a_constant_keyed_by_value(cache_dir):
    with pm.Model() as model:
        n = pm.Data("n", np.array(2, dtype="int64"))
        x = pm.Normal("x", 0.0, 1.0, shape=4)
        pm.Deterministic("head", x[:n])
        pm.Deterministic("ones", pt.ones((n,)) * x[0])
    draws = draws_for(model)
    assert_same(runtime.postprocess(model, draws, strategy="vmap"), pymc_posterior(model, draws))
    pm.set_data({"n": np.array(3, dtype="int64")}, model=model)
    assert_same(runtime.postprocess(model, draws, strategy="vmap"), pymc_posterior(model, draws))
