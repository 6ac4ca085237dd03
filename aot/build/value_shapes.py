"""Shapes of a model's value variables without compiling anything.

A value variable whose type has no static shape (``dims=`` over mutable coords, ``AR`` with
``shape=T``, LKJ's packed Cholesky factor, ...) gets its shape from PyTensor's shape inference:
the shape graph of its random variable (through the transform, as PyMC builds the value
variable), with the model's data and dim lengths as constants, constant-folded. That walks a
small graph in Python; ``model.initial_point()`` compiled a PyTensor function for it (seconds on
LKJ). Where folding does not reach a constant, the initial point still answers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytensor.tensor as pt
from pytensor.graph.replace import clone_replace
from pytensor.graph.rewriting.utils import rewrite_graph
from pytensor.graph.traversal import graph_inputs

from ..identity.shared_data import as_constant, is_data


def _shape_graph(model: Any, rv: Any) -> Any:
    """The symbolic shape of ``rv``'s value variable (``transform.forward`` of it, as PyMC's
    ``Model.create_value_var`` types it)."""
    transform = model.rvs_to_transforms.get(rv)
    value = rv if transform is None else transform.forward(rv, *rv.owner.inputs)
    return pt.as_tensor_variable(value.shape)


def _folded(model: Any, rvs: list[Any]) -> list[tuple[int, ...]] | None:
    """The value shapes of ``rvs`` constant-folded with every data shared variable as its
    current value; None if any does not fold to a constant."""
    from pymc.pytensorf import constant_fold

    try:
        shapes = [_shape_graph(model, rv) for rv in rvs]
        shared = {v for v in graph_inputs(shapes) if is_data(v)}
        constants = {v: as_constant(v) for v in shared}
        graphs = clone_replace(shapes, replace=constants) if constants else shapes
        graphs = rewrite_graph(graphs, include=("lower_xtensor",))  # pymc.dims: named dims to tensors
        folded = constant_fold(graphs, raise_not_constant=False)
    except Exception:  # noqa: BLE001 - a graph shape inference cannot handle: the initial point answers
        return None
    if not all(isinstance(f, np.ndarray) for f in folded):
        return None
    return [tuple(int(s) for s in f) for f in folded]


def value_shapes(model: Any) -> list[tuple[int, ...]]:
    """Shape of every free variable's value variable, in ``model.free_RVs`` order."""
    values = [model.rvs_to_values[rv] for rv in model.free_RVs]
    shapes: list[tuple[int, ...] | None] = [
        tuple(int(s) for s in v.type.shape) if None not in v.type.shape else None for v in values
    ]
    missing = [i for i, s in enumerate(shapes) if s is None]
    if not missing:
        return shapes  # type: ignore[return-value]
    folded = _folded(model, [model.free_RVs[i] for i in missing])
    if folded is None:
        point = model.initial_point()
        return [tuple(np.shape(point[v.name])) for v in values]
    for i, shape in zip(missing, folded, strict=True):
        shapes[i] = shape
    return shapes  # type: ignore[return-value]
