"""The cache key: everything that can change a compiled transform, stored readable."""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import asdict, dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import jax
import pytensor

from .fingerprint import ModelFingerprint
from .spec import OutputSpec
from .strategies import AUTO, Strategy

KEY_FORMAT = 1
_VERSIONED = ("jax", "jaxlib", "pytensor", "pymc", "pymc-aot")

Signature = tuple[tuple[str | None, tuple[int, ...], str], ...]


@functools.cache
def library_versions() -> tuple[tuple[str, str], ...]:
    """Versions of the libraries whose change invalidates executables (read once)."""
    import jaxlib
    import pymc

    found = {
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "pytensor": pytensor.__version__,
        "pymc": pymc.__version__,
    }
    try:
        found["pymc-aot"] = version("pymc-aot")
    except PackageNotFoundError:
        found["pymc-aot"] = "unknown"
    return tuple((name, str(found[name])) for name in _VERSIONED)


@dataclass(frozen=True)
class TransformKey:
    """Names everything a compiled transform depends on; ``digest`` is its identity."""

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
    format: int = KEY_FORMAT

    def parts(self) -> dict[str, Any]:
        """The key as plain JSON-able data."""
        parts = asdict(self)
        parts["values"] = [list(map(_jsonable, v)) for v in self.values]
        parts["data"] = [list(map(_jsonable, v)) for v in self.data]
        parts["versions"] = dict(self.versions)
        parts["outputs"] = list(self.outputs)
        return parts

    @property
    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.parts(), sort_keys=True).encode()).hexdigest()

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
) -> TransformKey:
    """The key for ``spec`` compiled with ``strategy`` for inputs ``values`` on ``device``.

    ``strategy`` None keys the ``auto`` entry: the choice made for these inputs."""
    return TransformKey(
        model_hash=fingerprint.model_hash,
        kind=spec.kind,
        outputs=spec.names,
        values=values,
        data=fingerprint.data_signature(),
        strategy=strategy.name if strategy is not None else AUTO,
        batch_size=strategy.batch_size if strategy is not None else None,
        donate=strategy.donate if strategy is not None else False,
        platform=str(device.platform),
        device_kind=str(device.device_kind),
        versions=library_versions(),
        x64=bool(jax.config.jax_enable_x64),
        floatX=str(pytensor.config.floatX),
    )
