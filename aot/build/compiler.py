"""Build, lower and compile a transform ahead of time, analyse it, serialize the executable.

Importing this imports PyTensor's JAX dispatch (via :mod:`.graph`): only a build needs it;
a cache hit loads with :mod:`.loader`.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np
from jax.experimental.serialize_executable import serialize

from ...cache.entry import EntryMetadata
from ...cache.xla_stats import CompileTimings, CostStats, MemoryStats
from .graph import TransformGraph, build_transform
from .loader import load_executable
from .request import AFTER_LOWERING, Progress, TransformRequest

__all__ = [
    "CompileTimings",
    "CompiledTransform",
    "CostStats",
    "MemoryStats",
    "Progress",
    "compile_transform",
    "load_executable",
]


@dataclass(frozen=True)
class CompiledTransform:
    """A just compiled transform: the live executable, its bytes and its metadata."""

    metadata: EntryMetadata
    payload: bytes = field(repr=False)
    executable: Any = field(repr=False)


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
    request: TransformRequest, *, graph: TransformGraph | None = None, progress: Progress | None = None
) -> CompiledTransform:
    """Build, lower and compile ``request`` for the shapes in its key; no samples needed.

    ``graph``: an already built transform of the request's outputs (``auto`` builds it once
    for all its candidates); its build time then counts as zero."""
    strategy, key = request.strategy, request.key
    if strategy is None:
        raise ValueError("an auto request is resolved to a strategy before compiling (aot.choice.resolve)")
    say = progress or (lambda _: None)
    t0 = time.perf_counter()
    if graph is None:
        say("building graph")
        graph = build_transform(request.model, request.spec, request.fingerprint)
    t1 = time.perf_counter()
    say("lowering")
    data_sig = [key.data[i] for i in graph.data_indices]
    lead = strategy.leading_arguments  # streamed: the batch's start
    n_values = len(key.values)
    shardings, out_sharding = argument_shardings(strategy, request.device, len(lead), n_values, len(data_sig))
    args = [
        jax.ShapeDtypeStruct(shape, np.dtype(dtype), sharding=sharding)
        for (_, shape, dtype), sharding in zip((*lead, *key.values, *data_sig), shardings, strict=True)
    ]
    donate = tuple(range(len(lead), len(lead) + n_values)) if strategy.donate else ()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Some donated buffers were not usable")  # none aliases: expected
        jitted = jax.jit(strategy.apply(graph.fn, n_values), donate_argnums=donate, out_shardings=out_sharding)
        lowered = jitted.lower(*args)
    if (after_lowering := AFTER_LOWERING.get()) is not None:
        after_lowering()  # pm.sample's preflight: the call goes on while XLA compiles
    t2 = time.perf_counter()
    say("compiling")
    compiled = lowered.compile()
    t3 = time.perf_counter()
    try:
        payload, _, _ = serialize(compiled)
    except Exception:  # noqa: BLE001 - host callbacks (jax.pure_callback) cannot be serialized: run uncached
        payload = b""
    timings = CompileTimings(build=t1 - t0, lower=t2 - t1, compile=t3 - t2, serialize=time.perf_counter() - t3)
    shapes = tuple((tuple(int(s) for s in o.shape), str(o.dtype)) for o in lowered.out_info)
    metadata = EntryMetadata(
        key=key.parts(),
        digest=key.digest,
        model_name=request.model_name,
        output_names=graph.output_names,
        output_shapes=shapes,
        output_bytes=tuple(int(np.prod(shape)) * np.dtype(dtype).itemsize for shape, dtype in shapes),
        data_indices=graph.data_indices,
        n_args=len(lead) + n_values + len(graph.data_indices),
        memory=_memory_stats(compiled),
        cost=_cost_stats(compiled),
        timings=timings,
        created=time.time(),
        stream_batch=_draws_per_call(strategy, key),
        mesh_devices=tuple(int(d.id) for d in strategy.mesh.devices) if strategy.mesh is not None else None,
    )
    return CompiledTransform(metadata, payload, compiled)


def argument_shardings(strategy: Any, device: Any, n_lead: int, n_values: int, n_data: int) -> tuple[list[Any], Any]:
    """Where each argument lives, and the outputs' sharding (None: JAX's default).

    One device for every strategy without a mesh. Over a mesh (``sharded``, ``streamed`` with
    ``devices=``) the samples are split, the data (and a streamed batch's start) replicated on
    each device; outputs are split like the samples, a streamed batch's along its rows."""
    mesh = strategy.mesh
    if mesh is None:
        return [jax.sharding.SingleDeviceSharding(device)] * (n_lead + n_values + n_data), None
    split, whole = mesh.sharding(True), mesh.sharding(False)
    out = jax.sharding.NamedSharding(mesh.mesh, mesh.row_spec) if strategy.streams else split
    return [whole] * n_lead + [split] * n_values + [whole] * n_data, out


def _draws_per_call(strategy: Any, key: Any) -> int | None:
    """A streamed executable's batch (B, or every draw when there are fewer); else None.
    Over D devices each computes ``min(B/D, its draws)``: the batch is D times that."""
    if not strategy.streams:
        return None
    chains, draws = key.chains_draws
    d = strategy.mesh.size if strategy.mesh is not None else 1
    return min(strategy.batch_size // d, chains * draws // d) * d
