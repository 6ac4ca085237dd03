"""Load the compiled sampler's stored programs while PyMC prepares the run.

Between ``sample_jax_nuts``'s call and its sampler call PyMC does work of its own: the
postprocessing's preflight, the jittered initial points (a PyTensor function built and run).
The programs the sampler needs (``logp``, ``init``, ``chunk``: the last is megabytes of machine
code) do not depend on any of it: their keys follow from the call's arguments and the model.
``prefetch`` computes those keys and starts one thread that deserializes the stored programs
into the session's memo (XLA releases the GIL while it links them) and compiles the eager JAX
programs that split the chains' keys, so the first draw does not wait for either.
Only a hint: a key that differs from the one the sampler asks for, a miss or any failure here
leaves the work to the sampler's own call, which does it as before.
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
    from .session import sampler_keys

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
    return sampler_keys(model, settings, _point(model), ("logp", "init", "chunk")), settings


def _ahead(claimed: list[Any], sampler: str, chains: int) -> None:
    from .session import chain_keys, load_ahead

    try:  # first: short, and the sampler's call needs it as soon as its programs are in
        np.asarray(chain_keys(sampler, 0, chains))  # compiles (in this process) what the real seed reuses
    except Exception:  # noqa: BLE001 - only a hint: the sampler's own call does whatever is left
        pass
    load_ahead(claimed)


def _release_all(claimed: list[Any]) -> None:
    from .session import release

    for key, done in claimed:
        release(key, done)


def prefetch(
    model: Any, sample_jax_nuts: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> threading.Thread | None:
    """Start loading, for ``sample_jax_nuts(*args, **kwargs)`` on ``model``, what its compiled
    sampler will need; the thread (None if nothing was started)."""
    from .session import claim

    try:
        keys, settings = _keys_and_chains(model, sample_jax_nuts, args, kwargs)
    except Exception:  # noqa: BLE001 - unknown options, an inexact model, ...: the sampler's call decides
        return None
    claimed = claim(keys)  # before the thread starts: the sampler's call waits for these, never races
    thread = threading.Thread(
        target=_ahead, args=(claimed, settings.sampler, settings.chains), name="pymc-aot-prefetch", daemon=False
    )
    try:
        thread.start()
    except RuntimeError:  # no thread to be had: release the claims, the sampler's call loads
        _release_all(claimed)
        return None
    return thread
