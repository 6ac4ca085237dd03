"""Compile and store a model's transform before sampling; no samples needed."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from ..cache import CacheStore
from .compiler import CompiledTransform, CostStats, MemoryStats, Progress, compile_transform
from .fingerprint import ModelFingerprint, fingerprint_model
from .graph import TransformGraph
from .key import Signature, TransformKey, make_key
from .spec import OutputSpec, resolve_outputs
from .strategies import Strategy, get_strategy


@dataclass(frozen=True)
class TransformRequest:
    """A resolved request: which model, outputs, strategy and device, and its key."""

    fingerprint: ModelFingerprint
    spec: OutputSpec
    strategy: Strategy
    device: Any
    key: TransformKey


@dataclass(frozen=True)
class TransformEntry:
    """What ``precompile`` returns: the stored entry's key and statistics."""

    key: TransformKey
    digest: str
    strategy: str
    memory: MemoryStats
    cost: CostStats
    timings: dict[str, float]
    model_name: str
    cached: bool
    stored: bool
    location: str

    @classmethod
    def from_metadata(
        cls, meta: dict[str, Any], key: TransformKey, *, cached: bool, stored: bool, location: str
    ) -> TransformEntry:
        return cls(
            key=key,
            digest=key.digest,
            strategy=label_of(meta),
            memory=MemoryStats.from_dict(meta["memory"]),
            cost=CostStats(meta["cost"].get("flops"), meta["cost"].get("bytes_accessed")),
            timings={k: float(v) for k, v in meta["timings"].items()},
            model_name=meta.get("model_name", ""),
            cached=cached,
            stored=stored,
            location=location,
        )


def label_of(meta: dict[str, Any]) -> str:
    """``batched(10)``, ``auto:scan_vmap`` or the plain strategy name, from stored metadata."""
    parts = meta["key"]
    if parts["strategy"] == "batched":
        return f"batched({parts['batch_size']})"
    if parts["strategy"] == "auto" and "auto" in meta:
        return f"auto:{meta['auto']['chosen']}"
    return str(parts["strategy"])


def resolve_device(backend: str | None) -> Any:
    """The one device a transform runs on: the first of ``backend`` (default backend if None)."""
    try:
        return jax.devices(backend)[0]
    except RuntimeError as exc:
        raise ValueError(f"backend {backend!r} is not available here: {exc}") from None


def make_request(
    model: Any,
    values: Signature,
    *,
    strategy: str | Strategy,
    batch_size: int | None,
    var_names: Sequence[str] | None,
    keep_untransformed: bool,
    log_likelihood: bool,
    backend: str | None,
    fingerprint: ModelFingerprint | None = None,
    spec: OutputSpec | None = None,
) -> TransformRequest:
    """Everything needed to key a transform; cheap (no rewrite, no jaxify)."""
    fp = fingerprint or fingerprint_model(model)
    spec = spec or resolve_outputs(
        model, var_names=var_names, keep_untransformed=keep_untransformed, log_likelihood=log_likelihood
    )
    strat = strategy if isinstance(strategy, Strategy) else get_strategy(strategy, batch_size)
    if spec.kind == "log_likelihood" and strat.donate:
        # The raw samples are still needed after the log-likelihood (PyMC never donates here).
        strat = dataclasses.replace(strat, donate=False)
    device = resolve_device(backend)
    if not fp.exact and fp.key_kind == "structural":  # code the fingerprint cannot describe
        from .lowered_key import lowered_fingerprint

        fp = lowered_fingerprint(model, spec, values, fp, device)
    return TransformRequest(fp, spec, strat, device, make_key(fp, spec, strat, values, device))


def value_signature(model: Any, fingerprint: ModelFingerprint, chains: int, draws: int) -> Signature:
    """Shapes and dtypes of ``(chains, draws, *shape)`` inputs, from the model alone."""
    if chains < 1 or draws < 0:
        raise ValueError(f"need chains >= 1 and draws >= 0, got chains={chains}, draws={draws}")
    values = [model.rvs_to_values[rv] for rv in model.free_RVs]
    shapes: list[tuple[int, ...]]
    if all(None not in v.type.shape for v in values):
        shapes = [tuple(int(s) for s in v.type.shape) for v in values]
    else:
        point = model.initial_point()
        shapes = [tuple(np.shape(point[v.name])) for v in values]
    return tuple(
        (name, (int(chains), int(draws), *shape), dtype)
        for name, shape, dtype in zip(fingerprint.value_names, shapes, fingerprint.value_dtypes, strict=True)
    )


def compile_and_store(
    model: Any,
    request: TransformRequest,
    store: CacheStore | None,
    progress: Progress | None = None,
    model_name: str | None = None,
    graph: TransformGraph | None = None,
) -> tuple[CompiledTransform, bool]:
    """Compile ``request`` and store it; returns the transform and whether it was stored."""
    compiled = compile_transform(
        model, request.fingerprint, request.spec, request.strategy, request.key, request.device, progress, graph
    )
    stored = False
    if store is not None:
        if progress:
            progress("storing")
        name = model_name or request.fingerprint.model_name
        stored = store.put(request.key.digest, compiled.payload, compiled.metadata(name))
    return compiled, stored


def precompile(
    model: Any,
    *,
    chains: int = 4,
    draws: int = 1000,
    strategy: str = "auto",
    batch_size: int | None = None,
    var_names: Sequence[str] | None = None,
    keep_untransformed: bool = False,
    log_likelihood: bool = False,
    backend: str | None = None,
    cache: CacheStore | str | None = None,
    progress: Progress | None = None,
    model_name: str | None = None,
    memory_budget: int | float | str | None = None,
) -> TransformEntry:
    """Compile the transform for ``chains`` x ``draws`` samples and store it in the cache.

    If an identical entry is already stored, nothing is compiled and the stored entry is
    returned with ``cached=True``. ``model_name`` labels the entry for ``inspect`` (default:
    ``model.name``); it is not part of the key.

    ``strategy="auto"`` (the default) compiles candidates and keeps the fastest whose
    predicted peak fits ``memory_budget`` (bytes, "12GiB", a fraction of the device's free
    memory, or None for 80% of it); if none fits it raises ``MemoryBudgetError``.
    """
    store = cache if isinstance(cache, CacheStore) else CacheStore(cache)
    fp = fingerprint_model(model)
    values = value_signature(model, fp, chains, draws)
    request = make_request(
        model,
        values,
        strategy=strategy,
        batch_size=batch_size,
        var_names=var_names,
        keep_untransformed=keep_untransformed,
        log_likelihood=log_likelihood,
        backend=backend,
        fingerprint=fp,
    )
    location = str(store.directory)
    if request.strategy.name == "auto":
        from .auto import resolve_auto
        from .budget import resolve_budget

        budget = resolve_budget(memory_budget, request.device)
        result = resolve_auto(model, request, budget, store, progress, model_name)
        stored = store.metadata(request.key.digest) is not None
        return TransformEntry.from_metadata(
            result.metadata, request.key, cached=result.cached, stored=stored, location=location
        )
    found = store.get(request.key.digest)  # verifies metadata and executable in one read
    if found is not None:
        return TransformEntry.from_metadata(found[1], request.key, cached=True, stored=True, location=location)
    compiled, stored = compile_and_store(model, request, store, progress, model_name)
    meta = compiled.metadata(model_name or fp.model_name)
    return TransformEntry.from_metadata(meta, request.key, cached=False, stored=stored, location=location)
