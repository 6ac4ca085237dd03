"""Transparent reuse inside ``pm.sample(nuts_sampler="numpyro"|"blackjax")``.

PyMC's ``sample_jax_nuts`` postprocesses in three module-level calls, which are the seams:

* ``get_jaxified_graph(inputs=model.value_vars, outputs=vars_to_sample)`` -- while a
  sampling call is active this returns a :class:`DeferredGraph` that remembers the model
  and the outputs and only builds PyMC's function if someone calls it;
* ``_postprocess_samples(jax_fn, raw_samples, backend, vectorize, donate)`` -- given a
  ``DeferredGraph`` it runs the cached executable instead;
* ``_get_log_likelihood(model, raw_samples, backend, vectorize)`` -- runs the cached
  log-likelihood executable.

``sample_jax_nuts`` (and its ``sample_numpyro_nuts`` / ``sample_blackjax_nuts`` partials)
are wrapped only to know which model is being sampled and whether the user chose a
``postprocessing_vectorize``. ``disable()`` puts every original object back.

PyMC 5.28 and 6.x have these seams with the same signatures (PyMC 6's ``_get_log_likelihood``
goes through ``_postprocess_samples`` itself; it is replaced whole, so that does not matter).
PyMC 6 changed only how ``pm.sample`` hands the driver options over (``nuts={...}``, lifted
into ``sample_jax_nuts``'s keywords), so they reach the wrapper as keywords on both lines.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import pymc_compute_hooks

log = logging.getLogger("pymc_aot")

_SEAMS = (
    "sample_jax_nuts",
    "sample_numpyro_nuts",
    "sample_blackjax_nuts",
    "get_jaxified_graph",
    "_postprocess_samples",
    "_get_log_likelihood",
)


@dataclass(frozen=True)
class Options:
    """What ``enable`` was given."""

    cache_dir: str | None = None
    strategy: str = "auto"
    batch_size: int | None = None
    memory_budget: int | float | str | None = None
    jax_cache: bool = False
    out: str | None = None


@dataclass
class _State:
    options: Options | None = None
    originals: dict[str, Any] = field(default_factory=dict)
    jax_config: dict[str, Any] = field(default_factory=dict)
    warned: bool = False


_STATE = _State()


@dataclass(frozen=True)
class _Active:
    """The sampling call in progress: its model, the user's vectorize choice, the budget fixed
    by the preflight (so a run that sampled for hours is not refused afterwards)."""

    model: Any
    vectorize: str | None
    budget: int | None
    written: dict[str, Path] = field(default_factory=dict)  # with out=: groups written to the store


_ACTIVE: contextvars.ContextVar[_Active | None] = contextvars.ContextVar("pymc_aot_active", default=None)


class DeferredGraph:
    """Stands in for PyMC's jaxified posterior function; builds it only if called."""

    def __init__(
        self, model: Any, inputs: list[Any], outputs: list[Any], vectorize: str | None, budget: int | None = None
    ) -> None:
        self.model = model
        self.inputs = inputs
        self.outputs = outputs
        self.vectorize = vectorize
        self.budget = budget
        self._fn: Any = None

    def build(self) -> Any:
        if self._fn is None:
            self._fn = _STATE.originals["get_jaxified_graph"](inputs=self.inputs, outputs=self.outputs)
        return self._fn

    def __call__(self, *args: Any) -> Any:
        return self.build()(*args)


def is_enabled() -> bool:
    """Whether pymc-aot is hooked into PyMC."""
    return _STATE.options is not None


def _strategy_for(vectorize: str | None) -> tuple[str, int | None]:
    options = _STATE.options or Options()
    if vectorize in ("vmap", "scan"):
        return vectorize, None  # the user asked PyMC for one; ours of the same name
    return options.strategy, options.batch_size


def _run_cached(
    model: Any,
    samples: Any,
    *,
    kind: str,
    names: tuple[str, ...],
    backend: str | None,
    vectorize: str | None,
    budget: int | None = None,
) -> dict[str, Any]:
    from ..aot.spec import OutputSpec
    from .engine import run_transform
    from .sharded_input import devices_for

    options = _STATE.options or Options()
    strategy, batch_size = _strategy_for(vectorize)
    active = _ACTIVE.get()
    out = options.out if active is not None else None
    result = run_transform(
        model,
        list(samples),
        strategy=strategy,
        batch_size=batch_size,
        backend=backend,
        cache=options.cache_dir,
        spec=OutputSpec(kind, names),
        log_likelihood=kind == "log_likelihood",
        memory_budget=budget if budget is not None else options.memory_budget,
        out=out,
        devices=devices_for(strategy, samples),  # parallel chains stay on their devices
    )
    if out is None or active is None:
        return result
    from .sample_out import placeholders

    active.written[kind] = Path(out)
    return placeholders(result)


def _fallback_warning(what: str, exc: BaseException) -> None:
    warnings.warn(
        f"pymc-aot could not run the cached {what} ({type(exc).__name__}: {exc}); using PyMC's own path",
        RuntimeWarning,
        stacklevel=3,
    )


def _get_jaxified_graph(inputs: Any = None, outputs: Any = None) -> Any:
    active = _ACTIVE.get()
    original = _STATE.originals["get_jaxified_graph"]
    if active is None or outputs is None or inputs is None:
        return original(inputs=inputs, outputs=outputs)
    model, vectorize = active.model, active.vectorize
    from ..aot.spec import posterior_names

    known = set(posterior_names(model))
    if list(inputs) != list(model.value_vars) or not all(getattr(o, "name", None) in known for o in outputs):
        return original(inputs=inputs, outputs=outputs)  # the sampler's logp, or someone else's graph
    return DeferredGraph(model, list(inputs), list(outputs), vectorize, active.budget)


def _postprocess_samples(
    jax_fn: Any,
    raw_mcmc_samples: Any,
    postprocessing_backend: Any = None,
    postprocessing_vectorize: Any = "vmap",
    donate_samples: bool = False,
) -> Any:
    original = _STATE.originals["_postprocess_samples"]
    if isinstance(jax_fn, DeferredGraph):
        names = tuple(o.name for o in jax_fn.outputs)
        try:
            result = _run_cached(
                jax_fn.model,
                raw_mcmc_samples,
                kind="posterior",
                names=names,
                backend=postprocessing_backend,
                vectorize=jax_fn.vectorize,
                budget=jax_fn.budget,
            )
        except Exception as exc:  # noqa: BLE001 - never lose a sampling run to the cache
            _fallback_warning("posterior transform", exc)
            jax_fn = jax_fn.build()
        else:
            return [result[n] for n in names]
    return original(
        jax_fn,
        raw_mcmc_samples,
        postprocessing_backend=postprocessing_backend,
        postprocessing_vectorize=postprocessing_vectorize,
        donate_samples=donate_samples,
    )


def _get_log_likelihood(model: Any, samples: Any, backend: Any = None, postprocessing_vectorize: Any = "scan") -> Any:
    active = _ACTIVE.get()
    names = tuple(rv.name for rv in model.observed_RVs)
    vectorize = active.vectorize if active is not None else postprocessing_vectorize
    budget = active.budget if active is not None else None
    try:
        return _run_cached(
            model, samples, kind="log_likelihood", names=names, backend=backend, vectorize=vectorize, budget=budget
        )
    except Exception as exc:  # noqa: BLE001 - never lose a sampling run to the cache
        _fallback_warning("log-likelihood", exc)
        return _STATE.originals["_get_log_likelihood"](model, samples, backend, postprocessing_vectorize)


def _preflight(model: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int | None:
    """With ``auto``: choose (and compile) the strategies before sampling; refuse what won't fit."""
    options = _STATE.options or Options()
    if options.strategy != "auto" or kwargs.get("postprocessing_vectorize") is not None:
        return None
    from .. import aot
    from ..aot.budget import resolve_budget
    from ..aot.request import resolve_device
    from ..aot.spec import posterior_names

    draws = args[0] if args else kwargs.get("draws", 1000)
    var_names = kwargs.get("var_names")
    if var_names is not None:  # PyMC ignores names it does not know; so does the preflight
        var_names = [n for n in posterior_names(model) if n in set(var_names)]
    backend = kwargs.get("postprocessing_backend")
    budget = resolve_budget(options.memory_budget, resolve_device(backend))
    wanted = [False] + ([True] if (kwargs.get("idata_kwargs") or {}).get("log_likelihood") else [])
    for log_likelihood in wanted:
        aot.precompile(
            model,
            chains=kwargs.get("chains", 4),
            draws=draws,
            strategy="auto",
            var_names=var_names,
            keep_untransformed=kwargs.get("keep_untransformed", False),
            log_likelihood=log_likelihood,
            backend=backend,
            cache=options.cache_dir,
            memory_budget=budget,
            to_disk=options.out is not None,
        )
    return budget


def _sample_jax_nuts(*args: Any, **kwargs: Any) -> Any:
    import pymc as pm

    model = pm.modelcontext(kwargs.get("model"))
    budget = _preflight(model, args, kwargs)  # raises MemoryBudgetError before any sampling
    active = _Active(model, kwargs.get("postprocessing_vectorize"), budget)
    token = _ACTIVE.set(active)
    out = (_STATE.options or Options()).out
    try:
        if out is None:
            return _STATE.originals["sample_jax_nuts"](*args, **kwargs)
        from .sample_out import sample_into_store

        return sample_into_store(_STATE.originals["sample_jax_nuts"], args, kwargs, model, active.written)
    finally:
        _ACTIVE.reset(token)


_REPLACEMENTS = {
    "sample_jax_nuts": _sample_jax_nuts,
    "sample_numpyro_nuts": functools.partial(_sample_jax_nuts, nuts_sampler="numpyro"),
    "sample_blackjax_nuts": functools.partial(_sample_jax_nuts, nuts_sampler="blackjax"),
    "get_jaxified_graph": _get_jaxified_graph,
    "_postprocess_samples": _postprocess_samples,
    "_get_log_likelihood": _get_log_likelihood,
}


def _seams_present(module: Any) -> bool:
    import inspect

    if not all(callable(getattr(module, name, None)) for name in _SEAMS):
        return False
    expected = {
        "sample_jax_nuts": {"model", "postprocessing_vectorize", "postprocessing_backend"},
        "get_jaxified_graph": {"inputs", "outputs"},
        "_postprocess_samples": {
            "jax_fn",
            "raw_mcmc_samples",
            "postprocessing_backend",
            "postprocessing_vectorize",
            "donate_samples",
        },
        "_get_log_likelihood": {"model", "samples", "backend", "postprocessing_vectorize"},
    }
    for name, params in expected.items():
        try:
            found = set(inspect.signature(getattr(module, name)).parameters)
        except (TypeError, ValueError):
            return False
        if not params <= found:
            return False
    return True


def _point_jax_cache(directory: Path) -> None:
    import jax
    from jax.experimental.compilation_cache import compilation_cache

    _STATE.jax_config = {"jax_compilation_cache_dir": jax.config.jax_compilation_cache_dir}
    jax.config.update("jax_compilation_cache_dir", str(directory))
    compilation_cache.reset_cache()


def _restore_jax_cache() -> None:
    if not _STATE.jax_config:
        return
    import jax
    from jax.experimental.compilation_cache import compilation_cache

    for name, value in _STATE.jax_config.items():
        jax.config.update(name, value)
    compilation_cache.reset_cache()
    _STATE.jax_config = {}


def enable(
    *,
    cache_dir: str | None = None,
    strategy: str = "auto",
    batch_size: int | None = None,
    memory_budget: int | float | str | None = None,
    jax_cache: bool = False,
    out: str | os.PathLike[str] | None = None,
) -> bool:
    """Hook pymc-aot into PyMC's JAX samplers; returns False if PyMC's seams are missing.

    ``strategy`` / ``batch_size`` apply when the user does not pass
    ``postprocessing_vectorize`` (PyMC's "vmap" and "scan" map to ours of the same name).
    With ``strategy="auto"`` (the default) the strategies are chosen and compiled before
    sampling starts, against ``memory_budget``; if nothing fits, ``pm.sample`` raises
    ``MemoryBudgetError`` at once instead of failing at "Transforming variables".
    ``jax_cache=True`` also points JAX's persistent compilation cache into the pymc-aot
    cache root, so the samplers' own compiles are reused across processes. ``out``: a Zarr
    store; the posterior (and log-likelihood) are streamed into it and the InferenceData's
    groups read from it lazily (see ``runtime/sample_out.py``). Enabling twice only updates
    the options.
    """
    import pymc.sampling.jax as pymc_jax

    from ..aot.budget import resolve_budget
    from ..aot.request import resolve_device
    from ..aot.strategies import get_strategy
    from ..cache import CacheStore

    get_strategy(strategy, batch_size)  # validate now, not in the middle of sampling
    if memory_budget is not None:
        resolve_budget(memory_budget, resolve_device(None))
    if out is not None:
        from .zarr_store import check_target

        out = str(check_target(out))
    options = Options(
        cache_dir=cache_dir, strategy=strategy, batch_size=batch_size, memory_budget=memory_budget, jax_cache=jax_cache,
        out=out,
    )
    # checked like the cache root, before anything is patched; None in a read-only shared cache
    jax_dir = CacheStore(cache_dir).private_subdirectory("jax-compilation-cache") if jax_cache else None
    if _STATE.options is None:
        if not _seams_present(pymc_jax):
            if not _STATE.warned:
                _STATE.warned = True
                warnings.warn(
                    "pymc-aot: this PyMC version does not have the postprocessing functions pymc-aot hooks "
                    "into; PyMC's behaviour is left unchanged",
                    RuntimeWarning,
                    stacklevel=2,
                )
            return False
        _STATE.originals = {name: getattr(pymc_jax, name) for name in _SEAMS}
        for name, replacement in _REPLACEMENTS.items():
            setattr(pymc_jax, name, replacement)
    _restore_jax_cache()
    if jax_dir is not None:
        _point_jax_cache(jax_dir)
    _STATE.options = options
    pymc_compute_hooks.enable(options)  # pm.compute_log_likelihood / compute_deterministics
    return True


def disable() -> None:
    """Put PyMC back exactly as it was; harmless if not enabled."""
    if _STATE.options is None:
        return
    import pymc.sampling.jax as pymc_jax

    pymc_compute_hooks.disable()
    for name, original in _STATE.originals.items():
        setattr(pymc_jax, name, original)
    _STATE.originals = {}
    _restore_jax_cache()
    _STATE.options = None


@contextlib.contextmanager
def enabled(**options: Any) -> Iterator[None]:
    """``with runtime.enabled(cache_dir=...):`` -- enable inside the block, restore after."""
    was = _STATE.options
    enable(**options)
    try:
        yield
    finally:
        if was is None:
            disable()
        else:
            enable(**vars(was))
