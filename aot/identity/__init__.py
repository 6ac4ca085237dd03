"""What a transform is: the model hash and the cache key.

Owns: ``fingerprint`` (the model hash) and what it reads -- ``describe`` and its helpers
``instances``, ``usercode``, ``dispatch``, ``rewrites``, ``trust`` -- ``spec`` (which outputs
are computed), ``key`` (the TransformKey and the value Signature), ``versions`` and
``hostcpu`` (library versions and CPU features in the key).

May import: ``aot.strategies`` (the key names the strategy), ``aot.compat``,
``pymc_aot.cache``. Nothing here builds a graph or compiles.
"""

from __future__ import annotations

from ...lazy import lazy_attributes

__getattr__ = lazy_attributes(__name__, {}, globals(), submodules=True)  # ``room.module`` imports it on first use
