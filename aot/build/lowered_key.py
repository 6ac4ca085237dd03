"""The key that cannot lie: a hash of the lowered program, for models the fingerprint cannot describe.

When a model reaches code whose behaviour the structural fingerprint cannot pin down
(``ModelFingerprint.exact`` is False), its key hashes what that code produced instead: the
per-draw transform rewritten, jaxified, traced and lowered to StableHLO (no XLA compile).
Two models with the same lowered per-draw program compute the same numbers; the strategy
that maps it over draws is in the key separately. This costs a build and a lowering on
every lookup, so it is used only where the structural key would have to guess.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import numpy as np

from ..identity.fingerprint import ModelFingerprint
from ..identity.key import Signature
from ..identity.spec import OutputSpec


def lowered_model_hash(
    model: Any, spec: OutputSpec, values: Signature, fingerprint: ModelFingerprint, device: Any = None
) -> str:
    """SHA-256 of the StableHLO text of ``spec``'s per-draw transform for one draw of ``values``
    (``(chains, draws, *shape)`` signatures) and the model's current data shapes, lowered for
    ``device`` (default: JAX's default device)."""
    import jax

    from .graph import build_transform

    graph = build_transform(model, spec, fingerprint)
    data = fingerprint.data_signature()
    sharding = jax.sharding.SingleDeviceSharding(device) if device is not None else None
    shapes = [(shape[2:], dtype) for _, shape, dtype in values]
    shapes += [data[i][1:] for i in graph.data_indices]
    args = [jax.ShapeDtypeStruct(tuple(shape), np.dtype(dtype), sharding=sharding) for shape, dtype in shapes]
    lowered = jax.jit(graph.fn).lower(*args)
    digest = hashlib.sha256(lowered.as_text(debug_info=False).encode())
    for const in getattr(getattr(lowered, "_lowering", None), "const_args", None) or ():
        # constants jax hoists out of the program text are arguments: hash their contents too
        arr = np.asarray(const)
        digest.update(f"{arr.dtype}{arr.shape}".encode())
        digest.update(np.ascontiguousarray(arr).tobytes())
    digest.update(repr((graph.data_indices, graph.output_names)).encode())
    return digest.hexdigest()[:32]


def lowered_fingerprint(
    model: Any, spec: OutputSpec, values: Signature, fingerprint: ModelFingerprint, device: Any = None
) -> ModelFingerprint:
    """``fingerprint`` keyed on the lowered program (``key_kind="lowered"``), its reasons kept."""
    digest = lowered_model_hash(model, spec, values, fingerprint, device)
    return dataclasses.replace(fingerprint, model_hash=digest, key_kind="lowered")
