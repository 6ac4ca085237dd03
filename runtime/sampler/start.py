"""PyMC's jittered initial points, stored for an exact repeat of a run.

``sample_jax_nuts`` gets its chains' starting points from ``_get_batched_jittered_initial_points``:
a PyTensor function built and compiled for the model on every call (the largest share of a warm
run's time before its first draw once the sampler is stored), run once per chain with seeds
derived from the run's seed, retried while the model's logp there is not finite. Its result is a
function of the model (the fingerprint), the ``pm.Data`` values, the seed, the chain count and
the jitter settings; with no ``initvals`` of the user's it is stored (an entry of kind ``sampler``,
strategy ``start``, the arrays as ``.npy`` bytes, never pickled) and a call with the same inputs
gets PyMC's own arrays back, bit for bit. Other seeds (``random_seed=None`` draws a new one), new
data values or ``initvals`` run PyMC's function, as does any failure here.
"""

from __future__ import annotations

import hashlib
import io
import json
import time
from typing import Any

import numpy as np

from .counts import COUNTS
from .replacing import pymcs_function, replacing, serving

_ORIGINAL: dict[str, Any] = {}
NAME = "_get_batched_jittered_initial_points"


def _key(model: Any, chains: int, seed: int, jitter: bool, retries: int) -> dict[str, Any]:
    from ...aot.identity.key import KEY_FORMAT
    from ...aot.identity.versions import library_versions
    from ...aot.sampler.key import SAMPLER_KEY_FORMAT
    from .session import _fingerprint

    fp = _fingerprint(model)
    data = hashlib.sha256()
    for var in fp.data:
        value = np.ascontiguousarray(var.get_value(borrow=True))
        data.update(f"{value.dtype.str}{value.shape}".encode())
        data.update(value.tobytes())
    return {
        "model_hash": fp.model_hash,
        "kind": "sampler",
        "strategy": "start",
        "batch_size": None,
        "settings": {"chains": chains, "seed": seed, "jitter": jitter, "jitter_max_retries": retries},
        "values": [[name, [chains, 1], dtype] for name, dtype in zip(fp.value_names, fp.value_dtypes, strict=True)],
        "data": [],
        "data_sha256": data.hexdigest(),
        "versions": dict(library_versions()),
        "sampler_format": SAMPLER_KEY_FORMAT,
        "format": KEY_FORMAT,
        "model_name": fp.model_name,
    }


def _digest(parts: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _read(store: Any, parts: dict[str, Any]) -> list[np.ndarray] | None:
    from ...cache.entry import EntryMetadata

    found = store.get(_digest(parts))
    if found is None:
        return None
    payload, doc = found
    meta = EntryMetadata.from_json(doc)
    if meta.key != parts:
        return None
    with np.load(io.BytesIO(payload), allow_pickle=False) as arrays:
        out = [arrays[f"arr_{i}"] for i in range(len(meta.output_names))]
    store.record_hit_later(_digest(parts))
    return out


def _write(store: Any, parts: dict[str, Any], points: list[np.ndarray], seconds: float) -> None:
    from ...cache.entry import EntryMetadata

    buffer = io.BytesIO()
    np.savez(buffer, *points)
    names = tuple(name for name, _, _ in parts["values"])
    arrays = tuple((tuple(int(s) for s in p.shape), str(p.dtype), int(p.nbytes)) for p in points)
    meta = EntryMetadata.record(parts, _digest(parts), str(parts["model_name"]), names, seconds, arrays)
    store.put(meta.digest, buffer.getvalue(), meta.to_json())


def _hook(original: Any) -> Any:
    def _get_batched_jittered_initial_points(*args: Any, **kwargs: Any) -> Any:
        if not serving() or args:
            return original(*args, **kwargs)
        return jittered_initial_points(original, **kwargs)

    return replacing(original, _get_batched_jittered_initial_points)


def jittered_initial_points(
    original: Any,
    model: Any,
    chains: int,
    initvals: Any,
    random_seed: Any,
    logp_fn: Any = None,
    jitter: bool = True,
    jitter_max_retries: int = 10,
) -> Any:
    """PyMC's ``_get_batched_jittered_initial_points``, from the store for an exact repeat."""
    from ..pymc.hook_state import STATE
    from ..transforms.engine import get_store

    kwargs = {"model": model, "chains": chains, "initvals": initvals, "random_seed": random_seed,
              "logp_fn": logp_fn, "jitter": jitter, "jitter_max_retries": jitter_max_retries}  # fmt: skip
    if initvals is not None or not isinstance(random_seed, (int, np.integer)) or isinstance(random_seed, bool):
        return original(**kwargs)
    try:
        store = get_store(STATE.current().cache_dir)
        parts = _key(model, int(chains), int(random_seed), bool(jitter), int(jitter_max_retries))
        stored = _read(store, parts)
    except Exception:  # noqa: BLE001 - PyMC's function answers
        return original(**kwargs)
    if stored is not None:
        COUNTS["start_recorded"] += 1
        return stored
    t0 = time.perf_counter()
    points = original(**kwargs)
    try:
        _write(store, parts, [np.asarray(p) for p in points], time.perf_counter() - t0)
    except Exception:  # noqa: BLE001 - not stored: PyMC's function answers next time too
        pass
    return points


def install() -> None:
    import pymc.sampling.jax as pymc_jax

    if not _ORIGINAL and callable(getattr(pymc_jax, NAME, None)):
        original = pymcs_function(getattr(pymc_jax, NAME))  # PyMC's, not a hook of ours left behind
        _ORIGINAL[NAME] = original
        setattr(pymc_jax, NAME, _hook(original))


def uninstall() -> None:
    if _ORIGINAL:
        import pymc.sampling.jax as pymc_jax

        setattr(pymc_jax, NAME, _ORIGINAL.pop(NAME))
