"""The in-process transform cache: lookup-or-compile, load, run.

Owns: ``engine`` (``postprocess``, ``log_likelihood``, ``from_posterior``, the store and
memo), ``transform_cache`` (TransformCache: memo, disk, compile, per-digest locks), its parts
``loaded_transform``, ``counters``, ``digest_locks``, ``phases``, ``validate`` (the checks of
sample arrays), and ``from_posterior`` (run from a posterior's constrained values).

May import: ``runtime.streams``, ``pymc_aot.aot``, ``pymc_aot.cache``. Never PyMC's sampling
module at import time: this is the cache-hit path (tests/test_hit_imports.py).
"""

from __future__ import annotations

from ...lazy import lazy_attributes

__getattr__ = lazy_attributes(__name__, {}, globals(), submodules=True)  # ``room.module`` imports it on first use
