"""From a request to a compiled, stored entry.

Owns: ``options`` (RequestOptions), ``request`` (TransformRequest and ``make_request``),
``graph`` and ``constrained`` (the JAX function of a model's postprocessing),
``lowered_key`` (the key of the lowered program, for opaque user code), ``compiler``
(lower, compile, serialize), ``loader`` (deserialize an executable), ``entries``
(TransformEntry: read, fetch or compile and store).

May import: ``aot.identity``, ``aot.strategies``, ``aot.compat``, ``pymc_aot.cache``.
``compiler`` and ``graph`` bring PyTensor's JAX dispatch: a cache hit must not import them.
"""

from __future__ import annotations

from ...lazy import lazy_attributes

__getattr__ = lazy_attributes(__name__, {}, globals(), submodules=True)  # ``room.module`` imports it on first use
