"""One compiled-sampler run inside ``pm.sample``: keys, programs (memo, store, compile), the loop."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ...aot.sampler import SamplerSettings, UnsupportedSettings, sampler_key
from ...aot.sampler.resolve import LoadedProgram, fetch_or_compile
from ..pymc.hook_state import STATE
from .counts import COUNTS, DONE, READY

_MEMO: dict[str, LoadedProgram] = {}
_LOCK = threading.Lock()
_PENDING: dict[str, threading.Event] = {}  # digest -> set once a load ahead (``load_ahead``) ended
_AHEAD: set[str] = set()  # loaded ahead and counted as loaded; not yet asked for


def _fingerprint(model: Any) -> Any:
    """The model's exact fingerprint (walked once per ``pm.sample`` call: the seam's
    ``one_walk_per_model``)."""
    from ...aot.build.request import match_floatx
    from ...aot.identity.fingerprint import fingerprint_model

    match_floatx()
    fp = fingerprint_model(model)
    if not fp.exact:
        raise UnsupportedSettings("the model holds code pymc-aot cannot describe: " + "; ".join(fp.reasons)[:200])
    return fp


def sampler_keys(model: Any, settings: SamplerSettings, point: Any, names: tuple[str, ...]) -> list[Any]:
    """The keys of the programs ``names`` for ``model`` on the default device."""
    import jax

    fp = _fingerprint(model)
    device = jax.devices()[0]
    return [sampler_key(fp, settings, point, device, name) for name in names]


def claim(keys: list[Any]) -> list[tuple[Any, threading.Event]]:
    """Mark the programs of ``keys`` not yet in this process as being loaded ahead (by
    ``load_ahead``); ``programs_for`` then waits for them rather than load them twice."""
    with _LOCK:
        fresh = [k for k in keys if k.digest not in _MEMO and k.digest not in _PENDING]
        return [(k, _PENDING.setdefault(k.digest, threading.Event())) for k in fresh]


def release(key: Any, done: threading.Event) -> None:
    """End a claim: ``programs_for`` stops waiting for it."""
    with _LOCK:
        if _PENDING.get(key.digest) is done:
            del _PENDING[key.digest]
    done.set()


Claim = tuple[Any, threading.Event]


def load_ahead(claimed: list[Claim], keep_missing: bool = False) -> list[Claim]:
    """Read and deserialize the claimed programs into this process's memo, in order; a miss or a
    failure is left to ``programs_for`` (which compiles). Every claim is released whatever
    happens, but with ``keep_missing`` those of the programs the store did not give, which are
    returned (the caller compiles them: :func:`compile_ahead`). Deserializing releases the GIL:
    a thread running this overlaps PyMC's own work."""
    missed: list[Claim] = []
    try:
        import jax

        from ...aot.sampler.resolve import load_stored
        from ..transforms.engine import get_store

        store, device = get_store(STATE.current().cache_dir), jax.devices()[0]
        for key, done in claimed:
            try:
                loaded = load_stored(store, key, device)
            except Exception:  # noqa: BLE001 - only ahead of time: programs_for tries again
                loaded = None
            if loaded is not None:
                _hand_over(loaded, "loaded")
            elif keep_missing:
                missed.append((key, done))
                continue
            release(key, done)
    finally:
        kept = {key.digest for key, _ in missed}
        for key, done in claimed:
            if key.digest not in kept:
                release(key, done)
    return missed


def _hand_over(program: LoadedProgram, how: str) -> None:
    """Into the memo, counted, marked as made ahead (not yet asked for)."""
    with _LOCK:
        _MEMO[program.key.digest] = program
        _AHEAD.add(program.key.digest)
        COUNTS[how] += 1


def compile_ahead(
    model: Any,
    fingerprint: Any,
    claimed: list[Claim],
    on_lowered: Callable[[], None] | None = None,
    before_compile: Callable[[], bool] | None = None,
) -> None:
    """Compile and store the claimed programs the store did not have (a cold run), here, while
    PyMC prepares its run on the calling thread (its initial points: ``prefetch`` starts this once
    the preflight has lowered its transform; the compiles wait for its verdict): each claim is
    released as soon as its program is in the memo (the ``logp`` first: PyMC's start-point check
    asks for it before the sampler does). ``on_lowered``, ``before_compile``: see
    ``fetch_or_compile``. Any failure releases the claims and leaves the work to ``programs_for``."""
    by_digest = {key.digest: done for key, done in claimed}
    try:
        import jax

        from ..transforms.engine import get_store

        def ready(program: LoadedProgram) -> None:
            _hand_over(program, "compiled")
            release(program.key, by_digest[program.key.digest])

        store = get_store(STATE.current().cache_dir)
        fetch_or_compile(
            model, fingerprint, [k for k, _ in claimed], store, jax.devices()[0], on_ready=ready, on_lowered=on_lowered,
            before_compile=before_compile,
        )
    except Exception:  # noqa: BLE001 - only ahead of time: programs_for compiles what is left
        pass
    finally:
        for key, done in claimed:
            release(key, done)


def programs_for(model: Any, settings: SamplerSettings, point: Any, names: tuple[str, ...]) -> dict[str, LoadedProgram]:
    """The programs ``names`` for ``model``: from this process, the store, or compiled now."""
    import jax

    from ..transforms.engine import get_store

    keys = sampler_keys(model, settings, point, names)
    with _LOCK:
        waiting = [_PENDING[k.digest] for k in keys if k.digest in _PENDING]
    for event in waiting:  # loading ahead in another thread: wait for it rather than load twice
        event.wait()
    with _LOCK:
        found = {k.program: _MEMO[k.digest] for k in keys if k.digest in _MEMO}
        COUNTS["memo"] += sum(1 for k in keys if k.program in found and k.digest not in _AHEAD)
        _AHEAD.difference_update(k.digest for k in keys)
        missing = [k for k in keys if k.program not in found]
        if missing:
            fp, store = _fingerprint(model), get_store(STATE.current().cache_dir)
            loaded = fetch_or_compile(model, fp, missing, store, jax.devices()[0])
            for program in loaded.values():
                _MEMO[program.key.digest] = program
                COUNTS["loaded" if program.cached else "compiled"] += 1
            found.update(loaded)
    return found


def _point(model: Any, values: list[Any], batched: bool) -> tuple[tuple[str, tuple[int, ...], str], ...]:
    names = [model.rvs_to_values[rv].name for rv in model.free_RVs]
    dtypes = [str(model.rvs_to_values[rv].dtype) for rv in model.free_RVs]
    shapes = [tuple(np.shape(v))[1 if batched else 0 :] for v in values]
    return tuple(zip(names, shapes, dtypes, strict=True))


def _data(model: Any, program: LoadedProgram) -> list[Any]:
    data = _fingerprint(model).data
    return [data[i].get_value(borrow=True) for i in program.metadata.data_indices]


def logp_at(model: Any, values: list[Any]) -> float:
    """The model's log density at one point, by the stored ``logp`` program."""
    settings = SamplerSettings("numpyro", 1, 0, 0.8)  # the logp key leaves the settings out
    program = programs_for(model, settings, _point(model, values, False), ("logp",))["logp"]
    dtypes = [np.dtype(d) for _, _, d in program.key.values]
    args = [np.asarray(v, dtype=d) for v, d in zip(values, dtypes, strict=True)]
    return float(program(*args, *_data(model, program))[0])


def _check_budget(chunk: LoadedProgram, draws: int) -> None:
    """Refuse, before sampling, a run that would not fit: the budget auto's preflight fixed for
    this call, else ``enable(memory_budget=...)``; no budget, no check."""
    from ...aot.build.request import resolve_device
    from ...aot.sampler.fit import check_sampler_fits
    from ...aot.strategies.budget import resolve_budget
    from ..pymc.hook_state import ACTIVE

    active = ACTIVE.get()
    budget = active.budget if active is not None else None
    options = STATE.current()
    if budget is None and options.memory_budget is not None:
        budget = resolve_budget(options.memory_budget, resolve_device(None))
    if budget is not None:
        check_sampler_fits(chunk.metadata, draws, budget, chunk.key.platform)


def chain_keys(sampler: str, random_seed: int, chains: int) -> Any:
    """The chains' PRNG keys, as PyMC makes them for ``sampler``."""
    import jax

    seed = jax.random.PRNGKey(random_seed)
    if sampler == "numpyro" and chains == 1:
        return np.asarray(seed)[None]  # PyMC hands numpyro one key for one chain
    return np.asarray(jax.random.split(seed, chains))


def _chain_split(chunk: LoadedProgram) -> Any:
    """Where the draws go: split along chains over the devices they ran on (as numpyro's ``pmap``
    leaves them, so a ``sharded`` postprocessing uses them there), else the default device (None)."""
    if not chunk.metadata.mesh_devices:
        return None
    from ...aot.sampler.parallel import mesh_of

    return mesh_of(tuple(chunk.metadata.mesh_devices), chunk.key.platform).sharding(True)


def run_compiled(
    sampler: str,
    *,
    model: Any,
    target_accept: float,
    tune: int,
    draws: int,
    chains: int,
    chain_method: str,
    progressbar: bool,
    random_seed: int,
    initial_points: Any,
    nuts_kwargs: dict[str, Any] | None = None,
    **_: Any,
) -> tuple[list[Any], dict[str, Any], Any]:
    """What PyMC's ``_sample_<sampler>_nuts`` returns: raw draws, sample stats, the library."""
    import importlib

    import jax

    from .run import SamplerRun, run_chunks

    options = STATE.current()
    settings = SamplerSettings.make(
        sampler,
        nuts_kwargs,
        chains=chains,
        tune=tune,
        target_accept=target_accept,
        chain_method=chain_method,
        chunk=options.chunk_size,
    )
    positions = list(initial_points)
    if chains == 1:  # PyMC hands one chain's initial point over without the chain axis
        positions = [np.asarray(p)[None] for p in positions]
    point = _point(model, positions, True)
    programs = programs_for(model, settings, point, ("init", "chunk"))
    _check_budget(programs["chunk"], draws)
    READY.append(time.perf_counter())
    dtypes = [np.dtype(d) for _, _, d in point]
    run = SamplerRun(
        tune=tune,
        draws=draws,
        chunk=settings.chunk,
        positions=[np.asarray(p, dtype=d) for p, d in zip(positions, dtypes, strict=True)],
        keys=chain_keys(sampler, int(random_seed), chains),
        data=_data(model, programs["chunk"]),
        progressbar=progressbar,
        checkpoint=options.checkpoint,
    )
    out = run_chunks(programs["init"], programs["chunk"], run)
    DONE.append(time.perf_counter())
    raw = [jax.device_put(out.pop(name), _chain_split(programs["chunk"])) for name, _, _ in point]
    if sampler == "numpyro":
        stats = {"n_steps": out.pop("n_steps"), "tree_depth": None, **out}
        stats["tree_depth"] = np.log2(stats["n_steps"]).astype(int) + 1
    else:
        stats = out
    return raw, stats, importlib.import_module(sampler)
