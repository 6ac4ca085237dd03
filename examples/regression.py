"""A regression whose deterministic mean is a large intermediate (20000 x 50 design matrix).

    pymc-aot precompile examples/regression.py:model --log-likelihood

The builder is ``pymc_aot.examples.regression`` (the benchmarks use it too); read it there.
"""

from pymc_aot.examples import regression

model = regression()
