"""The executables a process has loaded: memo, stores, counters, and one compile per digest."""

from __future__ import annotations

import contextlib
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...aot.build import loader
from ...aot.build.entries import TransformEntry
from ...aot.build.options import RequestOptions
from ...aot.build.request import TransformRequest, make_request, match_floatx, value_signature
from ...aot.choice.resolve import resolve
from ...aot.identity.fingerprint import ModelFingerprint, fingerprint_model
from ...aot.identity.spec import OutputSpec
from ...cache import CacheStore
from ...cache.entry import EntryMetadata
from ..streams.sharded_input import place_arguments
from ..streams.streaming import run_loaded
from .counters import RuntimeCounters
from .digest_locks import DigestLocks
from .loaded_transform import LoadedTransform
from .logs import describe, log, show_beside_pymc
from .phases import Phases
from .validate import check_full_shapes, check_samples, order_samples

if TYPE_CHECKING:
    from ..streams.zarr_store import OutPath, ZarrWriter

show_beside_pymc()

MEMO_SIZE = 64


class _CompileLog:
    """Progress that says, once, that a compile started (a hit says nothing)."""

    def __init__(self, request: TransformRequest) -> None:
        self.request = request
        self.started: float | None = None

    def __call__(self, step: str) -> None:
        if self.started is None:
            self.started = time.perf_counter()
            log.info("pymc-aot: %s: cache miss, compiling; later runs will reuse it", describe(self.request))
        log.debug("pymc-aot: %s", step)


def _log_outcome(request: TransformRequest, entry: TransformEntry, started: float | None) -> None:
    if started is None:
        log.info("pymc-aot: %s: cache hit (%s)", describe(request), entry.location or "disk")
    else:
        stored = "stored" if entry.stored else "not stored"
        log.info("pymc-aot: %s: compiled in %.2f s, %s", describe(request), time.perf_counter() - started, stored)


def _close_stores(stores: dict[str, CacheStore]) -> None:
    for store in stores.values():
        store.close()
    stores.clear()


class TransformCache:
    """Executables loaded in this process, the stores they came from, and what happened.

    A lookup goes memo, then store, then compile. One digest is resolved by one thread at a
    time; a thread that waited looks in the memo again first (somebody else may have
    compiled it for us), as PyTensor's ``ModuleCache.module_from_key`` does.
    """

    def __init__(self, memo_size: int = MEMO_SIZE) -> None:
        self.memo_size = memo_size
        self.counters = RuntimeCounters()
        self._memo: OrderedDict[str, LoadedTransform] = OrderedDict()
        self._stores: dict[str, CacheStore] = {}
        self._lock = threading.Lock()  # guards memo, stores and counters
        self._resolving = DigestLocks()
        self._runs, self._stale = 0, set[str]()  # see :meth:`run_scope`
        weakref.finalize(self, _close_stores, self._stores)  # stores closed when the cache is dropped

    def store(self, cache: CacheStore | str | None = None) -> CacheStore:
        """The store for ``cache``: an instance, a directory, or None for the default root."""
        if isinstance(cache, CacheStore):
            return cache
        store = CacheStore(cache)
        with self._lock:
            return self._stores.setdefault(str(store.directory), store)

    def clear(self) -> None:
        """Forget every executable loaded in this process (the disk cache is untouched)."""
        with self._lock:
            self._memo.clear()

    def close(self) -> None:
        """Forget the executables and close the stores this cache opened."""
        with self._lock:
            self._memo.clear()
            _close_stores(self._stores)

    def _recall(self, digest: str, request: TransformRequest) -> LoadedTransform | None:
        with self._lock:
            loaded = self._memo.get(digest)
            if loaded is None or not loaded.fits(request):
                return None
            self._memo.move_to_end(digest)
            self.counters.memo_hits += 1
            self.counters.record("memo", digest)
            log.debug("pymc-aot: %s: in memory", describe(request))
            return loaded

    def _remember(self, digest: str, loaded: LoadedTransform) -> LoadedTransform:
        with self._lock:
            self._memo[digest] = loaded
            self._memo.move_to_end(digest)
            while len(self._memo) > self.memo_size:
                self._memo.popitem(last=False)
        return loaded

    def adopt(self, entry: TransformEntry) -> None:
        """Remember ``entry``'s live executable (just compiled, e.g. by ``pm.sample``'s
        preflight) under its digest, as a lookup would after loading it; an entry without
        one (read from the store) changes nothing."""
        if entry.executable is not None:
            self._remember(entry.digest, LoadedTransform(entry.executable, entry.metadata))

    def forget(self, digest: str) -> None:
        """Drop ``digest`` from the memo (its stored entry changed: the next lookup reads it); inside
        a :meth:`run_scope`, when the last one ends."""
        with self._lock:
            if self._runs:
                self._stale.add(digest)
            else:
                self._memo.pop(digest, None)

    @contextlib.contextmanager
    def run_scope(self) -> Iterator[None]:
        """One ``pm.sample`` call: its postprocessing runs the executable its preflight compiled and
        checked against the budget, even if ``auto``'s background jobs meanwhile store the complete
        choice under the same digest (their :meth:`forget` waits for the scope's end). Which one ran
        had depended on the jobs' timing (both equal PyMC's numbers, not always to the bit: a
        ``batched(1)`` differs by rounding on some models), and reading the new choice back cost a
        read and a deserialization (~35 ms on wide_hierarchical) on the run's critical path."""
        with self._lock:
            self._runs += 1
        try:
            yield
        finally:
            with self._lock:
                self._runs -= 1
                if not self._runs:
                    for digest in self._stale:
                        self._memo.pop(digest, None)
                    self._stale.clear()

    def knows(self, digest: str, store: CacheStore | None) -> bool:
        """Whether ``digest`` is loaded here or stored (no executable is read)."""
        with self._lock:
            if digest in self._memo:
                return True
        return store is not None and store.metadata(digest) is not None

    def count(self, entry: TransformEntry, preflight: bool = False) -> None:
        """Count ``entry``'s compiles (an ``auto`` entry's candidates too), or one disk hit."""
        with self._lock:
            if entry.compiles:
                self.counters.compiles += entry.compiles
                self.counters.preflight_compiles += entry.compiles if preflight else 0
                self.counters.record("compile", entry.digest)
            else:
                self.counters.disk_hits += 1
                self.counters.record("disk", entry.digest)

    def count_later(self, compiles: int) -> None:
        """Count what ``auto`` compiled behind a preflight, in the background (``aot.choice.auto_later``)."""
        with self._lock:
            self.counters.compiles += compiles
            self.counters.preflight_compiles += compiles

    def load(
        self, request: TransformRequest, store: CacheStore | None, phases: Phases | None = None
    ) -> LoadedTransform:
        """The executable for ``request``: from this process, the store, or a fresh compile.

        With ``phases``, the store's hit record is left in ``phases.later`` for the caller."""
        digest = request.key.digest
        loaded = self._recall(digest, request)
        if loaded is not None:
            return loaded
        steps = phases or Phases()
        with self._resolving.hold(digest):
            loaded = self._recall(digest, request)  # maybe somebody else compiled it for us
            if loaded is None:
                loaded = self._remember(digest, self._load_entry(request, store, steps))
        if phases is None:
            steps.finish()
        return loaded

    def _load_entry(self, request: TransformRequest, store: CacheStore | None, phases: Phases) -> LoadedTransform:
        digest, progress = request.key.digest, _CompileLog(request)
        entry = resolve(request, store, progress)
        phases.mark("read" if entry.cached else "compile")
        try:
            executable = _executable(entry, request.device)
        except Exception as exc:  # a stored executable this jax cannot load is dropped and rebuilt
            if store is None:
                raise
            log.warning("pymc-aot: cache entry %s could not be loaded (%s); rebuilding", digest[:12], exc)
            store.delete(digest)
            entry = resolve(request, store, progress)
            executable = _executable(entry, request.device)
        phases.mark("deserialize")
        if entry.cached and store is not None:
            phases.later.append(lambda: store.record_hit_later(digest))  # a write: after the call, in the background
        self.count(entry)
        _log_outcome(request, entry, progress.started)
        return LoadedTransform(executable, entry.metadata)

    def run(
        self,
        model: Any,
        samples: Sequence[Any] | Mapping[str, Any],
        options: RequestOptions | None = None,
        *,
        cache: CacheStore | str | None = None,
        use_cache: bool = True,
        fingerprint: ModelFingerprint | None = None,
        spec: OutputSpec | None = None,
        out: OutPath | None = None,
        **changes: Any,
    ) -> dict[str, Any]:
        """Validate ``samples``, find or build the executable, run it (options as ``postprocess``;
        ``changes``: options as keywords, see :class:`~pymc_aot.aot.build.options.RequestOptions`)."""
        phases = Phases()
        match_floatx()  # before samples are cast or put on the device
        target = _checked_target(out) if out is not None else None
        store = self.store(cache) if use_cache else None
        fp = fingerprint or fingerprint_model(model)
        phases.mark("fingerprint")
        static = [tuple(model.rvs_to_values[rv].type.shape) for rv in model.free_RVs]
        arrays, sig = check_samples(order_samples(samples, fp), fp, static)
        phases.mark("samples")
        opts = (options or RequestOptions()).replace(**changes, to_disk=target is not None)
        request = make_request(model, sig, opts, fingerprint=fp, spec=spec)
        phases.mark("key")
        if any(None in s for s in static) and not self.knows(request.key.digest, store):
            check_full_shapes(sig, value_signature(model, fp, *sig[0][1][:2]))
        return self.execute(request, arrays, store, target, phases)

    def execute(
        self,
        request: TransformRequest,
        arrays: Sequence[Any],
        store: CacheStore | None,
        target: Path | None = None,
        phases: Phases | None = None,
    ) -> dict[str, Any]:
        """Run ``request``'s executable (memo, store or compile) on validated ``arrays`` and its data,
        into the Zarr store at ``target`` if given."""
        phases = phases or Phases()
        match_floatx()  # before anything is put on the device
        loaded = self.load(request, store, phases)
        fp = request.fingerprint
        data = [fp.data[i].get_value(borrow=True) for i in loaded.data_indices]
        args, data = place_arguments(loaded.executable, loaded.metadata, request.device, arrays, data)
        sink = _zarr_sink(target, loaded.metadata) if target is not None else None
        result = run_loaded(loaded.executable, loaded.metadata, [*args, *data], sink)
        phases.mark("call")
        phases.finish("record hit")
        self.counters.last_phases = phases.seconds
        return result


def _checked_target(out: OutPath) -> Path:
    from ..streams.zarr_store import check_target  # only with out=: not on a hit's import path

    return check_target(out)


def _zarr_sink(target: Path, meta: EntryMetadata) -> ZarrWriter:
    from ..streams.zarr_store import ZarrWriter

    info = {"outputs": list(meta.output_names), "strategy": meta.label, "digest": meta.digest}
    batch = meta.stream_batch // meta.device_count if meta.stream_batch else meta.draws  # one device's piece
    return ZarrWriter(target, meta.kind, meta.output_names, meta.result_shapes, batch, info)


def _executable(entry: TransformEntry, device: Any) -> Any:
    if entry.executable is not None:
        return entry.executable
    meta = entry.metadata
    return loader.load_executable(entry.payload, meta.n_args, len(meta.output_names), device, meta.mesh_devices)
