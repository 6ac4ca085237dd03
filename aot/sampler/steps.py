"""What PyMC's ``assign_step_methods`` chose for a model, stored so a warm run need not ask again.

``pm.sample`` calls ``assign_step_methods`` before any sampler runs: it builds the model's logp
and one gradient graph per value variable (seconds on a wide model, growing with its square)
only to learn which step method each variable gets; ``nuts_sampler="numpyro"|"blackjax"``
then requires NUTS for all of them. The answer is a function of the model's graph (covered by
the fingerprint's model hash), the value variables' dtypes, PyMC's version and the step methods
offered, so it is stored as a record (an entry of kind ``sampler``, strategy ``steps``, with no
executable) the first time PyMC's own function answers "NUTS for all", and read back after.
Nothing else is recorded: any other answer is PyMC's to give again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...cache import CacheStore
from ...cache.entry import EntryMetadata
from ..identity.fingerprint import ModelFingerprint
from ..identity.key import KEY_FORMAT
from ..identity.versions import library_versions
from .key import SAMPLER_KEY_FORMAT

STEPS_STRATEGY = "steps"


def method_names(methods: Sequence[type]) -> tuple[str, ...]:
    """The step method classes offered, by module and qualified name, in PyMC's order."""
    return tuple(f"{m.__module__}.{m.__qualname__}" for m in methods)


@dataclass(frozen=True)
class StepsKey:
    """Names what ``assign_step_methods(model)`` (no steps given) depends on."""

    fingerprint: ModelFingerprint
    methods: tuple[str, ...]

    def parts(self) -> dict[str, Any]:
        """JSON-able, shaped so ``EntryMetadata`` reads it (kind, strategy, values)."""
        fp = self.fingerprint
        return {
            "model_hash": fp.model_hash,
            "kind": "sampler",
            "strategy": STEPS_STRATEGY,
            "batch_size": None,
            "settings": {},
            "values": [[name, [1, 1], dtype] for name, dtype in zip(fp.value_names, fp.value_dtypes, strict=True)],
            "data": [],
            "methods": list(self.methods),
            "versions": dict(library_versions()),
            "sampler_format": SAMPLER_KEY_FORMAT,
            "format": KEY_FORMAT,
        }

    @property
    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.parts(), sort_keys=True).encode()).hexdigest()


def recorded_method(store: CacheStore, key: StepsKey) -> str | None:
    """The step method recorded for every value variable of ``key``'s model, or None."""
    found = store.metadata(key.digest)
    if found is None:
        return None
    try:
        meta = EntryMetadata.from_json(found)
    except ValueError:
        return None
    if meta.key != key.parts() or len(meta.output_names) != 1 or meta.output_names[0] not in key.methods:
        return None
    store.record_hit_later(key.digest)
    return meta.output_names[0]


def record_method(store: CacheStore, key: StepsKey, method: str, seconds: float) -> None:
    """Store that PyMC chose ``method`` for every value variable (``seconds``: what it took)."""
    meta = EntryMetadata.record(key.parts(), key.digest, key.fingerprint.model_name, (method,), seconds)
    store.put(key.digest, b"", meta.to_json())
