"""The cache key: everything that can change a compiled transform, stored readable."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any

import jax
import pytensor

from ..strategies.strategies import AUTO, Strategy
from .fingerprint import ModelFingerprint
from .hostcpu import cpu_features, xla_flags
from .jax_flags import jax_flags
from .spec import OutputSpec
from .versions import KEY_FORMAT, library_versions

__all__ = ["KEY_FORMAT", "NOT_IN_DIGEST", "Signature", "TransformKey", "diff_parts", "library_versions", "make_key"]

NOT_IN_DIGEST = frozenset({"key_reasons"})
"""Parts stored for people (``inspect``) that do not decide what the executable computes."""

Signature = tuple[tuple[str | None, tuple[int, ...], str], ...]


@dataclass(frozen=True)
class TransformKey:
    """Names everything a compiled transform depends on; ``digest`` is its identity.

    ``key_kind``: what ``model_hash`` hashes, "structural" (the model's graph and the code it
    reaches) or "lowered" (the StableHLO program, for models with code the fingerprint
    cannot describe); ``key_reasons`` says why, and is not part of the digest. ``cpu``: the
    host's instruction-set features for CPU entries (empty for other platforms).
    """

    model_hash: str
    kind: str
    outputs: tuple[str, ...]
    values: Signature
    data: Signature
    strategy: str
    batch_size: int | None
    donate: bool
    platform: str
    device_kind: str
    versions: tuple[tuple[str, str], ...]
    x64: bool
    floatX: str
    key_kind: str = "structural"
    key_reasons: tuple[str, ...] = ()
    cpu: str = ""
    mesh: str = ""
    """``sharded``: the device mesh (``MeshPlan.key_part``); empty, and left out, otherwise."""
    compile_config: str = ""
    """The settings that reach the build besides the graph: PyTensor's rewrite configuration
    (``PYTENSOR_FLAGS`` mode, optimizer, ...: PyTensor's JAX Scan rewrites its inner graph
    with it), ``XLA_FLAGS`` (see ``hostcpu.xla_flags``) and JAX settings (``jax_flags``)."""
    format: int = KEY_FORMAT

    def parts(self) -> dict[str, Any]:
        """The key as plain JSON-able data."""
        parts = asdict(self)
        parts["values"] = [list(map(_jsonable, v)) for v in self.values]
        parts["data"] = [list(map(_jsonable, v)) for v in self.data]
        parts["versions"] = dict(self.versions)
        parts["outputs"] = list(self.outputs)
        parts["key_reasons"] = list(self.key_reasons)
        if not self.mesh:
            del parts["mesh"]  # one-device entries keep the digests they had before meshes
        return parts

    @property
    def digest(self) -> str:
        identity = {k: v for k, v in self.parts().items() if k not in NOT_IN_DIGEST}
        return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()

    @property
    def chains_draws(self) -> tuple[int, int]:
        shape = self.values[0][1] if self.values else (0, 0)
        return int(shape[0]), int(shape[1])

    def __str__(self) -> str:
        return "\n".join(f"{k}: {v}" for k, v in self.parts().items())


def _jsonable(x: Any) -> Any:
    return list(x) if isinstance(x, tuple) else x


def diff_parts(a: dict[str, Any], b: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """The key parts in which two entries differ."""
    return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def make_key(
    fingerprint: ModelFingerprint,
    spec: OutputSpec,
    strategy: Strategy | None,
    values: Signature,
    device: Any,
    auto_mesh: Any = None,
    family: str | None = None,
) -> TransformKey:
    """The key for ``spec`` compiled with ``strategy`` for inputs ``values`` on ``device``.

    ``strategy`` None keys the ``auto`` entry: the choice made for these inputs, and
    ``auto_mesh`` the devices it may shard over (see ``aot.choice.shard_fit``), if any. With
    ``family`` (``"batched"`` asked for without a batch size), it keys that family's choice of B
    (``aot.choice.sized``): the family's name, no batch size, ``auto_mesh`` the mesh it runs on."""
    mesh = strategy.mesh if strategy is not None else auto_mesh
    platform = str(device.platform)
    return TransformKey(
        model_hash=fingerprint.model_hash,
        kind=spec.kind,
        outputs=spec.keyed_outputs,
        values=values,
        data=fingerprint.data_signature(),
        strategy=strategy.name if strategy is not None else family or AUTO,
        batch_size=strategy.batch_size if strategy is not None else None,
        donate=strategy.donate if strategy is not None else False,
        platform=platform,
        device_kind=str(device.device_kind),
        versions=library_versions(),
        x64=bool(jax.config.jax_enable_x64),
        floatX=str(pytensor.config.floatX),
        key_kind=fingerprint.key_kind,
        key_reasons=fingerprint.reasons,
        cpu=cpu_features() if platform == "cpu" else "",
        mesh=mesh.key_part() if mesh is not None else "",
        compile_config=compile_config(),
    )


PYTENSOR_SETTINGS = ("mode", "linker", "optimizer", "optimizer_excluding", "optimizer_including",
                     "optimizer_requiring", "on_opt_error", "cast_policy")
"""``pytensor.config`` settings that reach the rewrite of the transform or of an inner graph."""


def compile_config() -> str:
    """The PyTensor settings in ``PYTENSOR_SETTINGS``, ``XLA_FLAGS`` and the JAX settings not at
    their default (``jax_flags``: left out when there are none), as one string."""
    config = pytensor.config
    settings = ";".join(f"{name}={getattr(config, name, None)}" for name in PYTENSOR_SETTINGS)
    jax_settings = jax_flags()
    return f"{settings};xla={xla_flags()}" + (f";jax={jax_settings}" if jax_settings else "")
