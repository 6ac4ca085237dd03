"""The key of one sampler program: the model, shapes, data, settings, libraries, device."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from dataclasses import dataclass, field
from typing import Any

import jax
import pytensor

from ..identity.fingerprint import ModelFingerprint
from ..identity.hostcpu import cpu_features
from ..identity.key import KEY_FORMAT, Signature, compile_config
from ..identity.versions import library_versions
from .parallel import chain_mesh_ids
from .settings import SamplerSettings

PROGRAMS = ("logp", "init", "chunk")
SAMPLER_KEY_FORMAT = 2
"""Bumped when the programs built for a key change: 2, a device with one chain runs it unbatched
(``Kernel.one_chain``); a cache of format 1 misses once rather than serve the old program."""


def sampler_library_version(sampler: str) -> str:
    """The installed version of the sampler library (numpyro / blackjax)."""
    try:
        return importlib.metadata.version(sampler)
    except importlib.metadata.PackageNotFoundError:
        return "missing"


@dataclass(frozen=True)
class SamplerKey:
    """Names everything a compiled sampler program depends on; ``digest`` is its identity.

    ``values``: name, shape of one point and dtype per value variable. ``data``: the model's
    ``pm.Data`` signature (values are arguments). The ``logp`` program does not depend on the
    sampler's settings, so its key leaves them out and runs share it.
    """

    model_hash: str
    program: str
    settings: SamplerSettings
    values: Signature
    data: Signature
    platform: str
    device_kind: str
    cpu: str
    x64: bool
    floatX: str
    sampler_version: str
    versions: tuple[tuple[str, str], ...] = field(default_factory=library_versions)
    mesh_ids: tuple[int, ...] = ()
    """``chain_method="parallel"``: the devices the chains are split over (none: vectorized)."""
    compile_config: str = field(default_factory=compile_config)
    """``identity.key.compile_config``: PyTensor's rewrite settings, ``XLA_FLAGS``, JAX settings
    (the PRNG's among them: the programs draw their own random numbers)."""

    def parts(self) -> dict[str, Any]:
        """Plain JSON-able data, shaped so ``cache.entry.EntryMetadata`` reads it (kind, strategy,
        values as ``(chains, steps, *shape)``, versions, format)."""
        settings = self.settings.parts()
        lead = [1, 1] if self.program == "logp" else [settings["chains"], settings["chunk"]]
        return {
            "model_hash": self.model_hash,
            "kind": "sampler",
            "strategy": f"{self.settings.sampler}:{self.program}" if self.program != "logp" else "logp",
            "batch_size": None,
            "settings": settings if self.program != "logp" else {},
            "values": [[name, [*lead, *shape], dtype] for name, shape, dtype in self.values],
            "data": [[name, list(shape), dtype] for name, shape, dtype in self.data],
            "platform": self.platform,
            "device_kind": self.device_kind,
            "cpu": self.cpu,
            "x64": self.x64,
            "floatX": self.floatX,
            "sampler_version": self.sampler_version if self.program != "logp" else "",
            "versions": dict(self.versions),
            "compile_config": self.compile_config,
            "sampler_format": SAMPLER_KEY_FORMAT,
            "format": KEY_FORMAT,
            **({"mesh": self._mesh_part()} if self.mesh_ids and self.program != "logp" else {}),
        }

    def _mesh_part(self) -> str:
        ids = ",".join(str(i) for i in self.mesh_ids)
        return f"{self.platform} {self.device_kind} shape=({len(self.mesh_ids)},) split=chains ids={ids}"

    @property
    def kind(self) -> str:
        """What ``inspect`` and ``precompile`` show in their kind column."""
        return "sampler"

    @property
    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.parts(), sort_keys=True).encode()).hexdigest()

    def for_program(self, program: str) -> SamplerKey:
        from dataclasses import replace

        return replace(self, program=program)


def point_signature(values: Signature) -> Signature:
    """``(chains, draws, *shape)`` signatures to one point's ``shape``."""
    return tuple((name, tuple(shape[2:]), dtype) for name, shape, dtype in values)


def sampler_key(
    fingerprint: ModelFingerprint, settings: SamplerSettings, point: Signature, device: Any, program: str = "chunk"
) -> SamplerKey:
    """The key of ``program`` for a model with value variables shaped ``point`` on ``device``."""
    if program not in PROGRAMS:
        raise ValueError(f"program {program!r}: expected one of {PROGRAMS}")
    platform = str(device.platform)
    return SamplerKey(
        model_hash=fingerprint.model_hash,
        program=program,
        settings=settings,
        values=point,
        data=fingerprint.data_signature(),
        platform=platform,
        device_kind=str(device.device_kind),
        cpu=cpu_features() if platform == "cpu" else "",
        x64=bool(jax.config.jax_enable_x64),
        floatX=str(pytensor.config.floatX),
        sampler_version=sampler_library_version(settings.sampler),
        mesh_ids=chain_mesh_ids(settings, device) if program != "logp" else (),
    )
