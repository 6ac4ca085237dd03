"""pymc-aot: ahead-of-time compiled, cached postprocessing for PyMC.

The public API. Names load on first use, so ``import pymc_aot`` (and the command line)
starts without importing jax or pymc.

* :func:`precompile` compiles and stores a model's transform before sampling.
* :func:`compare` compiles every strategy and shows which fits (a table, HTML, a plot).
* :func:`postprocess` / :func:`log_likelihood` run the cached transform on raw draws.
* :func:`posterior_predictive` draws the posterior predictive (``pm.sample_posterior_predictive``).
* :func:`from_posterior` computes deterministics or the log-likelihood from ``idata.posterior``.
* :func:`enable` / :func:`disable` / :func:`enabled` hook the cache into ``pm.sample``;
  :class:`FallbackWarning` says when PyMC's own path ran instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .aot.identity.replaced_functions import watch_loaded as _watch_modules
from .aot.identity.rewrite_calls import install as _watch_rewrite_databases
from .lazy import lazy_attributes

# user changes to PyTensor's rewrite databases and PyMC's / PyTensor's module-level names from
# now on reach the key (aot/identity/rewrite_calls.py, replaced_functions.py)
_watch_rewrite_databases()
_watch_modules()

__version__ = "0.1.0"
"""This release (pyproject.toml reads it from here; CHANGELOG.md says what changed)."""

_EXPORTS = {
    "precompile": ".aot.choice.resolve",
    "compare": ".aot.choice.compare",
    "Comparison": ".aot.choice.compare",
    "MemoryBudgetError": ".aot.strategies.budget",
    "TransformEntry": ".aot.build.entries",
    "TransformKey": ".aot.identity.key",
    "postprocess": ".runtime.transforms.engine",
    "log_likelihood": ".runtime.transforms.engine",
    "from_posterior": ".runtime.transforms.engine",
    "posterior_predictive": ".runtime.predictive",
    "clear_memo": ".runtime.transforms.engine",
    "get_store": ".runtime.transforms.engine",
    "SampleError": ".runtime.transforms.validate",
    "FallbackWarning": ".runtime.transforms.fallback",
    "enable": ".runtime.pymc.pymc_hooks",
    "enabled": ".runtime.pymc.pymc_hooks",
    "disable": ".runtime.pymc.pymc_hooks",
    "is_enabled": ".runtime.pymc.pymc_hooks",
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
    "__version__",
    "clear_memo",
    "compare",
    "disable",
    "enable",
    "enabled",
    "from_posterior",
    "get_store",
    "is_enabled",
    "log_likelihood",
    "posterior_predictive",
    "postprocess",
    "precompile",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and editors only
    from .aot.build.entries import TransformEntry
    from .aot.choice.compare import Comparison, compare
    from .aot.choice.resolve import precompile
    from .aot.identity.key import TransformKey
    from .aot.strategies.budget import MemoryBudgetError
    from .cache import CachePermissionError, CacheStore, IntegrityError
    from .runtime.predictive import posterior_predictive
    from .runtime.pymc.pymc_hooks import disable, enable, enabled, is_enabled
    from .runtime.transforms.engine import clear_memo, from_posterior, get_store, log_likelihood, postprocess
    from .runtime.transforms.fallback import FallbackWarning
    from .runtime.transforms.validate import SampleError


__getattr__ = lazy_attributes(__name__, _EXPORTS, globals())
