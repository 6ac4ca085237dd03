"""numpyro's NUTS (``numpyro.infer.NUTS``'s kernels) as a batched init and step.

The same kernels ``MCMC.run`` drives from Python: ``NUTS.init`` with one key per chain
(vectorized, as PyMC's keys are), then ``NUTS.sample`` per step; warmup adaptation lives in
the state (``state.i < num_warmup``), so warmup and sampling are one step function. Statistics
are named as ``pymc.sampling.jax._numpyro_stats_to_dict`` names them (``tree_depth`` is
derived on the host, as PyMC does).
"""

from __future__ import annotations

from typing import Any

import jax

from .kernel import Kernel, Logp
from .settings import SamplerSettings

STATS = ("n_steps", "lp", "energy", "step_size", "acceptance_rate", "diverging")


def numpyro_kernel(logp: Logp, settings: SamplerSettings) -> Kernel:
    from numpyro.infer import NUTS

    def make(data: tuple[Any, ...]) -> Any:
        nuts = dict(settings.nuts)
        nuts.setdefault("adapt_step_size", True)  # PyMC's defaults (_sample_numpyro_nuts)
        nuts.setdefault("adapt_mass_matrix", True)
        nuts.setdefault("dense_mass", False)
        return NUTS(potential_fn=lambda z: -logp(*z, *data), target_accept_prob=settings.target_accept, **nuts)

    def init(positions: list[Any], keys: Any, data: tuple[Any, ...]) -> Any:
        """Batched keys ``(chains, 2)`` vmap numpyro's init and step; one key ``(2,)`` does not."""
        return make(data).init(keys, settings.tune, positions)

    def step(state: Any, data: tuple[Any, ...]) -> Any:
        kernel = make(data)
        # NUTS.init sets the closures NUTS.sample uses; traced abstractly, it adds nothing to the program
        jax.eval_shape(lambda z, k: kernel.init(k, settings.tune, z), state.z, state.rng_key)
        new = kernel.sample(state, (), {})
        stats = {
            "n_steps": new.num_steps,
            "lp": new.potential_energy,
            "energy": new.energy,
            "step_size": new.adapt_state.step_size,
            "acceptance_rate": new.accept_prob,
            "diverging": new.diverging,
        }
        return new, list(new.z), stats

    return Kernel(init, step, STATS, init, step)
