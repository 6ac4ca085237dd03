"""Build the per-draw JAX function of a transform from a PyMC model (the expensive part)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pymc.sampling.jax  # noqa: F401 - registers PyMC's JAX dispatches (Assert, PosDefMatrix)
import pytensor.tensor as pt
from pytensor.compile import SharedVariable, mode
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.replace import clone_replace
from pytensor.graph.traversal import graph_inputs
from pytensor.link.jax.dispatch import jax_funcify
from pytensor.tensor.random.type import RandomType

from ..identity.fingerprint import ModelFingerprint, is_static_data
from ..identity.shared_data import as_argument
from ..identity.spec import CONSTRAINED_KINDS, OutputSpec


@dataclass(frozen=True)
class TransformGraph:
    """A jaxified per-draw function ``fn(*values, *data) -> tuple of outputs``.

    ``data_indices`` index ``ModelFingerprint.data``: the data arguments the function takes.
    """

    fn: Callable[..., Any]
    data_indices: tuple[int, ...]
    output_names: tuple[str, ...]


def _own_inner_graphs(fgraph: FunctionGraph) -> None:
    """Give every op with an inner graph (Scan) a private copy of it.

    PyTensor's JAX dispatch rewrites a Scan's inner graph in place; without this, jaxifying
    would mutate the user's model and change its fingerprint.
    """
    for node in fgraph.apply_nodes:
        inner = getattr(node.op, "fgraph", None)
        if isinstance(inner, FunctionGraph):
            op = copy.copy(node.op)
            op.fgraph = inner.clone()
            _own_inner_graphs(op.fgraph)
            node.op = op


def output_variables(model: Any, spec: OutputSpec) -> list[Any]:
    """The PyTensor outputs of ``spec``, as PyMC builds them."""
    if spec.kind == "log_likelihood":
        return list(model.logp(model.observed_RVs, sum=False))
    by_name = {v.name: v for v in model.unobserved_value_vars}
    return [by_name[name] for name in spec.names]


def build_transform(model: Any, spec: OutputSpec, fingerprint: ModelFingerprint) -> TransformGraph:
    """Rewrite and jaxify ``spec``'s outputs with value variables and data as inputs.

    Kinds that take constrained values take them instead of value variables (:mod:`.constrained`);
    the posterior predictive takes the posterior draws it needs and a key per draw (:mod:`.predictive`)."""
    if spec.kind == "predictive":
        from ..predictive.lowering import keyed, predictive_graph

        inputs, outputs = predictive_graph(model, spec)
        graph = jaxify(inputs, outputs, fingerprint, spec.names)
        fn = keyed(graph.fn, len(spec.given), len(inputs) - len(spec.given))
        return TransformGraph(fn=fn, data_indices=graph.data_indices, output_names=spec.names)
    if spec.kind in CONSTRAINED_KINDS:
        from .constrained import constrained_graph

        inputs, outputs = constrained_graph(model, spec)
        return jaxify(inputs, outputs, fingerprint, spec.names)
    outputs = output_variables(model, spec)
    return jaxify(list(model.value_vars), outputs, fingerprint, spec.names)


def jaxify(
    value_vars: list[Any],
    outputs: list[Any],
    fingerprint: ModelFingerprint,
    names: tuple[str, ...],
) -> TransformGraph:
    """Like ``pymc.sampling.jax.get_jaxified_graph`` but data stay runtime arguments."""
    shared = [v for v in graph_inputs(outputs) if isinstance(v, SharedVariable)]
    if any(isinstance(v.type, RandomType) for v in shared):
        raise ValueError("the outputs depend on a random generator; they cannot be postprocessed")
    positions = {id(v): i for i, v in enumerate(fingerprint.data)}
    static = {v: pt.constant(v.get_value(), dtype=v.type.dtype) for v in shared if is_static_data(v)}
    shared = [v for v in shared if v not in static]
    missing = [v for v in shared if id(v) not in positions]
    if missing:
        raise ValueError(
            f"shared variable(s) {[v.name for v in missing]} feed the outputs but are not part "
            "of the model's graph; pymc-aot cannot key them"
        )
    data_indices = tuple(sorted(positions[id(v)] for v in shared))
    data_vars = [fingerprint.data[i] for i in data_indices]
    outputs = clone_replace(outputs, replace=static) if static else outputs
    arguments = [as_argument(v) for v in data_vars]
    stand_ins = {v: stand_in for v, (_, stand_in) in zip(data_vars, arguments, strict=True)}
    outputs = clone_replace(outputs, replace=stand_ins)
    fgraph = FunctionGraph(
        inputs=[*value_vars, *(argument for argument, _ in arguments)],
        outputs=outputs,
        clone=True,
    )
    mode.JAX.optimizer.rewrite(fgraph)
    _own_inner_graphs(fgraph)
    return TransformGraph(fn=jax_funcify(fgraph), data_indices=data_indices, output_names=tuple(names))
