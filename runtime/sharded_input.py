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

from ..cache.entry import EntryMetadata


def place_arguments(
    executable: Any, metadata: EntryMetadata, device: Any, arrays: Sequence[Any], data: Sequence[Any]
) -> tuple[list[Any], list[Any]]:
    """``arrays`` (samples) and ``data`` as device arrays where ``executable`` reads them."""
    if metadata.mesh_devices is None:
        placed, placed_data = jax.device_put((list(arrays), list(data)), device)  # one transfer
        return placed, placed_data
    shardings = list(executable.input_shardings[0])
    n = len(arrays)
    value_shardings, data_shardings = shardings[:n], shardings[n : n + len(data)]
    placed = [_placed(a, s) for a, s in zip(arrays, value_shardings, strict=True)]
    return placed, [_placed(d, s) for d, s in zip(data, data_shardings, strict=True)]


def _placed(x: Any, sharding: Any) -> Any:
    """``x`` with ``sharding``: unchanged if it already has it, else moved shard by shard."""
    if isinstance(x, jax.Array) and x.sharding.is_equivalent_to(sharding, x.ndim):
        return x
    return jax.device_put(x, sharding)
