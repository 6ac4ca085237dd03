"""What PyMC itself returns for the same samples: the measure of correctness."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pymc as pm
from pymc.sampling.jax import _get_log_likelihood, _postprocess_samples, get_jaxified_graph
from pymc.util import get_default_varnames


def pymc_posterior(
    model: pm.Model, samples: list[np.ndarray], var_names=None, keep_untransformed=False, vectorize="vmap"
) -> dict[str, np.ndarray]:
    """Mirror of ``sample_jax_nuts``'s postprocessing."""
    if var_names is not None:
        filtered = [v for v in model.unobserved_value_vars if v.name in var_names]
    else:
        filtered = model.unobserved_value_vars
    outputs = list(get_default_varnames(filtered, include_transformed=keep_untransformed))
    fn = get_jaxified_graph(inputs=model.value_vars, outputs=outputs)
    result = _postprocess_samples(fn, [jnp.asarray(s) for s in samples], postprocessing_vectorize=vectorize)
    return {v.name: np.asarray(r) for v, r in zip(outputs, result, strict=True)}


def pymc_log_likelihood(model: pm.Model, samples: list[np.ndarray]) -> dict[str, np.ndarray]:
    result = _get_log_likelihood(model, [jnp.asarray(s) for s in samples], postprocessing_vectorize="vmap")
    return {k: np.asarray(v) for k, v in result.items()}


def assert_same(ours: dict, theirs: dict) -> None:
    assert list(ours) == list(theirs)
    for name, expected in theirs.items():
        got = np.asarray(ours[name])
        assert got.shape == expected.shape, (name, got.shape, expected.shape)
        assert got.dtype == expected.dtype, (name, got.dtype, expected.dtype)
        tol = 1e-5 if expected.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, err_msg=name)
