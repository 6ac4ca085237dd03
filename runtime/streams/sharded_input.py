"""Put a transform's arguments where its executable expects them, moving only what must move.

A one-device executable takes its arguments on the request's device. A ``sharded(B)``
executable takes the samples split over its mesh and the data replicated on it; samples that
already live that way (``pm.sample(chain_method="parallel")`` leaves each chain on its own
device) are passed as they are, and others are split straight from where they are: no
array is gathered onto one device first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax

from ...cache.entry import EntryMetadata


def place_arguments(
    executable: Any, metadata: EntryMetadata, device: Any, arrays: Sequence[Any], data: Sequence[Any]
) -> tuple[list[Any], list[Any]]:
    """``arrays`` (samples) and ``data`` as device arrays where ``executable`` reads them."""
    if metadata.mesh_devices is None:
        placed, placed_data = jax.device_put((list(arrays), list(data)), device)  # one transfer
        return placed, placed_data
    shardings = list(executable.input_shardings[0])
    shardings = shardings[len(shardings) - len(arrays) - len(data) :]  # after a streamed batch's start
    n = len(arrays)
    value_shardings, data_shardings = shardings[:n], shardings[n : n + len(data)]
    placed = [_placed(a, s) for a, s in zip(arrays, value_shardings, strict=True)]
    return placed, [_placed(d, s) for d, s in zip(data, data_shardings, strict=True)]


_move = jax.device_put  # the one place arguments move (tests count the calls)


def _placed(x: Any, sharding: Any) -> Any:
    """``x`` with ``sharding``: unchanged if it already has it, else moved shard by shard."""
    if isinstance(x, jax.Array) and x.sharding.is_equivalent_to(sharding, x.ndim):
        return x
    return _move(x, sharding)


def chain_devices(samples: Sequence[Any]) -> tuple[Any, ...] | None:
    """The devices holding the samples, in chain order, when every sample array is split along
    chains over the same several devices (``pm.sample(chain_method="parallel")``); else None."""
    order: tuple[Any, ...] | None = None
    for x in samples:
        if not isinstance(x, jax.Array) or len(x.sharding.device_set) < 2 or x.ndim < 2:
            return None
        blocks = x.sharding.devices_indices_map(x.shape)
        if any(
            any(i != slice(None) and i != slice(0, n) for i, n in zip(idx[1:], x.shape[1:], strict=True))
            for idx in blocks.values()
        ):
            return None  # split along another axis than chains
        starts = sorted((idx[0].start or 0, d.id, d) for d, idx in blocks.items())
        if len({s for s, _, _ in starts}) != len(starts):
            return None  # replicated somewhere
        devices = tuple(d for _, _, d in starts)
        if order is not None and devices != order:
            return None
        order = devices
    return order


def devices_for(strategy: str, samples: Sequence[Any], asked: Any = None) -> Any:
    """The ``devices=`` of a request for ``samples``: for ``sharded``, the devices the samples
    already live on, else ``asked`` (``enable(devices=)``; None: the default mesh); ``asked``
    for ``streamed`` and ``auto``; None for a one-device strategy (PyMC's own
    ``postprocessing_vectorize``)."""
    if strategy.startswith("sharded"):
        return chain_devices(list(samples)) or asked
    return asked if strategy.startswith("streamed") or strategy == "auto" else None
