"""Lower and compile a transform ahead of time, analyse it, (de)serialize the executable."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import jax
import numpy as np
from jax.experimental.serialize_executable import deserialize_and_load, serialize

from .fingerprint import ModelFingerprint
from .graph import TransformGraph, build_transform
from .key import TransformKey
from .spec import OutputSpec
from .strategies import Strategy

Progress = Callable[[str], None]


@dataclass(frozen=True)
class MemoryStats:
    """XLA's memory analysis of one executable, in bytes."""

    argument: int
    output: int
    temp: int
    alias: int
    generated_code: int

    @property
    def peak(self) -> int:
        """Predicted peak: argument + output + temp - alias."""
        return self.argument + self.output + self.temp - self.alias

    def as_dict(self) -> dict[str, int]:
        return {**asdict(self), "peak": self.peak}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MemoryStats:
        return cls(*(int(d[k]) for k in ("argument", "output", "temp", "alias", "generated_code")))


@dataclass(frozen=True)
class CostStats:
    """XLA's cost analysis, where the backend provides one."""

    flops: float | None
    bytes_accessed: float | None


@dataclass(frozen=True)
class CompileTimings:
    """Seconds spent building (rewrite + jaxify), lowering, compiling and serializing."""

    build: float
    lower: float
    compile: float
    serialize: float

    @property
    def total(self) -> float:
        return self.build + self.lower + self.compile + self.serialize


@dataclass(frozen=True)
class CompiledTransform:
    """A compiled transform, ready to run and to store."""

    key: TransformKey
    executable: Any
    payload: bytes
    output_names: tuple[str, ...]
    data_indices: tuple[int, ...]
    memory: MemoryStats
    cost: CostStats
    timings: CompileTimings
    output_shapes: tuple[tuple[tuple[int, ...], str], ...] = ()

    def metadata(self, model_name: str) -> dict[str, Any]:
        """The JSON metadata stored beside the executable."""
        return {
            "key": self.key.parts(),
            "model_name": model_name,
            "output_names": list(self.output_names),
            "output_shapes": [[list(shape), dtype] for shape, dtype in self.output_shapes],
            "output_bytes": [int(np.prod(shape)) * np.dtype(dtype).itemsize for shape, dtype in self.output_shapes],
            "data_indices": list(self.data_indices),
            "n_args": len(self.key.values) + len(self.data_indices),
            "memory": self.memory.as_dict(),
            "cost": asdict(self.cost),
            "timings": {**asdict(self.timings), "total": self.timings.total},
            "created": time.time(),
        }


def _memory_stats(compiled: Any) -> MemoryStats:
    m = compiled.memory_analysis()
    if m is None:
        return MemoryStats(0, 0, 0, 0, 0)
    return MemoryStats(
        argument=int(m.argument_size_in_bytes),
        output=int(m.output_size_in_bytes),
        temp=int(m.temp_size_in_bytes),
        alias=int(m.alias_size_in_bytes),
        generated_code=int(m.generated_code_size_in_bytes),
    )


def _cost_stats(compiled: Any) -> CostStats:
    try:
        cost = compiled.cost_analysis()
    except Exception:  # noqa: BLE001 - optional on some backends
        return CostStats(None, None)
    if isinstance(cost, (list, tuple)):
        cost = cost[0] if cost else {}
    cost = cost or {}
    flops, accessed = cost.get("flops"), cost.get("bytes accessed")
    return CostStats(
        float(flops) if flops is not None else None,
        float(accessed) if accessed is not None else None,
    )


def compile_transform(
    model: Any,
    fingerprint: ModelFingerprint,
    spec: OutputSpec,
    strategy: Strategy,
    key: TransformKey,
    device: Any,
    progress: Progress | None = None,
    graph: TransformGraph | None = None,
) -> CompiledTransform:
    """Build, lower and compile ``spec`` for the shapes in ``key``; no samples needed.

    ``graph``: an already built transform of ``spec`` (``auto`` builds it once for all its
    candidates); its build time then counts as zero."""
    say = progress or (lambda _: None)
    t0 = time.perf_counter()
    if graph is None:
        say("building graph")
        graph = build_transform(model, spec, fingerprint)
    t1 = time.perf_counter()
    say("lowering")
    sharding = jax.sharding.SingleDeviceSharding(device)
    data_sig = [key.data[i] for i in graph.data_indices]
    args = [
        jax.ShapeDtypeStruct(shape, np.dtype(dtype), sharding=sharding)
        for _, shape, dtype in (*key.values, *data_sig)
    ]
    n_values = len(key.values)
    batched = strategy.apply(graph.fn, n_values)
    donate = tuple(range(n_values)) if strategy.donate else ()
    with warnings.catch_warnings():
        # Donated inputs that no output can alias are simply not reused; that is expected.
        warnings.filterwarnings("ignore", message="Some donated buffers were not usable")
        lowered = jax.jit(batched, donate_argnums=donate).lower(*args)
    t2 = time.perf_counter()
    say("compiling")
    compiled = lowered.compile()
    t3 = time.perf_counter()
    payload, _, _ = serialize(compiled)
    t4 = time.perf_counter()
    return CompiledTransform(
        key=key,
        executable=compiled,
        payload=payload,
        output_names=graph.output_names,
        data_indices=graph.data_indices,
        memory=_memory_stats(compiled),
        cost=_cost_stats(compiled),
        timings=CompileTimings(build=t1 - t0, lower=t2 - t1, compile=t3 - t2, serialize=t4 - t3),
        output_shapes=tuple((tuple(int(s) for s in o.shape), str(o.dtype)) for o in lowered.out_info),
    )


def _initialize_kernels() -> None:
    """Register the LAPACK kernels that executables call into.

    jaxlib fills its LAPACK function table lazily, when a linalg op is first *lowered*. A
    process that only deserializes (a cache hit) never lowers, and an executable calling
    Cholesky or a triangular solve would then jump through a null pointer and crash.
    """
    try:
        from jax._src.lax import linalg

        linalg.initialize_lapack()
    except (ImportError, AttributeError):  # moved in a later jax: the lowering path still works
        pass


def load_executable(payload: bytes, n_args: int, n_outputs: int, device: Any) -> Any:
    """Deserialize an executable for one device (PyMC forces 100 host devices)."""
    _initialize_kernels()
    in_tree = jax.tree_util.tree_structure((tuple(range(n_args)), {}))
    out_tree = jax.tree_util.tree_structure(tuple(range(n_outputs)))
    return deserialize_and_load(payload, in_tree, out_tree, backend=device.client, execution_devices=[device])
