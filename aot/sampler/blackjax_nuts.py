"""blackjax's NUTS with Stan's window adaptation, as PyMC's ``_blackjax_inference_loop`` runs
it, but one step at a time so that warmup and sampling run in chunks.

The state carries the chain's state, the adaptation state, the step index, the chain's key
and the tuned parameters (``adapt_final`` at the end of warmup, as ``window_adaptation.run``
does). Step ``i`` draws with ``fold_in(chain key, i)``: PyMC splits the key into as many keys
as steps, which would make every key depend on the run's length (and not only the warmup's);
the draws are therefore equal to PyMC's in distribution, not bit for bit. Statistics are
named as PyMC names them.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from .kernel import Kernel, Logp
from .settings import SamplerSettings

STATS = ("diverging", "energy", "tree_depth", "n_steps", "acceptance_rate", "lp")


class ChainState(NamedTuple):
    chain: Any
    adaptation: Any
    i: Any
    key: Any
    step_size: Any
    inverse_mass_matrix: Any


def blackjax_kernel(logp: Logp, settings: SamplerSettings) -> Kernel:
    import blackjax
    from blackjax.adaptation.window_adaptation import base, build_schedule

    options = dict(settings.nuts)
    if options.pop("algorithm", "nuts") != "nuts":
        from .settings import UnsupportedSettings

        raise UnsupportedSettings("the compiled blackjax sampler runs algorithm='nuts' only")
    diagonal = bool(options.pop("is_mass_matrix_diagonal", True))
    initial_step_size = float(options.pop("initial_step_size", 1.0))
    adapt_init, adapt_step, adapt_final = base(diagonal, target_acceptance_rate=settings.target_accept)
    mcmc_kernel = blackjax.nuts.build_kernel()
    tune = settings.tune
    schedule = build_schedule(tune) if tune else jnp.zeros((1, 2), jnp.int32)

    def init_one(position: list[Any], key: Any, data: tuple[Any, ...]) -> ChainState:
        density = lambda z: logp(*z, *data)
        adaptation = adapt_init(position, initial_step_size)
        step_size, imm = adapt_final(adaptation)
        chain = blackjax.nuts.init(position, density)
        return ChainState(chain, adaptation, jnp.zeros((), jnp.int32), key, step_size, imm)

    def init(positions: list[Any], keys: Any, data: tuple[Any, ...]) -> Any:
        return jax.vmap(init_one, in_axes=(0, 0, None))(positions, keys, data)

    step_one = _step(logp, mcmc_kernel, adapt_step, adapt_final, schedule, tune, options)

    def step(state: Any, data: tuple[Any, ...]) -> Any:
        return jax.vmap(step_one, in_axes=(0, None))(state, data)

    return Kernel(init, step, STATS, init_one, step_one)


def _step(
    logp: Logp, mcmc_kernel: Any, adapt_step: Any, adapt_final: Any, schedule: Any, tune: int, options: dict[str, Any]
) -> Any:
    """One chain's step: NUTS with the warmup's or the tuned parameters, then the adaptation."""

    def step_one(state: ChainState, data: tuple[Any, ...]) -> Any:
        density = lambda z: logp(*z, *data)
        warmup = state.i < tune
        step_size = jnp.where(warmup, state.adaptation.step_size, state.step_size)
        imm = jax.tree_util.tree_map(
            lambda a, b: jnp.where(warmup, a, b), state.adaptation.inverse_mass_matrix, state.inverse_mass_matrix
        )
        key = jax.random.fold_in(state.key, state.i)
        chain, info = mcmc_kernel(key, state.chain, density, step_size, imm, **options)
        stage = schedule[jnp.minimum(state.i, schedule.shape[0] - 1)]
        adaptation = jax.lax.cond(
            warmup,
            lambda a: adapt_step(a, stage, chain.position, info.acceptance_rate),
            lambda a: a,
            state.adaptation,
        )
        final_step, final_imm = adapt_final(adaptation)
        last = state.i == tune - 1
        new = ChainState(
            chain,
            adaptation,
            state.i + 1,
            state.key,
            jnp.where(last, final_step, state.step_size),
            jax.tree_util.tree_map(lambda a, b: jnp.where(last, a, b), final_imm, state.inverse_mass_matrix),
        )
        stats = {
            "diverging": info.is_divergent,
            "energy": info.energy,
            "tree_depth": info.num_trajectory_expansions,
            "n_steps": info.num_integration_steps,
            "acceptance_rate": info.acceptance_rate,
            "lp": chain.logdensity,
        }
        return new, list(chain.position), stats

    return step_one
