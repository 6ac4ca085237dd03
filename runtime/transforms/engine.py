"""Lookup-or-compile and run: the runtime behind ``postprocess``.

One :class:`TransformCache` per process owns the executables loaded so far, the stores
they came from and the counters of what happened; the functions here use it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import Any

from ...aot.build.entries import TransformEntry
from ...aot.build.options import RequestOptions
from ...aot.build.request import TransformRequest
from ...aot.strategies.strategies import AUTO
from ...cache import CacheStore
from .counters import RuntimeCounters
from .loaded_transform import LoadedTransform
from .transform_cache import TransformCache

__all__ = [
    "COUNTERS",
    "DEFAULT",
    "LoadedTransform",
    "RuntimeCounters",
    "TransformCache",
    "clear_memo",
    "from_posterior",
    "get_store",
    "load_or_compile",
    "log_likelihood",
    "postprocess",
    "precompile_counted",
    "run_transform",
]

DEFAULT = TransformCache()
"""The process's cache; the functions below use it."""

COUNTERS = DEFAULT.counters


def clear_memo() -> None:
    """Forget every executable loaded in this process (the disk cache is untouched)."""
    DEFAULT.clear()


def get_store(cache: CacheStore | str | None = None) -> CacheStore:
    """The store for ``cache``: an instance, a directory, or None for the default root."""
    return DEFAULT.store(cache)


def load_or_compile(request: TransformRequest, store: CacheStore | None) -> LoadedTransform:
    """The executable for ``request``: from this process, the store, or a fresh compile."""
    return DEFAULT.load(request, store)


def precompile_counted(model: Any, options: RequestOptions, defer: bool = False, **shape: Any) -> TransformEntry:
    """``aot.resolve.precompile_with`` for ``pm.sample``'s preflight, its compiles counted in
    :data:`COUNTERS` (a stored entry is not a disk hit: no executable was loaded).

    An executable compiled here is kept in the memo under its key's digest (the one the
    postprocessing's request computes from the draws when their shapes are the preflight's):
    the postprocessing runs it without reading it back from disk and deserializing it."""
    from ...aot.choice import auto_later
    from ...aot.choice.resolve import precompile_with

    if _count_later not in auto_later.compiled_hooks:  # what auto compiles after the preflight counts too
        auto_later.compiled_hooks.append(_count_later)
    if _forget not in auto_later.recorded_hooks:  # a complete choice replaces the first one on disk
        auto_later.recorded_hooks.append(_forget)
    entry = precompile_with(model, options, defer=defer, live=True, **shape)
    if entry.compiles:
        DEFAULT.count(entry, preflight=True)
    DEFAULT.adopt(entry)
    return dataclasses.replace(entry, executable=None)


def _count_later(compiles: int) -> None:
    DEFAULT.count_later(compiles)


def _forget(digest: str) -> None:
    DEFAULT.forget(digest)


def run_transform(
    model: Any, samples: Sequence[Any] | Mapping[str, Any], options: RequestOptions | None = None, **keywords: Any
) -> dict[str, Any]:
    """Validate ``samples``, find or build the executable, run it; see :meth:`TransformCache.run`."""
    return DEFAULT.run(model, samples, options, **keywords)


def postprocess(
    model: Any,
    samples: Sequence[Any] | Mapping[str, Any],
    *,
    strategy: str = AUTO,
    batch_size: int | None = None,
    var_names: Sequence[str] | None = None,
    keep_untransformed: bool = False,
    log_likelihood: bool = False,
    backend: str | None = None,
    cache: CacheStore | str | None = None,
    memory_budget: int | float | str | None = None,
    out: str | os.PathLike[str] | None = None,
    devices: int | Sequence[Any] | None = None,
) -> Mapping[str, Any]:
    """Postprocess raw draws with a cached, ahead-of-time compiled executable.

    ``samples``: one array per value variable, shaped ``(chains, draws, *shape)``, as a list
    in ``model.value_vars`` order or a dict by value-variable name.

    Returns the posterior variables as ``pm.sample`` would (``var_names``,
    ``keep_untransformed``), or, with ``log_likelihood=True``, the pointwise log-likelihood
    of every observed variable (as PyMC's ``_get_log_likelihood``).

    ``strategy="auto"`` (the default) picks the fastest strategy whose predicted peak fits
    ``memory_budget`` (see ``aot.precompile``). The ``vmap`` strategy donates its inputs, as
    PyMC does: jax arrays passed to it are consumed (numpy arrays are copied to the device
    first and stay intact). ``streamed(B)`` computes B draws per call and copies each batch
    into NumPy arrays while the next computes: the device never holds the whole output.

    ``out="posterior.zarr"`` writes the outputs into that Zarr store instead (group
    ``posterior`` or ``log_likelihood``, replaced if present, consolidated metadata; needs the
    ``zarr`` extra) and returns an ``xarray.Dataset`` with the model's dims and coords whose
    variables read lazily from the store; ``auto`` then streams, so memory holds
    the inputs and a few batches, not the output. A write that did not finish is refused on
    reading (``runtime.streams.zarr_store.open_store`` / ``open_dataset``).

    ``devices``: for ``strategy="sharded(B)"``, how many devices (or which) to split the
    draws over; default one per physical core on a CPU, every accelerator otherwise. With
    ``"streamed(B)"`` each batch is split over them (default: one device).
    """
    result = run_transform(model, samples, RequestOptions.pick(locals()), cache=cache, out=out)
    if out is None:
        return result
    from ..streams.model_dataset import open_model_dataset  # only with out=: not on a hit's import path

    return open_model_dataset(out, "log_likelihood" if log_likelihood else "posterior", model)


def log_likelihood(model: Any, samples: Sequence[Any] | Mapping[str, Any], **options: Any) -> dict[str, Any]:
    """Pointwise log-likelihood of the observed variables; same options as ``postprocess``."""
    return postprocess(model, samples, log_likelihood=True, **options)


def from_posterior(
    model: Any,
    posterior: Mapping[str, Any],
    *,
    log_likelihood: bool = False,
    var_names: Sequence[str] | None = None,
    strategy: str = AUTO,
    batch_size: int | None = None,
    backend: str | None = None,
    cache: CacheStore | str | None = None,
    memory_budget: int | float | str | None = None,
    devices: int | Sequence[Any] | None = None,
) -> dict[str, Any]:
    """Deterministics (or, with ``log_likelihood=True``, the pointwise log-likelihood) of the
    constrained posterior, by a cached, ahead-of-time compiled executable.

    ``posterior``: one array per free random variable, by name, shaped ``(chains, draws,
    *shape)`` -- ``idata.posterior`` as a dict of numpy arrays; other entries are ignored.
    Returns what ``pm.compute_deterministics`` / ``pm.compute_log_likelihood`` compute, as
    arrays by name; ``var_names`` picks deterministics / observed variables. Options as
    ``postprocess`` (``devices`` with ``strategy="sharded(B)"`` splits the posterior over them).
    """
    options = RequestOptions.pick(locals())
    from .from_posterior import run_from_posterior  # not on postprocess's import path

    return run_from_posterior(DEFAULT, model, posterior, options, cache=cache)
