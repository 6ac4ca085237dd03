"""Load a stored executable onto one device: the only XLA work a cache hit does.

Imports jax and nothing that builds (no PyTensor JAX dispatch, no numpyro, no pymc.sampling.jax).
"""

from __future__ import annotations

from typing import Any

import jax
from jax.experimental.serialize_executable import deserialize_and_load


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


def load_executable(
    payload: bytes, n_args: int, n_outputs: int, device: Any, mesh_devices: tuple[int, ...] | None = None
) -> Any:
    """Deserialize an executable for one device (PyMC forces 100 host devices), or for the
    devices ``mesh_devices`` (ids on ``device``'s backend) a sharded executable was built for."""
    _initialize_kernels()
    devices = [device]
    if mesh_devices is not None:
        by_id = {d.id: d for d in jax.devices(device.platform)}
        missing = [i for i in mesh_devices if i not in by_id]
        if missing:
            raise ValueError(
                f"the executable runs on {device.platform} devices {list(mesh_devices)}; "
                f"this process has {len(by_id)} (ids {missing} are missing)"
            )
        devices = [by_id[i] for i in mesh_devices]
    in_tree = jax.tree_util.tree_structure((tuple(range(n_args)), {}))
    out_tree = jax.tree_util.tree_structure(tuple(range(n_outputs)))
    return deserialize_and_load(payload, in_tree, out_tree, backend=device.client, execution_devices=devices)
