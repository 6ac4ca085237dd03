"""Build, lower and compile the sampler programs ahead of time; serialize and describe them.

Importing this imports PyTensor's JAX dispatch (via ``aot.graph``): only a build needs it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np
from jax.experimental.serialize_executable import serialize

from ...cache.entry import EntryMetadata
from ...cache.xla_stats import CompileTimings
from ..build.compiler import _cost_stats, _memory_stats
from ..build.graph import jaxify
from ..identity.fingerprint import ModelFingerprint
from .key import SamplerKey
from .parallel import mesh_of, shardings
from .programs import SamplerPrograms, sampler_programs


@dataclass(frozen=True)
class CompiledProgram:
    """A just compiled sampler program: the live executable, its bytes and its metadata."""

    metadata: EntryMetadata
    payload: bytes = field(repr=False)
    executable: Any = field(repr=False)


@dataclass
class SamplerBuild:
    """The model's logp, jaxified once (data as arguments), and the programs built from it."""

    model: Any
    fingerprint: ModelFingerprint
    seconds: float = 0.0
    _logp: tuple[Callable[..., Any], tuple[int, ...]] | None = None
    _programs: dict[str, SamplerPrograms] = field(default_factory=dict)

    def logp(self) -> tuple[Callable[..., Any], tuple[int, ...]]:
        """``(logp(*values, *data) -> scalar, data_indices)``."""
        if self._logp is None:
            t0 = time.perf_counter()
            graph = jaxify(list(self.model.value_vars), [self.model.logp()], self.fingerprint, ("logp",))
            self._logp = (lambda *args: graph.fn(*args)[0], graph.data_indices)
            self.seconds += time.perf_counter() - t0
        return self._logp

    def programs(self, key: SamplerKey, data_structs: list[Any], mesh: Any) -> SamplerPrograms:
        """The ``init`` and ``chunk`` functions of ``key``'s settings, made once for both programs
        (their jitted pieces then trace once for both lowerings)."""
        both = key.for_program("chunk").digest
        if both not in self._programs:
            logp, _ = self.logp()
            self._programs[both] = sampler_programs(logp, key.settings, _structs(key.values), data_structs, mesh)
        return self._programs[both]


def _structs(signature: Sequence[tuple[Any, tuple[int, ...], str]], lead: tuple[int, ...] = ()) -> list[Any]:
    return [jax.ShapeDtypeStruct((*lead, *shape), np.dtype(dtype)) for _, shape, dtype in signature]


def _arguments(key: SamplerKey, programs: SamplerPrograms | None, data_structs: list[Any]) -> list[Any]:
    chains = key.settings.chains
    if key.program == "logp":
        return [*_structs(key.values), *data_structs]
    if key.program == "init":
        return [*_structs(key.values, (chains,)), jax.ShapeDtypeStruct((chains, 2), np.uint32), *data_structs]
    assert programs is not None
    init_args = _arguments(key.for_program("init"), programs, data_structs)
    state = jax.eval_shape(programs.init, *init_args)
    return [*state, jax.ShapeDtypeStruct((), np.int32), *data_structs]


def _output_names(key: SamplerKey, n_state: int, stat_names: tuple[str, ...]) -> tuple[str, ...]:
    if key.program == "logp":
        return ("logp",)
    state = tuple(f"state.{i}" for i in range(n_state))
    if key.program == "init":
        return state
    return (*state, *(name for name, _, _ in key.values), *stat_names)


@dataclass(frozen=True)
class LoweredProgram:
    """A sampler program lowered for its shapes, not yet compiled (:func:`finish_program`)."""

    key: SamplerKey
    model_name: str
    lowered: Any = field(repr=False)
    n_state: int
    stat_names: tuple[str, ...]
    data_indices: tuple[int, ...]
    n_args: int
    build_seconds: float
    lower_seconds: float


def lower_program(build: SamplerBuild, key: SamplerKey, model_name: str = "") -> LoweredProgram:
    """Trace and lower ``key``'s program for its shapes (Python work: holds the GIL)."""
    logp, data_indices = build.logp()
    t0 = time.perf_counter()
    data_structs = _structs([key.data[i] for i in data_indices])
    programs, mesh = None, mesh_of(key.mesh_ids, key.platform) if key.mesh_ids else None
    if key.program != "logp":
        programs = build.programs(key, data_structs, mesh)
    if programs is None:  # a tuple of one, as the loader gives a stored program's outputs back

        def fn(*args: Any) -> tuple[Any]:
            return (logp(*args),)

    else:
        fn = programs.init if key.program == "init" else programs.chunk
    args = _arguments(key, programs, data_structs)
    jitted = jax.jit(fn)
    if mesh is not None and programs is not None:
        n_split = len(key.values) + 1 if key.program == "init" else programs.n_state
        in_shardings, out_sharding = shardings(mesh, n_split, len(args))
        jitted = jax.jit(fn, in_shardings=in_shardings, out_shardings=out_sharding)
    lowered = jitted.lower(*args)
    n_state, stat_names = (programs.n_state, programs.stat_names) if programs is not None else (0, ())
    return LoweredProgram(
        key, model_name, lowered, n_state, stat_names, data_indices, len(args), build.seconds, time.perf_counter() - t0
    )


def finish_program(lowered: LoweredProgram) -> CompiledProgram:
    """Compile a lowered program (XLA's work: releases the GIL, so programs compile in threads),
    serialize it and describe it."""
    key = lowered.key
    t1 = time.perf_counter()
    compiled = lowered.lowered.compile()
    t2 = time.perf_counter()
    payload, _, _ = serialize(compiled)
    outs = jax.tree_util.tree_leaves(lowered.lowered.out_info)
    shapes = tuple((tuple(int(s) for s in o.shape), str(o.dtype)) for o in outs)
    metadata = EntryMetadata(
        key=key.parts(),
        digest=key.digest,
        model_name=lowered.model_name,
        output_names=_output_names(key, lowered.n_state, lowered.stat_names),
        output_shapes=shapes,
        output_bytes=tuple(int(np.prod(s)) * np.dtype(d).itemsize for s, d in shapes),
        data_indices=lowered.data_indices,
        n_args=lowered.n_args,
        memory=_memory_stats(compiled),
        cost=_cost_stats(compiled),
        timings=CompileTimings(
            build=lowered.build_seconds,
            lower=lowered.lower_seconds,
            compile=t2 - t1,
            serialize=time.perf_counter() - t2,
        ),
        created=time.time(),
        requested=True,
        mesh_devices=key.mesh_ids or None,
    )
    return CompiledProgram(metadata, payload, compiled)
