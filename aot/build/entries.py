"""A concrete request's entry: read from the store, or compiled and stored.

Every compile goes through ``compiler.compile_transform``, looked up when called (tests
replace it to see or forbid compiles). :mod:`.compiler` is imported only then: it brings
PyTensor's JAX dispatch and numpyro, which a hit never needs.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...cache import CacheStore
from ...cache.entry import EntryMetadata
from ...cache.xla_stats import CostStats, MemoryStats
from ..identity.key import TransformKey
from .request import Progress, TransformRequest

if TYPE_CHECKING:
    from ...render import Table
    from .graph import TransformGraph

log = logging.getLogger("pymc_aot")


@dataclass(frozen=True, repr=False)  # its own __repr__ below
class TransformEntry:
    """A request's entry: its metadata, where it came from, and its executable.

    ``cached``: found in the store, nothing compiled. ``stored``: in the store now.
    ``compiles``: executables compiled to produce it (``auto`` compiles its candidates).
    ``executable`` is live when it was just compiled; otherwise ``payload`` is to be loaded.
    """

    key: TransformKey = field(repr=False)
    metadata: EntryMetadata = field(repr=False)
    cached: bool
    stored: bool
    location: str
    compiles: int = 0
    payload: bytes = field(default=b"", repr=False)
    executable: Any = field(default=None, repr=False)

    def table(self) -> Table:
        """The entry as ``pymc-aot precompile`` prints it (see ``pymc_aot.render``)."""
        from ...render import entry_table  # display only: not on a hit's import path

        where = f"stored in {self.location}" if self.stored else f"not stored (cache: {self.location or 'none'})"
        return entry_table([self], f"{self.metadata.chains} chains x {self.metadata.draws} draws; {where}")

    def __str__(self) -> str:
        return self.table().text()

    __repr__ = __str__  # a terminal shows the same table as the CLI

    def _repr_html_(self) -> str:
        return self.table().html()

    @property
    def digest(self) -> str:
        return self.key.digest

    @property
    def strategy(self) -> str:
        """``batched(10)``, ``auto:scan_vmap`` or the strategy's name."""
        return self.metadata.label

    @property
    def model_name(self) -> str:
        return self.metadata.model_name

    @property
    def memory(self) -> MemoryStats:
        return self.metadata.memory

    @property
    def cost(self) -> CostStats:
        return self.metadata.cost

    @property
    def timings(self) -> dict[str, float]:
        """Compile seconds by phase, and ``total``."""
        return self.metadata.timings.as_dict()


def _location(store: CacheStore | None) -> str:
    return str(store.directory) if store is not None else ""


def _typed(store: CacheStore, digest: str, doc: dict[str, Any]) -> EntryMetadata | None:
    try:
        return EntryMetadata.from_json(doc)
    except ValueError as exc:
        log.warning("pymc-aot: dropped cache entry %s: %s; it will be rebuilt", digest[:12], exc)
        store.delete(digest)
        return None


def read_metadata(store: CacheStore | None, digest: str) -> EntryMetadata | None:
    """The stored metadata of ``digest``, verified and typed; None if absent or unreadable."""
    if store is None:
        return None
    doc = store.metadata(digest)
    return None if doc is None else _typed(store, digest, doc)


def read_entry(store: CacheStore | None, key: TransformKey) -> TransformEntry | None:
    """The stored entry of ``key`` with its executable bytes, verified; None on a miss."""
    found = store.get(key.digest) if store is not None else None
    if found is None:
        return None
    assert store is not None
    payload, doc = found
    metadata = _typed(store, key.digest, doc)
    if metadata is None:
        return None
    return TransformEntry(key, metadata, cached=True, stored=True, location=_location(store), payload=payload)


def compile_and_store(
    request: TransformRequest,
    store: CacheStore | None,
    progress: Progress | None = None,
    graph: TransformGraph | None = None,
    *,
    requested: bool = False,
) -> TransformEntry:
    """Compile ``request`` and store it (when there is a store); ``requested``: the user named
    its strategy (an ``auto`` candidate is not requested)."""
    from . import compiler

    compiled = compiler.compile_transform(request, graph=graph, progress=progress)
    metadata = dataclasses.replace(compiled.metadata, requested=True) if requested else compiled.metadata
    stored = False
    if not compiled.payload:
        _warn_unstorable(request)
    elif store is not None:
        if progress:
            progress("storing")
        stored = store.put(request.key.digest, compiled.payload, metadata.to_json())
    return TransformEntry(
        request.key,
        metadata,
        cached=False,
        stored=stored,
        location=_location(store),
        compiles=1,
        payload=compiled.payload,
        executable=compiled.executable,
    )


_warned_unstorable: set[str] = set()


def _warn_unstorable(request: TransformRequest) -> None:
    """One warning per model: its executable holds host callbacks and is run without being stored."""
    model = request.fingerprint.model_hash
    if model not in _warned_unstorable:
        _warned_unstorable.add(model)
        import warnings

        warnings.warn(
            f"pymc-aot: the transform of model {request.model_name or '(unnamed)'!r} calls back into Python "
            "(jax.pure_callback) and cannot be stored; it runs uncached",
            stacklevel=3,
        )


def fetch_or_compile(
    request: TransformRequest, store: CacheStore | None, progress: Progress | None = None
) -> TransformEntry:
    """The stored entry of a concrete ``request``, or a fresh compile of it, stored as requested."""
    return read_entry(store, request.key) or compile_and_store(request, store, progress, requested=True)
