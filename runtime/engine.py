"""Lookup-or-compile and run: the runtime behind ``postprocess``."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jax

from ..aot import compiler
from ..aot.fingerprint import ModelFingerprint, fingerprint_model
from ..aot.precompile import TransformRequest, compile_and_store, make_request, value_signature
from ..aot.spec import OutputSpec
from ..aot.strategies import Strategy
from ..cache import CacheStore
from .validate import check_full_shapes, check_samples, order_samples

log = logging.getLogger("pymc_aot")

MEMO_SIZE = 64


@dataclass(frozen=True)
class LoadedTransform:
    """An executable in this process, with what is needed to call it."""

    executable: Any
    output_names: tuple[str, ...]
    data_indices: tuple[int, ...]
    source: str  # "compiled" or "disk"
    peak: int | None = None  # for auto entries: the chosen strategy's predicted peak


@dataclass
class RuntimeCounters:
    """What the runtime did in this process (for tests and for the curious)."""

    memo_hits: int = 0
    disk_hits: int = 0
    compiles: int = 0
    last_source: str = ""
    events: list[tuple[str, str]] = field(default_factory=list)

    def record(self, what: str, digest: str) -> None:
        self.last_source = what
        self.events.append((what, digest))
        if len(self.events) > 1000:
            del self.events[:500]


COUNTERS = RuntimeCounters()
_MEMO: OrderedDict[str, LoadedTransform] = OrderedDict()
_LOCK = threading.Lock()
_STORES: dict[str, CacheStore] = {}


def clear_memo() -> None:
    """Forget every executable loaded in this process (the disk cache is untouched)."""
    with _LOCK:
        _MEMO.clear()


def get_store(cache: CacheStore | str | None) -> CacheStore:
    """The store for ``cache``: an instance, a directory, or None for the default root."""
    if isinstance(cache, CacheStore):
        return cache
    store = CacheStore(cache)
    return _STORES.setdefault(str(store.directory), store)


def _remember(digest: str, loaded: LoadedTransform) -> LoadedTransform:
    with _LOCK:
        _MEMO[digest] = loaded
        _MEMO.move_to_end(digest)
        while len(_MEMO) > MEMO_SIZE:
            _MEMO.popitem(last=False)
    return loaded


def load_or_compile(
    model: Any, request: TransformRequest, store: CacheStore | None, budget: int | None = None
) -> LoadedTransform:
    """The executable for ``request``: from this process, the disk cache, or a fresh compile.

    ``budget`` (bytes) is only used by ``auto`` requests.
    """
    digest = request.key.digest
    with _LOCK:
        loaded = _MEMO.get(digest)
        if loaded is not None:
            _MEMO.move_to_end(digest)
    if loaded is not None and (budget is None or loaded.peak is None or loaded.peak <= budget):
        COUNTERS.memo_hits += 1
        COUNTERS.record("memo", digest)
        return loaded
    if request.strategy.name == "auto":
        return _load_auto(model, request, store, budget)
    found = store.get(digest) if store is not None else None
    if found is not None:
        payload, meta = found
        try:
            executable = compiler.load_executable(
                payload, int(meta["n_args"]), len(meta["output_names"]), request.device
            )
        except Exception as exc:  # noqa: BLE001 - a stored executable this jax cannot load is rebuilt
            log.warning("pymc-aot: cache entry %s could not be loaded (%s); rebuilding", digest[:12], exc)
            store.delete(digest)
        else:
            store.record_hit(digest)
            COUNTERS.disk_hits += 1
            COUNTERS.record("disk", digest)
            return _remember(
                digest,
                LoadedTransform(executable, tuple(meta["output_names"]), tuple(meta["data_indices"]), "disk"),
            )
    t0 = time.perf_counter()
    log.info(
        "pymc-aot: compiling the %s transform (%s) of model %r; later runs will reuse it",
        request.spec.kind,
        request.strategy.label,
        request.fingerprint.model_name,
    )
    compiled, _ = compile_and_store(model, request, store)
    COUNTERS.compiles += 1
    COUNTERS.record("compile", digest)
    log.info("pymc-aot: compiled in %.2f s", time.perf_counter() - t0)
    return _remember(
        digest, LoadedTransform(compiled.executable, compiled.output_names, compiled.data_indices, "compiled")
    )


def _load_auto(model: Any, request: TransformRequest, store: CacheStore | None, budget: int | None) -> LoadedTransform:
    from ..aot.auto import resolve_auto
    from ..aot.budget import resolve_budget

    digest = request.key.digest
    budget = resolve_budget(budget, request.device) if budget is None else budget
    result = resolve_auto(model, request, budget, store)
    meta = result.metadata
    COUNTERS.compiles += result.compiles
    if result.executable is not None:
        executable, source = result.executable, "compile"
    else:
        assert result.payload is not None
        executable = compiler.load_executable(
            result.payload, int(meta["n_args"]), len(meta["output_names"]), request.device
        )
        source = "disk" if result.compiles == 0 else "compile"
        if result.cached and store is not None:
            store.record_hit(digest)
    if source == "disk":
        COUNTERS.disk_hits += 1
    COUNTERS.record(source, digest)
    loaded = LoadedTransform(
        executable, tuple(meta["output_names"]), tuple(meta["data_indices"]), source, int(meta["auto"]["peak"])
    )
    return _remember(digest, loaded)


def run_transform(
    model: Any,
    samples: Sequence[Any] | Mapping[str, Any],
    *,
    strategy: str | Strategy,
    batch_size: int | None = None,
    backend: str | None = None,
    cache: CacheStore | str | None = None,
    use_cache: bool = True,
    fingerprint: ModelFingerprint | None = None,
    spec: OutputSpec | None = None,
    var_names: Sequence[str] | None = None,
    keep_untransformed: bool = False,
    log_likelihood: bool = False,
    memory_budget: int | float | str | None = None,
) -> dict[str, Any]:
    """Validate ``samples``, find or build the executable, run it."""
    fp = fingerprint or fingerprint_model(model)
    arrays = order_samples(samples, fp)
    static = [tuple(model.rvs_to_values[rv].type.shape) for rv in model.free_RVs]
    arrays, sig = check_samples(arrays, fp, static)
    request = make_request(
        model,
        sig,
        strategy=strategy,
        batch_size=batch_size,
        var_names=var_names,
        keep_untransformed=keep_untransformed,
        log_likelihood=log_likelihood,
        backend=backend,
        fingerprint=fp,
        spec=spec,
    )
    store = get_store(cache) if use_cache else None
    digest = request.key.digest
    if digest not in _MEMO and (store is None or store.metadata(digest) is None):
        if any(None in s for s in static):
            check_full_shapes(sig, value_signature(model, fp, sig[0][1][0], sig[0][1][1]))
    budget = None
    if request.strategy.name == "auto":
        from ..aot.budget import resolve_budget

        budget = resolve_budget(memory_budget, request.device)
    loaded = load_or_compile(model, request, store, budget)
    device = request.device
    args = [jax.device_put(a, device) for a in arrays]
    data = [jax.device_put(fp.data[i].get_value(borrow=True), device) for i in loaded.data_indices]
    outs = loaded.executable(*args, *data)
    return dict(zip(loaded.output_names, outs, strict=True))


def postprocess(
    model: Any,
    samples: Sequence[Any] | Mapping[str, Any],
    *,
    strategy: str = "auto",
    batch_size: int | None = None,
    var_names: Sequence[str] | None = None,
    keep_untransformed: bool = False,
    log_likelihood: bool = False,
    backend: str | None = None,
    cache: CacheStore | str | None = None,
    memory_budget: int | float | str | None = None,
) -> dict[str, Any]:
    """Postprocess raw draws with a cached, ahead-of-time compiled executable.

    ``samples``: one array per value variable, shaped ``(chains, draws, *shape)``, as a list
    in ``model.value_vars`` order or a dict by value-variable name.

    Returns the posterior variables as ``pm.sample`` would (``var_names``,
    ``keep_untransformed``), or, with ``log_likelihood=True``, the pointwise log-likelihood
    of every observed variable (as PyMC's ``_get_log_likelihood``).

    ``strategy="auto"`` (the default) picks the fastest strategy whose predicted peak fits
    ``memory_budget`` (see ``aot.precompile``). The ``vmap`` strategy donates its inputs, as
    PyMC does: jax arrays passed to it are consumed (numpy arrays are copied to the device
    first and stay intact).
    """
    return run_transform(
        model,
        samples,
        strategy=strategy,
        batch_size=batch_size,
        backend=backend,
        cache=cache,
        var_names=var_names,
        keep_untransformed=keep_untransformed,
        log_likelihood=log_likelihood,
        memory_budget=memory_budget,
    )


def log_likelihood(model: Any, samples: Sequence[Any] | Mapping[str, Any], **options: Any) -> dict[str, Any]:
    """Pointwise log-likelihood of the observed variables; same options as ``postprocess``."""
    return postprocess(model, samples, log_likelihood=True, **options)
