"""What a transform computes, and from which inputs.

From the sampler's unconstrained draws (``model.value_vars``): the posterior variables or the
pointwise log-likelihood, as PyMC's JAX samplers compute them. From the constrained posterior
(what ``idata.posterior`` holds, one array per free random variable): the deterministics or the
pointwise log-likelihood, as ``pm.compute_deterministics`` / ``pm.compute_log_likelihood`` do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pymc.util import is_transformed_name

TransformKind = Literal["posterior", "log_likelihood", "constrained_log_likelihood", "deterministics", "predictive"]
InputKind = Literal["unconstrained", "constrained"]

CONSTRAINED_KINDS = frozenset({"constrained_log_likelihood", "deterministics"})
"""Kinds whose inputs are the free random variables' constrained values, not value variables."""


@dataclass(frozen=True)
class OutputSpec:
    """The outputs of one transform, by name, in the order PyMC returns them."""

    kind: TransformKind
    names: tuple[str, ...]
    given: tuple[str, ...] = ()
    """``predictive``: the variables taken from the posterior (the rest is drawn or computed,
    see ``aot.predictive``); their arrays, then the draw keys, are the inputs. Empty otherwise."""
    dim_lengths: tuple[tuple[str, int], ...] = ()
    """``predictive``: mutable dimension lengths compiled in as constants (random draws need
    static sizes in JAX); part of the key. Empty otherwise."""

    @property
    def keyed_outputs(self) -> tuple[str, ...]:
        """The outputs as the key names them: with the compiled-in dimension lengths, if any."""
        return (*self.names, *(f"{dim}={n}" for dim, n in self.dim_lengths))

    @property
    def inputs(self) -> InputKind:
        """What the transform takes: value variables, or the free variables' constrained values."""
        return "constrained" if self.kind in CONSTRAINED_KINDS else "unconstrained"


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
    chosen = _chosen(var_names, posterior_names(model), "variables")
    if not keep_untransformed:
        chosen = tuple(n for n in chosen if not is_transformed_name(n))
    return OutputSpec("posterior", chosen)


def _chosen(var_names: Sequence[str] | str | None, available: Sequence[str], what: str) -> tuple[str, ...]:
    """``available`` filtered by ``var_names``, in model order; unknown names raise ValueError."""
    if var_names is None:
        return tuple(available)
    if isinstance(var_names, str):
        var_names = [var_names]
    unknown = [n for n in var_names if n not in available]
    if unknown:
        raise ValueError(f"var_names: unknown variable(s) {unknown}; the model has {what} {list(available)}")
    wanted = set(var_names)
    return tuple(n for n in available if n in wanted)


def resolve_constrained_outputs(
    model: Any, *, var_names: Sequence[str] | str | None = None, log_likelihood: bool = False
) -> OutputSpec:
    """The spec of ``pm.compute_log_likelihood`` (``log_likelihood``) or ``pm.compute_deterministics``.

    ``var_names`` picks observed variables or deterministics; the outputs are in model order
    whatever the order of ``var_names``, so one executable serves every ordering.
    """
    if log_likelihood:
        names = _chosen(var_names, [rv.name for rv in model.observed_RVs], "observed variables")
        return OutputSpec("constrained_log_likelihood", names)
    return OutputSpec("deterministics", _chosen(var_names, [d.name for d in model.deterministics], "deterministics"))
