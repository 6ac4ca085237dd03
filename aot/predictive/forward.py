"""Which variables a posterior predictive draws and which it takes from the posterior.

The walk is PyMC's own (``pymc.sampling.forward.compile_forward_sampling_function``): a variable
is *volatile* -- computed or drawn afresh -- if it is an output, a ``pm.Data`` whose value
changed since inference (or is unknown), a basic random variable the posterior lacks, or if
any of its inputs is volatile. The forward graph's inputs are the non-volatile variables of
the posterior that the outputs reach; everything else is drawn or computed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Constant
from pytensor.graph.replace import clone_replace
from pytensor.graph.traversal import general_toposort, graph_inputs, walk
from pytensor.tensor.random.type import RandomType
from pytensor.tensor.sharedvar import SharedVariable


@dataclass(frozen=True)
class PredictivePlan:
    """``outputs`` (drawn or computed, in the order asked), ``given`` (taken from the posterior,
    in ``free_RVs`` + ``deterministics`` order) and ``drawn``: the basic random variables drawn."""

    outputs: tuple[str, ...]
    given: tuple[str, ...]
    drawn: tuple[str, ...]


def default_outputs(model: Any, observed_data: Collection[str] = ()) -> list[str]:
    """What ``pm.sample_posterior_predictive`` draws without ``var_names``: the observed variables
    (and any variable named in ``observed_data``), then the deterministics that depend on them."""
    from pymc.sampling.forward import observed_dependent_deterministics

    observed = list(model.observed_RVs)
    observed += [model[n] for n in observed_data if n in model and model[n] not in observed]
    found = observed + observed_dependent_deterministics(model, observed)
    return [v.name for v in found]


def _matches(var: Any, constant_data: Mapping[str, Any], constant_coords: Collection[str]) -> bool:
    """PyMC's ``shared_value_matches``: the data is what inference saw."""
    if var.name not in constant_data:
        return var.name in constant_coords
    return bool(np.array_equal(constant_data[var.name], var.get_value(borrow=True)))


def plan_predictive(
    model: Any,
    outputs: Sequence[str],
    in_posterior: Collection[str],
    constant_data: Mapping[str, Any] | None = None,
    constant_coords: Collection[str] | None = None,
) -> PredictivePlan:
    """The plan PyMC would follow for ``outputs`` given a posterior holding ``in_posterior``.

    ``constant_data`` / ``constant_coords``: as PyMC reads them from ``idata.constant_data``
    and the posterior's coordinates; data not named in either counts as changed."""
    constant_data, constant_coords = constant_data or {}, constant_coords or set()
    traceable = [v for v in (*model.free_RVs, *model.deterministics) if v.name in in_posterior]
    in_trace = set(traceable)
    basic = set(model.basic_RVs)
    outs = [model[n] for n in outputs]
    out_set = set(outs)
    volatile: set[Any] = set()
    for node in general_toposort(outs, deps=lambda x: x.owner.inputs if x.owner else []):
        if (
            node in out_set
            or (
                isinstance(node, SharedVariable)
                and not isinstance(node.type, RandomType)
                and not _matches(node, constant_data, constant_coords)
            )
            or (node in basic and node not in in_trace)
            or (node.owner is not None and any(i in volatile for i in node.owner.inputs))
        ):
            volatile.add(node)
    reached: set[Any] = set()

    def expand(node: Any) -> Any:
        if node in in_trace and node not in volatile:
            reached.add(node)
        return node.owner.inputs if node.owner else None

    list(walk(outs, expand))
    given = tuple(v.name for v in traceable if v in reached)
    drawn = tuple(sorted(v.name for v in basic & volatile))
    return PredictivePlan(tuple(outputs), given, drawn)


def dim_lengths(model: Any, outputs: Sequence[str], given: Sequence[str]) -> tuple[tuple[str, int], ...]:
    """``(dim, length)`` of every shared dimension length (a mutable coordinate) the forward graph
    reads. Draws need static sizes in JAX, so these are compiled in as constants and keyed."""
    shared = {id(v): name for name, v in model.dim_lengths.items() if isinstance(v, SharedVariable)}
    if not shared:
        return ()
    stop = [model[n] for n in given]
    found = {
        shared[id(v)]: int(v.get_value())
        for v in graph_inputs([model[n] for n in outputs], blockers=stop)
        if id(v) in shared
    }
    return tuple(sorted(found.items()))


def forward_graph(
    model: Any, outputs: Sequence[str], given: Sequence[str], lengths: Sequence[tuple[str, int]] = ()
) -> tuple[list[Any], list[Any]]:
    """The forward graph's inputs ``[*given, *rngs]`` and outputs, unrewritten; the shared
    dimension lengths named in ``lengths`` are replaced by those constants.

    Each given variable is replaced by a fresh input of its type; each shared random generator
    by a fresh ``RandomType`` input (the caller feeds a JAX key); shared data stay shared (the
    caller makes them arguments). Inputs come in that order: given, then generators."""
    replace = {}
    constants = {model.dim_lengths[d]: pt.constant(n, dtype=model.dim_lengths[d].dtype, name=d) for d, n in lengths}
    for name in given:
        var = model[name]
        fresh = var.type()
        fresh.name = name
        replace[var] = fresh
    outs = clone_replace([model[n] for n in outputs], replace={**replace, **constants})
    rngs = [v for v in graph_inputs(outs) if isinstance(v, SharedVariable) and isinstance(v.type, RandomType)]
    fresh_rngs = {r: r.type() for r in rngs}
    outs = clone_replace(outs, replace=fresh_rngs)
    loose = [
        v
        for v in graph_inputs(outs)
        if v.owner is None
        and not isinstance(v, (Constant, SharedVariable))
        and v not in replace.values()
        and v not in fresh_rngs.values()
    ]
    if loose:
        names = [v.name for v in loose]
        raise ValueError(f"the forward graph of {list(outputs)} needs input(s) {names} that are neither drawn nor data")
    return [*replace.values(), *fresh_rngs.values()], list(outs)
