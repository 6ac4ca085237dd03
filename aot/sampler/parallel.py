"""``chain_method="parallel"``: the chains split over devices, one block of chains per device.

As stock numpyro's ``pmap``: with at least as many devices as chains (on a CPU, PyMC's import
forces 100 host devices), each of ``chains`` devices runs its own chain in the same program
(``shard_map``), so a chain's tree depth never waits for another's. With fewer devices the
chains run vectorized on one device, with one warning saying so (stock numpyro warns and
draws them one after another). The key names the devices (``SamplerKey.mesh_ids``): a
serialized multi-device executable names them by id, so other devices are a miss.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import jax

from ..strategies.sharding import MeshPlan
from .settings import SamplerSettings


def chain_mesh_ids(settings: SamplerSettings, device: Any) -> tuple[int, ...]:
    """The ids of the devices the chains run on (none: vectorized on ``device``)."""
    if settings.chain_method != "parallel" or settings.chains == 1:
        return ()
    devices = _devices(device.platform)
    if len(devices) < settings.chains:
        warnings.warn(
            f"pymc-aot: chain_method='parallel' needs {settings.chains} {device.platform} devices and this process "
            f"has {len(devices)}; the compiled sampler runs the chains vectorized on one device",
            UserWarning,
            stacklevel=4,
        )
        return ()
    return tuple(int(d.id) for d in devices[: settings.chains])


def _devices(platform: str) -> list[Any]:
    return list(jax.devices(platform))


def mesh_of(ids: tuple[int, ...], platform: str) -> MeshPlan:
    """The one-axis mesh over the devices ``ids`` (split along chains)."""
    by_id = {int(d.id): d for d in jax.devices(platform)}
    return MeshPlan(tuple(by_id[i] for i in ids), 0)


def split_over(mesh: MeshPlan, fn: Callable[..., Any], n_split: int) -> Callable[..., Any]:
    """``fn`` run on each device's block: its first ``n_split`` arguments and every output split
    along chains, the other arguments replicated."""
    return mesh.on_blocks(fn, 0, n_split, mesh.spec)


def shardings(mesh: MeshPlan, n_split: int, n_args: int) -> tuple[list[Any], Any]:
    """``(in_shardings, out_sharding)`` for a program made by :func:`split_over`."""
    split, whole = mesh.sharding(True), mesh.sharding(False)
    return [split] * n_split + [whole] * (n_args - n_split), split
