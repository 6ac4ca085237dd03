"""Load the compiled sampler's stored programs while PyMC prepares the run.

Between ``sample_jax_nuts``'s call and its sampler call PyMC does work of its own: the
postprocessing's preflight, the jittered initial points (a PyTensor function built and run).
The programs the sampler needs (``logp``, ``init``, ``chunk``: the last is megabytes of machine
code) do not depend on any of it: their keys follow from the call's arguments and the model.
``prefetch`` computes those keys and starts one thread that deserializes the stored programs
into the session's memo (XLA releases the GIL while it links them) and compiles the eager JAX
programs that split the chains' keys, so the first draw does not wait for either.
On a miss (a cold run, new data shapes) the same thread compiles and stores the missing programs
(``session.compile_ahead``): their XLA compiles, seconds on a large model, then run beside
PyMC's own preparation instead of after it.
On a miss the thread waits until the preflight has lowered its transform (even the chain
keys' short compile: Python work under the one GIL stretched the preflight), and compiles only
once the preflight's verdict is in (a refused call compiles no sampler); ``auto``'s background
candidates (:mod:`pymc_aot.aot.choice.auto_later`) are held until the sampler's programs are
lowered: their Python work would stretch the lowering on the first draw's path; their compiles
then run beside the sampler's (XLA's, outside the GIL), before sampling rather than during it,
where they had slowed the chains (wide_hierarchical, three runs each: 4.0 s of sampling, median,
with the candidates held through it; 4.7 s with them running beside the chains).
Only a hint: a key that differs from the one the sampler asks for, or any failure here, leaves
the work to the sampler's own call, which does it as before.
"""

from __future__ import annotations

import inspect
import threading
from typing import Any

import numpy as np

from ..pymc.hook_state import STATE


def _point(model: Any) -> tuple[tuple[str, tuple[int, ...], str], ...]:
    """Name, shape and dtype of each value variable, in ``model.free_RVs`` order (no compile)."""
    from ...aot.build.value_shapes import value_shapes

    values = [model.rvs_to_values[rv] for rv in model.free_RVs]
    shapes = value_shapes(model)
    return tuple((v.name, tuple(shape), str(v.dtype)) for v, shape in zip(values, shapes, strict=True))


def _keys_and_chains(model: Any, sample_jax_nuts: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    from ...aot.sampler import SamplerSettings
    from .session import _fingerprint, sampler_keys

    bound = inspect.signature(sample_jax_nuts).bind(*args, **kwargs)
    bound.apply_defaults()
    arg = bound.arguments
    settings = SamplerSettings.make(
        arg["nuts_sampler"],
        arg["nuts_kwargs"],
        chains=arg["chains"],
        tune=arg["tune"],
        target_accept=arg["target_accept"],
        chain_method=arg["chain_method"],
        chunk=STATE.current().chunk_size,
    )
    keys = sampler_keys(model, settings, _point(model), ("logp", "init", "chunk"))
    return keys, settings, _fingerprint(model)  # the call's one walk (one_walk_per_model), for the thread


class Gate:
    """Opened by ``pm.sample``'s preflight (``runtime.pymc.preflight``) in two steps: once its
    (last) transform is lowered (:meth:`lower`), a compile ahead may start its Python work (keys,
    lowering) beside XLA's compile of that transform; with the verdict (:meth:`open`), it may
    compile, unless the preflight refused the call. Before the first step the two would stretch
    each other under the one GIL; a refused call compiles no sampler."""

    def __init__(self) -> None:
        self._lowering, self._verdict, self._go = threading.Event(), threading.Event(), False

    def lower(self) -> None:
        self._lowering.set()

    def open(self, go: bool) -> None:
        """The verdict (the first one counts)."""
        if not self._verdict.is_set():
            self._go = go
            self._verdict.set()
        self._lowering.set()

    def may_lower(self) -> bool:
        """Wait for the first step; False if the call is already refused."""
        self._lowering.wait()
        return not self._verdict.is_set() or self._go

    def wait(self) -> bool:
        """Wait for the verdict; whether the call goes on."""
        self._verdict.wait()
        return self._go


class _Once:
    """Ends the cold run's hold on ``auto``'s background jobs once, whichever comes first: the
    sampler's programs all lowered, or the thread's end."""

    def __init__(self) -> None:
        self._lock, self._done = threading.Lock(), False

    def __call__(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
        from ...aot.choice import auto_later

        auto_later.release()


def _ahead(claimed: list[Any], sampler: str, chains: int, model: Any, fp: Any, gate: Gate | None, cold: bool) -> None:
    release = _Once() if cold else None  # auto's background compiles, held while the sampler's lower
    try:
        _load_or_compile(claimed, sampler, chains, model, fp, gate, release)
    finally:
        if release is not None:
            release()


def _load_or_compile(
    claimed: list[Any], sampler: str, chains: int, model: Any, fp: Any, gate: Gate | None, release: _Once | None
) -> None:
    cold = release is not None
    from .session import chain_keys, compile_ahead, load_ahead

    if cold and gate is not None and not gate.may_lower():  # a miss: nothing here before the preflight lowered
        _release_all(claimed)
        return
    try:  # first: short, and the sampler's call needs it as soon as its programs are in
        np.asarray(chain_keys(sampler, 0, chains))  # compiles (in this process) what the real seed reuses
    except Exception:  # noqa: BLE001 - only a hint: the sampler's own call does whatever is left
        pass
    missed = load_ahead(claimed, keep_missing=True)
    if not missed:
        return
    if gate is None or gate.may_lower():  # a cold run: compile while PyMC prepares its initial points
        compile_ahead(model, fp, missed, on_lowered=release, before_compile=gate.wait if gate is not None else None)
    else:
        _release_all(missed)


def _release_all(claimed: list[Any]) -> None:
    from .session import release

    for key, done in claimed:
        release(key, done)


def _jaxify_if_missing(model: Any, fp: Any, claimed: list[Any]) -> bool:
    """On a miss, the sampler's logp is jaxified here, on the calling thread, before the
    postprocessing's preflight: the process's first JAX graph pays PyTensor's JAX dispatch's first
    use (imports, registrations, first traces), as stock PyMC's sampler does before its
    postprocessing; the compile ahead then starts from it. True on a miss (then jaxified)."""
    try:
        from ...aot.sampler.resolve import jaxify_ahead
        from ..transforms.engine import get_store

        store = get_store(STATE.current().cache_dir)
        if any(store.metadata(key.digest) is None for key, _ in claimed):
            jaxify_ahead(model, fp)
            return True
    except Exception:  # noqa: BLE001 - only ahead of time: the compile (or the sampler's call) builds it
        pass
    return False


def prefetch(
    model: Any, sample_jax_nuts: Any, args: tuple[Any, ...], kwargs: dict[str, Any], gate: Gate | None = None
) -> threading.Thread | None:
    """Start loading, for ``sample_jax_nuts(*args, **kwargs)`` on ``model``, what its compiled
    sampler will need, and compiling what the store lacks once ``gate`` opens (at once if None);
    the thread (None if nothing was started)."""
    from .session import claim

    try:
        keys, settings, fp = _keys_and_chains(model, sample_jax_nuts, args, kwargs)
    except Exception:  # noqa: BLE001 - unknown options, an inexact model, ...: the sampler's call decides
        return None
    claimed = claim(keys)  # before the thread starts: the sampler's call waits for these, never races
    cold = _jaxify_if_missing(model, fp, claimed)
    if cold:  # auto's background compiles wait for the sampler's (aot.choice.auto_later)
        from ...aot.choice import auto_later

        auto_later.hold()
    thread = threading.Thread(
        target=_ahead,
        args=(claimed, settings.sampler, settings.chains, model, fp, gate, cold),
        name="pymc-aot-prefetch",
        daemon=False,
    )
    try:
        thread.start()
    except RuntimeError:  # no thread to be had: release the claims, the sampler's call loads
        _release_all(claimed)
        if cold:
            auto_later.release()
        return None
    return thread
