"""The posterior predictive through the cache: :func:`posterior_predictive`, and the seam of
``pm.sample_posterior_predictive`` (:mod:`.hook`) that :func:`pymc_aot.enable` installs."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["posterior_predictive"]


def posterior_predictive(
    model: Any,
    posterior: Any,
    *,
    var_names: Sequence[str] | None = None,
    random_seed: Any = None,
    strategy: str = "auto",
    batch_size: int | None = None,
    backend: str | None = None,
    cache: Any = None,
    memory_budget: int | float | str | None = None,
    devices: int | Sequence[Any] | None = None,
    out: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Posterior predictive draws of ``var_names`` (default: the observed variables and the
    deterministics that depend on them, as ``pm.sample_posterior_predictive``), one array
    ``(chains, draws, *shape)`` per variable, by an ahead-of-time compiled, cached executable.

    ``posterior``: an InferenceData / DataTree (its ``posterior`` group; ``constant_data``
    tells which ``pm.Data`` changed since, as PyMC reads it), an xarray Dataset, or a dict of
    ``(chains, draws, ...)`` arrays by variable name (then every ``pm.Data`` counts as changed
    and every coordinate as unchanged). Variables that depend on changed data are recomputed
    or drawn afresh, as PyMC 5 does (PyMC 6 keeps the trace's random variables unless its
    ``sample_vars`` names them; inside ``enable()`` such a call goes to PyMC); a free variable
    the outputs need that the posterior lacks is an error naming it.

    ``random_seed``: an int (None: fresh entropy). Draw ``(c, d)`` uses the key
    ``fold_in(PRNGKey(random_seed), c * draws + d)`` (JAX's threefry, whatever
    ``jax_default_prng_impl`` says; not PyMC's PRNG), so the draws
    are identical for one seed whatever the strategy, batch size or device split. Other
    options as :func:`pymc_aot.postprocess` (``out=`` writes group ``predictive``).
    """
    from ...aot.build.options import RequestOptions
    from ..transforms.engine import DEFAULT
    from .run import make_plan, posterior_dict, run_predictive

    options = RequestOptions.pick(locals()).replace(var_names=None, to_disk=out is not None)
    arrays, constant, observed = posterior_dict(posterior)
    coords = _constant_coords(posterior, model)
    observed_names = list(observed.data_vars) if observed is not None else []
    plan = make_plan(model, var_names, set(arrays), constant, coords, observed_names)
    return run_predictive(DEFAULT, model, arrays, plan, options, random_seed=random_seed, cache=cache, out=out)


def _constant_coords(posterior: Any, model: Any) -> set[str]:
    """PyMC's ``get_constant_coords`` over the posterior's (and constant data's) coordinates."""
    from ...aot.compat import constant_coords

    if isinstance(posterior, Mapping):  # plain arrays: no coordinates to compare; they are the model's
        return set(model.coords)
    coords: dict[str, Any] = {}
    for name in ("constant_data", "posterior"):
        try:
            group = posterior[name] if name != "posterior" or hasattr(posterior, "groups") else posterior
        except (KeyError, TypeError):
            continue
        if hasattr(group, "coords"):
            coords.update({str(k): v.values for k, v in group.coords.items()})
    return constant_coords(coords, model)
