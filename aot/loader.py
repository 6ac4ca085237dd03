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


def load_executable(payload: bytes, n_args: int, n_outputs: int, device: Any) -> Any:
    """Deserialize an executable for one device (PyMC forces 100 host devices)."""
    _initialize_kernels()
    in_tree = jax.tree_util.tree_structure((tuple(range(n_args)), {}))
    out_tree = jax.tree_util.tree_structure(tuple(range(n_outputs)))
    return deserialize_and_load(payload, in_tree, out_tree, backend=device.client, execution_devices=[device])
