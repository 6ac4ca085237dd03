"""A sampler's programs: read from the store and loaded, or compiled (once) and stored.

A hit imports neither PyTensor's JAX dispatch nor the sampler library: :mod:`.build` is
imported only when something is missing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...cache import CacheStore
from ...cache.entry import EntryMetadata
from ..build.loader import load_executable
from ..identity.fingerprint import ModelFingerprint
from .key import PROGRAMS, SamplerKey

log = logging.getLogger("pymc_aot")


@dataclass(frozen=True)
class LoadedProgram:
    """One program ready to run: its executable, metadata, and whether it came from the store."""

    key: SamplerKey = field(repr=False)
    metadata: EntryMetadata = field(repr=False)
    executable: Any = field(repr=False)
    cached: bool

    def __call__(self, *args: Any) -> Sequence[Any]:
        """The program's outputs, flat (``logp``'s too: one array in a tuple, compiled or loaded)."""
        if self.metadata.mesh_devices:  # chains split over devices: arguments where it reads them
            import jax

            wanted = self.executable.input_shardings[0]
            args = tuple(
                a if isinstance(a, jax.Array) and a.sharding.is_equivalent_to(s, a.ndim) else jax.device_put(a, s)
                for a, s in zip(args, wanted, strict=True)
            )
        return self.executable(*args)


def load_stored(store: CacheStore, key: SamplerKey, device: Any) -> LoadedProgram | None:
    """The stored program of ``key``, verified and deserialized; None on a miss (or a broken entry,
    then dropped)."""
    found = store.get(key.digest)
    if found is None:
        return None
    payload, doc = found
    try:
        meta = EntryMetadata.from_json(doc)
        if meta.key != key.parts():
            raise ValueError("its stored key differs from the one asked for")
        exe = load_executable(payload, meta.n_args, len(meta.output_names), device, meta.mesh_devices)
    except Exception as exc:  # noqa: BLE001 - an entry that does not load is rebuilt, never trusted
        log.warning("pymc-aot: sampler entry %s not usable (%s); rebuilding", key.digest[:12], exc)
        store.delete(key.digest)
        return None
    store.record_hit_later(key.digest)
    return LoadedProgram(key, meta, exe, cached=True)


_LOWER_ORDER = {"logp": 0, "chunk": 1, "init": 2}
"""The order a cold run lowers its missing programs in (see :func:`fetch_or_compile`)."""

_LAST_BUILD: list[Any] = []
"""The last model's build: a cold run asks for its ``logp`` program (the start points' check)
and then for ``init`` and ``chunk``; one jaxify of the model's logp serves all three."""


def _build_for(model: Any, fingerprint: ModelFingerprint, make: Any) -> Any:
    last = _LAST_BUILD[0] if _LAST_BUILD else None
    if last is not None and last.model is model and last.fingerprint.model_hash == fingerprint.model_hash:
        return last
    _LAST_BUILD[:] = [make(model, fingerprint)]
    return _LAST_BUILD[0]


def jaxify_ahead(model: Any, fingerprint: ModelFingerprint) -> None:
    """Jaxify the model's logp now, into the build :func:`fetch_or_compile` then uses."""
    from .build import SamplerBuild

    _build_for(model, fingerprint, SamplerBuild).logp()


def fetch_or_compile(
    model: Any,
    fingerprint: ModelFingerprint,
    keys: Iterable[SamplerKey],
    store: CacheStore,
    device: Any,
    model_name: str = "",
    on_ready: Callable[[LoadedProgram], None] | None = None,
    on_lowered: Callable[[], None] | None = None,
    before_compile: Callable[[], bool] | None = None,
) -> dict[str, LoadedProgram]:
    """Every program of ``keys``, by program name; the missing ones compiled from one logp build.
    ``on_ready`` is handed each compiled program as soon as it is stored (before later ones finish);
    ``on_lowered`` is called once the last missing program is lowered (what is left is XLA's work,
    which releases the GIL), or at once when nothing is missing. ``before_compile`` is asked (in the
    compile's thread: the next lowering does not wait) before each compile; False: not compiled."""
    stored = [(key, load_stored(store, key, device)) for key in keys]
    assert all(key.program in PROGRAMS for key, _ in stored)
    found: dict[str, LoadedProgram] = {key.program: loaded for key, loaded in stored if loaded is not None}
    missing = [key for key, loaded in stored if loaded is None]
    if missing:
        from concurrent.futures import ThreadPoolExecutor

        from .build import SamplerBuild, finish_program, lower_program

        build, name = _build_for(model, fingerprint, SamplerBuild), model_name or fingerprint.model_name

        def collect(pending: list[tuple[SamplerKey, Any]], wait: bool) -> list[tuple[SamplerKey, Any]]:
            left = []
            for key, future in pending:
                if not wait and not future.done():
                    left.append((key, future))
                    continue
                compiled = future.result()
                if compiled is None:  # refused: nothing compiled, nothing stored
                    continue
                store.put(key.digest, compiled.payload, compiled.metadata.to_json())
                found[key.program] = LoadedProgram(key, compiled.metadata, compiled.executable, cached=False)
                if on_ready is not None:
                    on_ready(found[key.program])
            return left

        # each program lowered here, then compiled in its own thread while the next one lowers:
        # XLA releases the GIL. logp first (short, and PyMC's start-point check asks for it), then
        # chunk (the longest to lower and to compile), then init, whose lowering and compile overlap
        # chunk's compile instead of delaying its start (wide_hierarchical: init's lowering 0.6 s)
        missing.sort(key=lambda k: _LOWER_ORDER[k.program])
        with ThreadPoolExecutor(max_workers=len(missing), thread_name_prefix="pymc-aot-compile") as pool:
            pending: list[tuple[SamplerKey, Any]] = []
            for key in missing:
                pending = collect(pending, wait=False)  # those compiled meanwhile (the logp) go out first
                lowered = lower_program(build, key, name)
                pending.append((key, pool.submit(_gated, before_compile, finish_program, lowered)))
            if on_lowered is not None:
                on_lowered()
            collect(pending, wait=True)
    elif on_lowered is not None:
        on_lowered()
    return found


def _gated(before_compile: Callable[[], bool] | None, finish: Callable[[Any], Any], lowered: Any) -> Any:
    """``finish(lowered)`` once ``before_compile`` allows it (None: at once); None if it refuses."""
    if before_compile is not None and not before_compile():
        return None
    return finish(lowered)
