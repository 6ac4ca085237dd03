"""pymc-aot: ahead-of-time compiled, cached postprocessing for PyMC.

The public API. Names load on first use, so ``import pymc_aot`` (and the command line)
starts without importing jax or pymc.

* :func:`precompile` compiles and stores a model's transform before sampling.
* :func:`compare` compiles every strategy and shows which fits (a table, HTML, a plot).
* :func:`postprocess` / :func:`log_likelihood` run the cached transform on raw draws.
* :func:`from_posterior` computes deterministics or the log-likelihood from ``idata.posterior``.
* :func:`enable` / :func:`disable` / :func:`enabled` hook the cache into ``pm.sample``;
  :class:`FallbackWarning` says when PyMC's own path ran instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .lazy import lazy_attributes

_EXPORTS = {
    "precompile": ".aot.resolve",
    "compare": ".aot.compare",
    "Comparison": ".aot.compare",
    "MemoryBudgetError": ".aot.budget",
    "TransformEntry": ".aot.entries",
    "TransformKey": ".aot.key",
    "postprocess": ".runtime.engine",
    "log_likelihood": ".runtime.engine",
    "from_posterior": ".runtime.engine",
    "clear_memo": ".runtime.engine",
    "get_store": ".runtime.engine",
    "SampleError": ".runtime.validate",
    "FallbackWarning": ".runtime.fallback",
    "enable": ".runtime.pymc_hooks",
    "enabled": ".runtime.pymc_hooks",
    "disable": ".runtime.pymc_hooks",
    "is_enabled": ".runtime.pymc_hooks",
    "CacheStore": ".cache",
    "CachePermissionError": ".cache",
    "IntegrityError": ".cache",
}

__all__ = [
    "CachePermissionError",
    "CacheStore",
    "Comparison",
    "FallbackWarning",
    "IntegrityError",
    "MemoryBudgetError",
    "SampleError",
    "TransformEntry",
    "TransformKey",
    "clear_memo",
    "compare",
    "disable",
    "enable",
    "enabled",
    "from_posterior",
    "get_store",
    "is_enabled",
    "log_likelihood",
    "postprocess",
    "precompile",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors only
    from .aot.budget import MemoryBudgetError
    from .aot.compare import Comparison, compare
    from .aot.entries import TransformEntry
    from .aot.key import TransformKey
    from .aot.resolve import precompile
    from .cache import CachePermissionError, CacheStore, IntegrityError
    from .runtime.engine import clear_memo, from_posterior, get_store, log_likelihood, postprocess
    from .runtime.fallback import FallbackWarning
    from .runtime.pymc_hooks import disable, enable, enabled, is_enabled
    from .runtime.validate import SampleError


__getattr__ = lazy_attributes(__name__, _EXPORTS, globals())
