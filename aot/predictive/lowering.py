"""The per-draw function of a posterior predictive: ``f(*given, rng, *data) -> outputs``.

``aot.graph.build_transform`` jaxifies the forward graph (:func:`predictive_graph`) like every
transform's, then wraps it with :func:`keyed`, which turns the draw's ``__rng__`` row into
one JAX key per random generator of the graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..identity.spec import OutputSpec
from .forward import forward_graph
from .keying import draw_keys


def predictive_graph(model: Any, spec: OutputSpec) -> tuple[list[Any], list[Any]]:
    """Inputs ``[*given, *generators]`` and outputs of ``spec``'s forward graph."""
    return forward_graph(model, spec.names, spec.given, spec.dim_lengths)


def keyed(fn: Callable[..., Any], n_given: int, n_rngs: int) -> Callable[..., tuple[Any, ...]]:
    """``fn(*given, *generator states, *data)`` as ``f(*given, rng, *data)``: each generator gets
    its own key, split from ``fold_in(seed, index)``. A random variable PyTensor cannot draw in
    JAX raises ``NotImplementedError`` (naming it) when ``f`` is traced."""

    def per_draw(*args: Any) -> tuple[Any, ...]:
        given, rng, data = args[:n_given], args[n_given], args[n_given + 1 :]
        states = [{"jax_state": k} for k in draw_keys(rng, n_rngs)]
        return tuple(fn(*given, *states, *data))

    return per_draw
