"""What the compiled sampler did in this process (tests and benchmarks read these)."""

from __future__ import annotations

COUNTS = {
    "compiled": 0,
    "loaded": 0,
    "memo": 0,
    "resumed_steps": 0,
    "steps_recorded": 0,
    "steps_asked": 0,
    "start_recorded": 0,
}
"""Programs compiled, read from the store, found in this process; steps a checkpoint saved;
``pm.sample`` calls (numpyro/blackjax) whose step methods came from the store, and those that
asked PyMC's own ``assign_step_methods`` (``steps.py``); calls whose jittered initial points
came from the store (``start.py``)."""
READY: list[float] = []
"""``time.perf_counter()`` when each run's programs were ready."""
DONE: list[float] = []
"""``time.perf_counter()`` when each run's last chunk had returned."""
