"""Transforms of the constrained posterior: what ``pm.compute_deterministics`` and
``pm.compute_log_likelihood`` compute, as per-draw JAX functions.

Their inputs are the free random variables' constrained values -- what ``idata.posterior``
holds -- named by the variables, in ``model.free_RVs`` order; ``pm.Data`` stay arguments.

* deterministics: ``model.deterministics`` with every free variable replaced by its input,
  as PyMC's ``compile_fn(inputs=model.free_RVs, outs=deterministics)``;
* log-likelihood: the observed variables' elementwise logp given the free variables' values
  with no value transforms, as ``remove_value_transforms(model).logp(observed, sum=False)``
  (built on the model itself: the clone would copy ``pm.Data``, which are keyed by identity).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pymc.logprob.basic import transformed_conditional_logp
from pytensor.graph.replace import clone_replace

from ..identity.key import Signature
from ..identity.spec import OutputSpec


@dataclass(frozen=True)
class ConstrainedInputs:
    """Names, dtypes and static per-draw shapes (None where unknown) of a model's free variables."""

    names: tuple[str, ...]
    dtypes: tuple[str, ...]
    static_shapes: tuple[tuple[int | None, ...], ...]


def constrained_inputs(model: Any) -> ConstrainedInputs:
    """What a constrained transform takes, read off ``model.free_RVs`` (no graph is built)."""
    rvs = list(model.free_RVs)
    return ConstrainedInputs(
        names=tuple(rv.name for rv in rvs),
        dtypes=tuple(str(rv.dtype) for rv in rvs),
        static_shapes=tuple(tuple(rv.type.shape) for rv in rvs),
    )


def constrained_signature(model: Any, chains: int, draws: int) -> Signature:
    """Shapes and dtypes of ``(chains, draws, *shape)`` constrained inputs, from the model alone.

    Unknown static shapes are evaluated (a small PyTensor function): compile path only.
    """
    if chains < 1 or draws < 0:
        raise ValueError(f"need chains >= 1 and draws >= 0, got chains={chains}, draws={draws}")
    spec = constrained_inputs(model)
    shapes: list[tuple[int, ...]]
    if all(None not in s for s in spec.static_shapes):
        shapes = [tuple(int(d) for d in s) for s in spec.static_shapes]
    else:
        evaluated = model.eval_rv_shapes()
        shapes = [tuple(int(d) for d in evaluated[n]) for n in spec.names]
    return tuple(
        (name, (int(chains), int(draws), *shape), dtype)
        for name, shape, dtype in zip(spec.names, shapes, spec.dtypes, strict=True)
    )


def _fresh_inputs(model: Any) -> dict[Any, Any]:
    """One new variable per free random variable, of its type and under its name."""
    fresh = {}
    for rv in model.free_RVs:
        var = rv.type()
        var.name = rv.name
        fresh[rv] = var
    return fresh


def constrained_outputs(model: Any, spec: OutputSpec, inputs: dict[Any, Any]) -> list[Any]:
    """``spec``'s outputs as functions of ``inputs`` (free random variable -> its input)."""
    if spec.kind == "deterministics":
        by_name = {d.name: d for d in model.deterministics}
        return list(clone_replace([by_name[n] for n in spec.names], replace=inputs))
    if spec.kind == "constrained_log_likelihood":
        by_name = {rv.name: rv for rv in model.observed_RVs}
        values = {**inputs, **{rv: model.rvs_to_values[rv] for rv in model.observed_RVs}}
        return list(
            transformed_conditional_logp(
                [by_name[n] for n in spec.names], rvs_to_values=values, rvs_to_transforms={}, jacobian=True
            )
        )
    raise ValueError(f"{spec.kind!r} is not a transform of constrained values")


def constrained_graph(model: Any, spec: OutputSpec) -> tuple[list[Any], list[Any]]:
    """The inputs (one per free random variable, in ``model.free_RVs`` order) and ``spec``'s
    outputs as functions of them; ``graph.build_transform`` jaxifies them."""
    inputs = _fresh_inputs(model)
    return list(inputs.values()), constrained_outputs(model, spec, inputs)
