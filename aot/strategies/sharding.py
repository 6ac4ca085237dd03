"""The device mesh of ``sharded(B)``: which devices, which axis of the samples is split.

A mesh is one axis (``AXIS``) over N devices of one backend. The samples ``(chains, draws,
*shape)`` are split along chains when N divides them, else along draws when N divides those;
when neither does, the mesh shrinks to the largest device count that divides one of them
(JAX shards only evenly). Every output is split the same way, so nothing is gathered.

A serialized multi-device executable names its devices by id (JAX pickles them), so the
key names the device ids, and a process that has other devices misses and compiles.
On the CPU the number of host devices is fixed when JAX's backend starts; see
:func:`ensure_host_devices`.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

AXIS = "shards"
"""The mesh's one axis name."""

PYMC_HOST_DEVICES = 100
"""What ``import pymc.sampling.jax`` forces (``--xla_force_host_platform_device_count``)."""

SHARD_ON_CPU = False
"""Whether ``auto`` weighs ``sharded`` on the CPU backend (tests set it; see ``aot.choice.shard_fit``)."""

DeviceRequest = int | Sequence[Any] | None
"""``devices=``: a count, a list of jax devices, or None for the default (see below)."""


class DeviceCountError(ValueError):
    """More devices were asked for than the backend has."""


@dataclass(frozen=True)
class MeshPlan:
    """The devices of a sharded transform and the sample axis they split (0 chains, 1 draws)."""

    devices: tuple[Any, ...]
    split_axis: int

    @property
    def size(self) -> int:
        return len(self.devices)

    @property
    def mesh(self) -> Mesh:
        return Mesh(np.array(self.devices), (AXIS,))

    @property
    def spec(self) -> PartitionSpec:
        """How each sample array and each output is split."""
        return PartitionSpec(*([None] * self.split_axis), AXIS)

    @property
    def row_spec(self) -> PartitionSpec:
        """How a streamed batch's outputs ``(B, *shape)`` are split: B/D rows per device."""
        return PartitionSpec(AXIS)

    def sharding(self, split: bool) -> NamedSharding:
        return NamedSharding(self.mesh, self.spec if split else PartitionSpec())

    def on_blocks(self, local: Callable[..., Any], n_lead: int, n_values: int, out_spec: PartitionSpec) -> Any:
        """``local`` run on each device's block of the samples (the ``n_values`` arguments after
        ``n_lead`` leading ones); the other arguments replicated, the outputs split by ``out_spec``."""

        def run(*args: Any) -> Any:
            rest = len(args) - n_lead - n_values
            specs = (PartitionSpec(),) * n_lead + (self.spec,) * n_values + (PartitionSpec(),) * rest
            # check_vma off: a loop's output buffers start replicated and are filled per device
            return jax.shard_map(local, mesh=self.mesh, in_specs=specs, out_specs=out_spec, check_vma=False)(*args)

        return run

    def key_part(self) -> str:
        """The mesh as the key names it: platform, kinds, axis, shape, split axis, device ids."""
        d0 = self.devices[0]
        kinds = sorted({str(d.device_kind) for d in self.devices})
        ids = ",".join(str(d.id) for d in self.devices)
        split = ("chains", "draws")[self.split_axis]
        return f"{d0.platform} {'/'.join(kinds)} axis={AXIS} shape=({self.size},) split={split} ids={ids}"


def split_axis_named(key_mesh: str) -> int:
    """The sample axis a key's mesh part (:meth:`MeshPlan.key_part`) says is split: 0 or 1."""
    return 1 if " split=draws " in f"{key_mesh} " else 0


def physical_cores() -> int:
    """Physical cores this process may run on (``sched_getaffinity``; hyperthreads count once)."""
    allowed = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set(range(os.cpu_count() or 1))
    cores: set[tuple[str, str]] = set()
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
            blocks = fh.read().split("\n\n")
    except OSError:
        return max(1, len(allowed))
    for block in blocks:
        info = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in block.splitlines())}
        if info.get("processor", "").isdigit() and int(info["processor"]) in allowed:
            cores.add((info.get("physical id", "0"), info.get("core id", info["processor"])))
    return max(1, min(len(cores) or len(allowed), len(allowed)))


def default_device_count(platform: str) -> int:
    """On a CPU one host device per physical core; on accelerators all of them."""
    return physical_cores() if platform == "cpu" else len(jax.devices(platform))


def _forced_host_devices() -> int | None:
    match = re.search(r"--xla_force_host_platform_device_count=(\d+)", os.environ.get("XLA_FLAGS", ""))
    return int(match.group(1)) if match else None


def ensure_host_devices(backend: str | None) -> None:
    """Before JAX's backend starts, give the CPU the host devices a build process has.

    A build imports ``pymc.sampling.jax``, which forces ``PYMC_HOST_DEVICES`` host devices
    through ``XLA_FLAGS``; a cache hit does not import it and would start with one. If the
    backend has not started and nobody chose a count (``XLA_FLAGS``, ``jax_num_cpu_devices``),
    this sets the same flag PyMC sets, so the hit sees the devices the build compiled for.
    Once the backend has started nothing can change; :func:`plan_mesh` then says what is there.
    """
    from jax._src import xla_bridge

    if backend not in (None, "cpu") or xla_bridge.backends_are_initialized():
        return
    if _forced_host_devices() is None and jax.config.jax_num_cpu_devices < 0:
        flags = os.environ.get("XLA_FLAGS", "")
        os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={PYMC_HOST_DEVICES} {flags}".strip()


def requested_devices(devices: DeviceRequest, platform: str) -> tuple[Any, ...]:
    """The devices ``devices=`` names on ``platform``; a clear error where they are not there."""
    available = jax.devices(platform)
    if devices is None:
        devices = min(default_device_count(platform), len(available))
    if isinstance(devices, (int, np.integer)) and not isinstance(devices, bool):
        if devices < 1:
            raise ValueError(f"devices: expected a positive number of devices, got {devices}")
        if devices > len(available):
            hint = (
                " (host CPU devices are fixed when JAX starts: import pymc.sampling.jax or set "
                "XLA_FLAGS=--xla_force_host_platform_device_count=N before the first JAX call)"
                if platform == "cpu"
                else ""
            )
            raise DeviceCountError(f"devices={devices}: the {platform} backend has {len(available)} device(s){hint}")
        return tuple(available[:devices])
    try:
        chosen = tuple(devices)  # a list of jax devices
    except TypeError:
        raise ValueError(f"devices: expected a device count or a list of devices, got {devices!r}") from None
    if not chosen or any(getattr(d, "platform", None) != platform for d in chosen):
        got = [getattr(d, "platform", type(d).__name__) for d in chosen]
        raise ValueError(f"devices: expected a non-empty list of {platform} devices, got {got}")
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"devices: each device once, got {[d.id for d in chosen]}")
    return chosen


def plan_mesh(devices: DeviceRequest, platform: str, chains: int, draws: int) -> MeshPlan:
    """The mesh for ``chains`` x ``draws`` samples over the ``devices`` asked for."""
    chosen = requested_devices(devices, platform)
    for n in range(len(chosen), 0, -1):  # the largest count that splits chains, else draws
        axis = 0 if chains % n == 0 else 1 if draws and draws % n == 0 else None
        if axis is None:
            continue
        if n < len(chosen) and devices is not None:
            warnings.warn(
                f"pymc-aot: devices={len(chosen)} split neither {chains} chains nor {draws} draws evenly; "
                f"the mesh uses {n} devices",
                stacklevel=2,
            )
        return MeshPlan(chosen[:n], axis)
    raise AssertionError("one device always divides")  # pragma: no cover


def auto_mesh(devices: DeviceRequest, device: Any, chains: int, draws: int) -> MeshPlan | None:
    """The mesh ``auto`` may shard over when nothing fits one device; None where it does not
    (the CPU: measured no faster there, see ``aot.choice.shard_fit``; or a single device)."""
    if device.platform == "cpu" and not SHARD_ON_CPU:
        return None
    plan = plan_mesh(devices, device.platform, chains, draws)
    return plan if plan.size > 1 else None
