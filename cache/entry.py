"""The metadata stored beside each executable, described once.

An entry's metadata is JSON in the store; :class:`EntryMetadata` is its typed form, written
with :meth:`EntryMetadata.to_json` and read with :meth:`EntryMetadata.from_json`. Like the
rest of this package it imports neither jax nor pymc, so the command line can read it.

Layout (``SCHEMA_VERSION`` 1; entries written before the version field existed read as 1)::

    schema          1
    key             the cache key's parts (TransformKey.parts(): model_hash, kind, outputs,
                    values [[name, [chains, draws, *shape], dtype], ...], data, strategy,
                    batch_size, donate, platform, device_kind, versions, x64, floatX, format)
    digest          the key's SHA-256, the entry's identity
    model_name      a label for ``inspect``; not part of the key
    output_names    outputs in the order the executable returns them
    output_shapes   [[shape, dtype], ...] per output
    output_bytes    bytes per output
    data_indices    which of the model's data variables are arguments after the samples
    n_args          number of arguments (value variables + data)
    memory          XLA's memory analysis: argument, output, temp, alias, generated_code, peak
    cost            XLA's cost analysis: flops, bytes_accessed (null where unavailable)
    timings         seconds: build, lower, compile, serialize, total
    created         UNIX time of the compile
    auto            only under an ``auto`` key: the choice and every candidate's numbers
    mesh            only for ``sharded(B)`` executables: device_ids, the devices it runs on
                    (memory is then XLA's analysis per device)
    stream          only for ``streamed(B)`` executables (one call computes one batch of draws):
                    batch (draws per call), device_peak (inputs + two batches in flight + temp),
                    host_bytes (the whole result, assembled off the device)
    requested       only where true: compiled (or later asked) for a strategy the user named,
                    so ``inspect`` lists it as an entry even if ``auto`` compiled it as a candidate

The store adds its own bookkeeping (``format``, ``executable_size``, ``executable_sha256``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from .auto_choice import AutoChoice, Candidate
from .xla_stats import CompileTimings, CostStats, MemoryStats

__all__ = [
    "SCHEMA_VERSION",
    "SIZED_STRATEGIES",
    "AutoChoice",
    "Candidate",
    "CompileTimings",
    "CostStats",
    "EntryMetadata",
    "MemoryStats",
    "strategy_label",
]

SCHEMA_VERSION = 1


SIZED_STRATEGIES = ("batched", "streamed", "sharded")
"""Strategies that take a batch size, written ``name(B)``."""


def strategy_label(name: str, batch_size: int | None) -> str:
    """``batched(10)`` / ``streamed(10)`` for the sized strategies, else the strategy's name."""
    return f"{name}({batch_size})" if name in SIZED_STRATEGIES else name


@dataclass(frozen=True)
class EntryMetadata:
    """Everything stored about one compiled transform besides its executable bytes."""

    key: Mapping[str, Any]
    digest: str
    model_name: str
    output_names: tuple[str, ...]
    output_shapes: tuple[tuple[tuple[int, ...], str], ...]
    output_bytes: tuple[int, ...]
    data_indices: tuple[int, ...]
    n_args: int
    memory: MemoryStats
    cost: CostStats
    timings: CompileTimings
    created: float
    auto: AutoChoice | None = None
    executable_size: int | None = None  # the store's bookkeeping; None before storing
    stream_batch: int | None = None  # streamed(B): draws per call; None: one call computes all
    requested: bool = False  # compiled for a strategy the user named (not only as auto's candidate)
    mesh_devices: tuple[int, ...] | None = None  # sharded(B): the ids of the devices it runs on

    # -- what readers ask for -----------------------------------------------------
    @property
    def kind(self) -> str:
        """``posterior`` or ``log_likelihood``."""
        return str(self.key["kind"])

    @property
    def chains(self) -> int:
        return self._lead()[0]

    @property
    def draws(self) -> int:
        return self._lead()[1]

    def _lead(self) -> tuple[int, int]:
        values = self.key.get("values") or []
        shape = values[0][1] if values else (0, 0)
        return int(shape[0]), int(shape[1])

    @property
    def device_count(self) -> int:
        """Devices the executable runs on (a sharded or streamed-over-devices mesh; else 1)."""
        return len(self.mesh_devices) if self.mesh_devices else 1

    @property
    def chosen(self) -> str:
        """The strategy the executable runs: ``auto``'s choice, or the key's strategy."""
        if self.auto is not None:
            return self.auto.chosen
        return strategy_label(str(self.key["strategy"]), self.key.get("batch_size"))

    @property
    def label(self) -> str:
        """``batched(10)``, ``auto:batched(16)``, ``batched:batched(16)`` (B chosen) or the strategy's name."""
        return f"{self.key['strategy']}:{self.chosen}" if self.auto is not None else self.chosen

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        """The strategies ``auto`` weighed (empty for other entries)."""
        return self.auto.candidates if self.auto is not None else ()

    @property
    def output_sizes(self) -> dict[str, int]:
        """Bytes per output, by name."""
        return dict(zip(self.output_names, self.output_bytes, strict=False))

    @property
    def peak(self) -> int:
        return self.memory.peak

    @property
    def result_shapes(self) -> tuple[tuple[tuple[int, ...], str], ...]:
        """``(chains, draws, *shape)`` and dtype per output: what a run returns in the end."""
        if self.stream_batch is None:
            return self.output_shapes
        return tuple(((self.chains, self.draws, *shape[1:]), dtype) for shape, dtype in self.output_shapes)

    @property
    def device_peak(self) -> int:
        """Predicted device peak of a run; a streamed run of several batches holds two batches'
        outputs at once (one computing, one being copied off)."""
        if self.stream_batch is None or self.chains * self.draws <= self.stream_batch:
            return self.memory.peak
        return self.memory.peak + self.memory.output

    @property
    def host_bytes(self) -> int:
        """Bytes a streamed run assembles off the device (the whole result); 0 for the others,
        whose outputs stay where they were computed."""
        if self.stream_batch is None:
            return 0
        n = self.chains * self.draws
        pairs = zip(self.output_bytes, self.output_shapes, strict=True)
        return sum(size // shape[0] * n for size, (shape, _) in pairs if shape[0])

    # -- JSON -------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The stored form (the store adds its bookkeeping on ``put``)."""
        doc: dict[str, Any] = {
            "schema": SCHEMA_VERSION,
            "key": dict(self.key),
            "digest": self.digest,
            "model_name": self.model_name,
            "output_names": list(self.output_names),
            "output_shapes": [[list(shape), dtype] for shape, dtype in self.output_shapes],
            "output_bytes": list(self.output_bytes),
            "data_indices": list(self.data_indices),
            "n_args": self.n_args,
            "memory": self.memory.as_dict(),
            "cost": asdict(self.cost),
            "timings": self.timings.as_dict(),
            "created": self.created,
        }
        if self.auto is not None:
            doc["auto"] = self.auto.as_dict()
        if self.stream_batch is not None:
            doc["stream"] = {"batch": self.stream_batch, "device_peak": self.device_peak, "host_bytes": self.host_bytes}
        if self.requested:
            doc["requested"] = True
        if self.mesh_devices is not None:
            doc["mesh"] = {"device_ids": list(self.mesh_devices)}
        return doc

    @classmethod
    def record(
        cls,
        key: dict[str, Any],
        digest: str,
        model_name: str,
        output_names: tuple[str, ...],
        seconds: float,
        arrays: tuple[tuple[tuple[int, ...], str, int], ...] = (),
    ) -> EntryMetadata:
        """Metadata of a record with no executable (an answer, arrays as ``.npy`` bytes): no memory
        or cost analysis, ``seconds`` what computing it took; ``arrays``: (shape, dtype, bytes) each."""
        return cls(
            key=key,
            digest=digest,
            model_name=model_name,
            output_names=output_names,
            output_shapes=tuple((shape, dtype) for shape, dtype, _ in arrays),
            output_bytes=tuple(size for _, _, size in arrays),
            data_indices=(),
            n_args=0,
            memory=MemoryStats(0, 0, 0, 0, 0),
            cost=CostStats(None, None),
            timings=CompileTimings(build=seconds, lower=0.0, compile=0.0, serialize=0.0),
            created=time.time(),
            requested=True,
        )

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> EntryMetadata:
        """The typed form of stored metadata; ``ValueError`` if it is not this schema."""
        version = doc.get("schema", 1)
        if version != SCHEMA_VERSION:
            raise ValueError(f"entry metadata schema {version!r}, this pymc-aot reads {SCHEMA_VERSION}")
        try:
            return cls(
                key=dict(doc["key"]),
                digest=str(doc.get("digest", "")),
                model_name=str(doc.get("model_name", "")),
                output_names=tuple(doc["output_names"]),
                output_shapes=tuple(
                    (tuple(int(s) for s in shape), str(dtype)) for shape, dtype in doc.get("output_shapes", [])
                ),
                output_bytes=tuple(int(b) for b in doc.get("output_bytes", [])),
                data_indices=tuple(int(i) for i in doc["data_indices"]),
                n_args=int(doc["n_args"]),
                memory=MemoryStats.from_dict(doc["memory"]),
                cost=CostStats.from_dict(doc.get("cost", {})),
                timings=CompileTimings.from_dict(doc["timings"]),
                created=float(doc.get("created", 0.0)),
                auto=AutoChoice.from_dict(doc["auto"]) if doc.get("auto") else None,
                executable_size=int(doc["executable_size"]) if "executable_size" in doc else None,
                stream_batch=int(doc["stream"]["batch"]) if doc.get("stream") else None,
                requested=bool(doc.get("requested", False)),
                mesh_devices=tuple(int(i) for i in doc["mesh"]["device_ids"]) if doc.get("mesh") else None,
            )
        except (KeyError, TypeError, ValueError) as exc:
            why = f"{type(exc).__name__} {exc}"
            raise ValueError(f"entry metadata does not match schema {SCHEMA_VERSION}: {why}") from None
