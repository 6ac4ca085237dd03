"""The compiled numpyro sampler draws stock PyMC's bits where each chain has its own device.

PyMC's import gives a CPU process 100 host devices, so ``pm.sample(nuts_sampler="numpyro")``
runs numpyro's ``pmap``: one chain per device, each an unbatched NUTS. The compiled sampler runs
the same kernels unbatched on each device (``Kernel.one_chain``), in chunks; XLA gives the same
numbers, so the draws and every statistic equal stock's exactly, cold or warm, any chunk size.
(Vectorized chains and blackjax are other programs: ``test_sampler_distribution``.)
"""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # pm.sample runs, stock and compiled


def _model(name):
    import zoo

    if name == "eight_schools":
        from bench.models import eight_schools

        return eight_schools(0.25)
    return getattr(zoo, name)()


def _sample(model, seed):
    import pymc as pm

    with model:
        return pm.sample(
            draws=70, tune=60, chains=3, nuts_sampler="numpyro", random_seed=seed, progressbar=False,
            compute_convergence_checks=False,
        )


def _arrays(idata):
    out = {f"posterior/{k}": v.values for k, v in idata.posterior.items()}
    out.update({f"sample_stats/{k}": v.values for k, v in idata.sample_stats.items()})
    return out


@pytest.mark.parametrize("name", ["eight_schools", "regression_data", "scalars"])
def test_numpyro_one_chain_per_device_draws_stocks_bits(name, cache_dir):
    import warnings

    from pymc_aot import runtime
    from pymc_aot.runtime.sampler.counts import COUNTS
    from pymc_aot.runtime.transforms.fallback import FallbackWarning

    def programs_used():
        return COUNTS["compiled"] + COUNTS["loaded"] + COUNTS["memo"]

    model = _model(name)
    for seed, chunk in ((3, 25), (4, 1000)):
        stock = _arrays(_sample(model, seed))
        before = programs_used()
        with runtime.enabled(chunk_size=chunk), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ours = _arrays(_sample(model, seed))
        # PyMC's own sampler would draw stock's bits trivially: the compiled one must have run
        fell_back = [str(w.message) for w in caught if issubclass(w.category, FallbackWarning)]
        assert fell_back == [], fell_back
        assert programs_used() > before, "the compiled sampler's programs were not used"
        assert sorted(ours) == sorted(stock)
        for k in stock:
            np.testing.assert_array_equal(ours[k], stock[k], err_msg=f"{name} seed {seed} {k}")
