"""The per-draw JAX function of a posterior predictive: ``f(*given, rng, *data) -> outputs``."""

from __future__ import annotations

from typing import Any

from ..fingerprint import ModelFingerprint
from ..graph import TransformGraph, jaxify
from ..spec import OutputSpec
from .forward import forward_graph
from .keying import draw_keys


def build_predictive(model: Any, spec: OutputSpec, fingerprint: ModelFingerprint) -> TransformGraph:
    """Rewrite and jaxify the forward graph of ``spec`` (outputs ``spec.names``, inputs ``spec.given``).

    Random generators become JAX keys derived from the draw's ``__rng__`` row; ``pm.Data``
    stay arguments, as in every transform. A random variable PyTensor cannot draw in JAX
    raises ``NotImplementedError`` (naming it) when the function is traced."""
    inputs, outputs = forward_graph(model, spec.names, spec.given)
    n_given = len(spec.given)
    n_rngs = len(inputs) - n_given
    graph = jaxify(inputs, outputs, fingerprint, spec.names)
    fn = graph.fn

    def per_draw(*args: Any) -> tuple[Any, ...]:
        given, rng, data = args[:n_given], args[n_given], args[n_given + 1 :]
        states = [{"jax_state": k} for k in draw_keys(rng, n_rngs)]
        return tuple(fn(*given, *states, *data))

    return TransformGraph(fn=per_draw, data_indices=graph.data_indices, output_names=spec.names)
