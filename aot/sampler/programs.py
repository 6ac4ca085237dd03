"""The pure-JAX functions a sampler is compiled from, with flat arguments and outputs.

``SamplerPrograms`` holds, for one model and settings:

* ``init(*positions, keys, *data) -> state leaves`` (positions ``(chains, *shape)``);
* ``chunk(*state, n, *data) -> (*state, *draws, *stats)``: ``n <= K`` steps, draws and stats
  ``(chains, K, ...)`` of which the first ``n`` along axis 1 are filled.

Every chain runs in one program (``vmap``), or, for ``chain_method="parallel"``, each device
of a mesh runs its block of chains (``shard_map``, :mod:`.parallel`); a block of one chain runs
unbatched (``Kernel.one_chain``), as numpyro's ``pmap`` runs it. The library-specific
parts live in :mod:`.numpyro_nuts` and :mod:`.blackjax_nuts`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp

from .kernel import Kernel, Logp
from .settings import SamplerSettings


@dataclass(frozen=True)
class SamplerPrograms:
    init: Callable[..., Any]
    chunk: Callable[..., Any]
    n_state: int
    stat_names: tuple[str, ...]


def make_kernel(logp: Logp, settings: SamplerSettings) -> Kernel:
    if settings.sampler == "numpyro":
        from .numpyro_nuts import numpyro_kernel

        return numpyro_kernel(logp, settings)
    from .blackjax_nuts import blackjax_kernel

    return blackjax_kernel(logp, settings)


def sampler_programs(
    logp: Logp, settings: SamplerSettings, point_structs: list[Any], data_structs: list[Any], mesh: Any = None
) -> SamplerPrograms:
    """The ``init`` and ``chunk`` functions for values shaped like ``point_structs`` (one point);
    over ``mesh`` (an ``aot.strategies.sharding.MeshPlan``) each device runs its block of chains."""
    kernel = make_kernel(logp, settings)
    n_values, chains, steps = len(point_structs), settings.chains, settings.chunk
    block = chains // (mesh.size if mesh is not None else 1)  # the chains one device runs
    if block == 1:
        kernel = kernel.one_chain()

    @jax.jit  # traced once for the state's structure, the chunk's arguments and the init program
    def state(*args: Any) -> Any:
        return kernel.init(list(args[:n_values]), args[n_values], tuple(args[n_values + 1 :]))

    def init(*args: Any) -> list[Any]:
        return jax.tree_util.tree_leaves(state(*args))

    batched = [jax.ShapeDtypeStruct((block, *s.shape), s.dtype) for s in point_structs]
    keys = jax.ShapeDtypeStruct((block, 2), jnp.uint32)
    treedef = jax.tree_util.tree_structure(jax.eval_shape(state, *batched, keys, *data_structs))
    n_state = treedef.num_leaves

    # one trace of the step serves both the buffers' shapes and the loop (a second trace of a
    # batched NUTS step, its while loops and conds, cost as much as the rest of the lowering)
    step = jax.jit(kernel.step)

    def chunk(*args: Any) -> list[Any]:
        start = jax.tree_util.tree_unflatten(treedef, args[:n_state])
        n, data = args[n_state], tuple(args[n_state + 1 :])
        _, position0, stats0 = jax.eval_shape(step, start, data)
        draws = [jnp.zeros((steps, *p.shape), p.dtype) for p in position0]
        stats = {k: jnp.zeros((steps, *v.shape), v.dtype) for k, v in stats0.items()}

        def body(i: Any, carry: Any) -> Any:
            state, draws, stats = carry
            state, position, stat = step(state, data)
            draws = [d.at[i].set(p) for d, p in zip(draws, position, strict=True)]
            stats = {k: stats[k].at[i].set(stat[k]) for k in stats}
            return state, draws, stats

        end, draws, stats = jax.lax.fori_loop(0, n, body, (start, draws, stats))
        moved = [jnp.swapaxes(d, 0, 1) for d in (*draws, *(stats[k] for k in kernel.stat_names))]
        return [*jax.tree_util.tree_leaves(end), *moved]

    if mesh is not None:
        from .parallel import split_over

        init, chunk = split_over(mesh, init, n_values + 1), split_over(mesh, chunk, n_state)
    return SamplerPrograms(init, chunk, n_state, kernel.stat_names)
