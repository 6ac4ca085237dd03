"""From a request to its entry in one step; ``precompile`` on top of it."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any

from ...cache import CacheStore
from ..build.entries import TransformEntry, fetch_or_compile
from ..build.options import RequestOptions
from ..build.request import Progress, TransformRequest, make_request, value_signature
from ..identity.fingerprint import ModelFingerprint, fingerprint_model
from ..identity.key import Signature
from ..identity.spec import InputKind, OutputSpec, resolve_constrained_outputs
from ..strategies.sharding import DeviceRequest
from ..strategies.strategies import AUTO
from . import auto

SAMPLING: ContextVar[bool] = ContextVar("pymc_aot_sampling", default=False)
"""True while ``pm.sample`` runs under ``enable()``: its postprocessing resolves with ``defer`` too,
so it uses the choice its preflight stored (candidates still pending) instead of searching again."""


def resolve(
    request: TransformRequest, store: CacheStore | None, progress: Progress | None = None, *, defer: bool = False
) -> TransformEntry:
    """The entry of ``request``, from ``store`` or compiled (and stored).

    A concrete request is read or compiled; an ``auto`` request gets a strategy chosen under
    its budget (or the stored choice), see :mod:`pymc_aot.aot.choice.auto`. Every caller -- precompile,
    the runtime -- goes through here, once per request. ``defer``: ``auto`` compiles what its
    choice needs now and its other candidates in the background (a run about to sample).
    """
    if request.strategy is None:
        if defer or SAMPLING.get():
            from .auto_first import choose_first

            return choose_first(request, store, progress)
        return auto.choose(request, store, progress)
    return fetch_or_compile(request, store, progress)


def precompile(
    model: Any,
    *,
    chains: int = 4,
    draws: int = 1000,
    strategy: str = AUTO,
    batch_size: int | None = None,
    var_names: Sequence[str] | None = None,
    keep_untransformed: bool = False,
    log_likelihood: bool = False,
    backend: str | None = None,
    cache: CacheStore | str | None = None,
    progress: Progress | None = None,
    model_name: str | None = None,
    memory_budget: int | float | str | None = None,
    to_disk: bool = False,
    inputs: InputKind = "unconstrained",
    devices: DeviceRequest = None,
) -> TransformEntry:
    """Compile the transform for ``chains`` x ``draws`` samples and store it in the cache.

    If an identical entry is already stored, nothing is compiled and the stored entry is
    returned with ``cached=True``. The entry comes without its executable (it is in the
    store; ``runtime.postprocess`` loads it). ``model_name`` labels the entry for ``inspect`` (default:
    ``model.name``); it is not part of the key.

    ``strategy="auto"`` (the default) compiles candidates and keeps the fastest whose
    predicted peak fits ``memory_budget`` (bytes, "12GiB", a fraction of the device's free
    memory, or None for 80% of it); if none fits it raises ``MemoryBudgetError``.
    ``to_disk=True``: choose for outputs written to disk (``postprocess(out=...)``).

    ``inputs="constrained"`` compiles what ``pm.compute_deterministics`` (or, with
    ``log_likelihood=True``, ``pm.compute_log_likelihood``) computes from ``idata.posterior``;
    ``var_names`` then picks deterministics (observed variables) and ``keep_untransformed``
    does not apply.

    ``devices``: for ``strategy="sharded(B)"`` (or ``"streamed(B)"``), a device count or list
    (``aot.strategies.sharding``).
    """
    return precompile_with(
        model, RequestOptions.pick(locals()), chains=chains, draws=draws, cache=cache, progress=progress, inputs=inputs
    )


def precompile_with(
    model: Any,
    options: RequestOptions,
    *,
    chains: int = 4,
    draws: int = 1000,
    cache: CacheStore | str | None = None,
    progress: Progress | None = None,
    inputs: InputKind = "unconstrained",
    defer: bool = False,
    live: bool = False,
) -> TransformEntry:
    """:func:`precompile` with the request's options as one value (``compare`` and the hooks);
    ``defer``: see :func:`resolve`. ``live``: return a just compiled executable with the entry
    (``pm.sample``'s preflight hands it to the runtime's memo, so its postprocessing does not
    read it back from disk); otherwise the entry comes without it."""
    fp = fingerprint_model(model)
    _warn_discrete(model)
    values, spec = _inputs_and_outputs(model, fp, chains, draws, inputs, options.var_names, options.log_likelihood)
    request = make_request(model, values, options, fingerprint=fp, spec=spec)
    store = cache if isinstance(cache, CacheStore) else CacheStore(cache)
    try:
        entry = resolve(request, store, progress, defer=defer)
        if request.strategy is not None and entry.cached and not entry.metadata.requested:
            from ...cache.candidates import mark_requested  # a write, never on a hit

            mark_requested(store, entry.digest)  # auto compiled it as a candidate; now it was asked for
    finally:
        if store is not cache:
            store.close()  # opened here, closed here
    return dataclasses.replace(entry, payload=b"", executable=entry.executable if live else None)


def _warn_discrete(model: Any) -> None:
    """NUTS (PyMC's, numpyro's, blackjax's) refuses discrete free variables: say so before the compile."""
    discrete = [rv.name for rv in model.free_RVs if rv.type.dtype.startswith(("int", "uint", "bool"))]
    if discrete:
        warnings.warn(
            f"model has discrete free variable(s) {discrete}: NUTS refuses them (pm.sample needs a compound step, "
            "and nuts_sampler='numpyro'/'blackjax' will not run); compiling the transform anyway",
            stacklevel=3,
        )


def _inputs_and_outputs(
    model: Any,
    fp: ModelFingerprint,
    chains: int,
    draws: int,
    inputs: InputKind,
    var_names: Sequence[str] | None,
    log_likelihood: bool,
) -> tuple[Signature, OutputSpec | None]:
    """The input signature and (for constrained inputs) the output spec of a precompile."""
    if inputs == "unconstrained":
        return value_signature(model, fp, chains, draws), None
    if inputs == "constrained":
        from ..build.constrained import constrained_signature

        spec = resolve_constrained_outputs(model, var_names=var_names, log_likelihood=log_likelihood)
        if not spec.names:
            what = "observed variables" if log_likelihood else "deterministics"
            raise ValueError(f"nothing to compile from the constrained posterior: the model has no {what}")
        return constrained_signature(model, chains, draws), spec
    raise ValueError(f"inputs: expected 'unconstrained' or 'constrained', got {inputs!r}")
