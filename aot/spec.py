"""What a transform computes: the posterior variables or the pointwise log-likelihood."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pymc.util import is_transformed_name

TransformKind = Literal["posterior", "log_likelihood"]


@dataclass(frozen=True)
class OutputSpec:
    """The outputs of one transform, by name, in the order PyMC returns them."""

    kind: TransformKind
    names: tuple[str, ...]


def posterior_names(model: Any) -> list[str]:
    """Names of ``model.unobserved_value_vars`` in order, without building that graph."""
    names = [model.rvs_to_values[rv].name for rv in model.free_RVs]
    names += [rv.name for rv in model.free_RVs if model.rvs_to_transforms.get(rv) is not None]
    names += [det.name for det in model.deterministics]
    return names


def resolve_outputs(
    model: Any,
    *,
    var_names: Sequence[str] | None = None,
    keep_untransformed: bool = False,
    log_likelihood: bool = False,
) -> OutputSpec:
    """The output spec PyMC's JAX samplers would use for these options.

    Mirrors ``sample_jax_nuts``: ``var_names`` filters ``unobserved_value_vars``, then
    transformed (``*__``) names are dropped unless ``keep_untransformed``.
    """
    if log_likelihood:
        return OutputSpec("log_likelihood", tuple(rv.name for rv in model.observed_RVs))
    available = posterior_names(model)
    if var_names is not None:
        if isinstance(var_names, str):
            var_names = [var_names]
        unknown = [n for n in var_names if n not in available]
        if unknown:
            raise ValueError(
                f"var_names: unknown variable(s) {unknown}; the model has {available}"
            )
        chosen = [n for n in available if n in set(var_names)]
    else:
        chosen = available
    if not keep_untransformed:
        chosen = [n for n in chosen if not is_transformed_name(n)]
    return OutputSpec("posterior", tuple(chosen))
