"""Eight schools, non-centred: a tiny model for trying pymc-aot.

    pymc-aot precompile examples/eight_schools.py:model

The builder is ``pymc_aot.examples.eight_schools`` (the benchmarks use it too).
"""

from pymc_aot.examples import eight_schools

model = eight_schools()
