"""The posterior predictive as a transform: PyMC's forward graph from the posterior draws (and
``pm.Data`` as arguments) to the sampled variables, with JAX's PRNG keyed per draw.

* :mod:`.forward` -- which variables are drawn, which are taken from the posterior (PyMC's
  ``compile_forward_sampling_function`` logic), and the forward graph;
* :mod:`.keying` -- the per-draw key: ``fold_in(key(random_seed), flat draw index)``;
* :mod:`.lowering` -- the jaxified per-draw function the strategies map.
"""

from .forward import PredictivePlan, plan_predictive
from .keying import RNG_INPUT, rng_array

__all__ = ["RNG_INPUT", "PredictivePlan", "plan_predictive", "rng_array"]
