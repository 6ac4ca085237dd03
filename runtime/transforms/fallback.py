"""The one warning pymc-aot gives when PyMC's own path runs instead of the cache.

Every fallback (a seam of ``pm.sample``, ``pm.compute_log_likelihood`` /
``compute_deterministics``, a PyMC without the seams) warns with :class:`FallbackWarning`
and logs the same line at WARNING through the ``pymc_aot`` logger, so it can be filtered
(``warnings.filterwarnings("ignore", category=pymc_aot.FallbackWarning)``) or collected.
:func:`pymc_seam` is the preamble every seam over a PyMC function shares.
"""

from __future__ import annotations

import functools
import inspect
import logging
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["FallbackWarning", "pymc_seam", "warn_fallback"]

log = logging.getLogger("pymc_aot")


class FallbackWarning(UserWarning):
    """pymc-aot handed a call to PyMC's own path; the result is PyMC's, the cache was not used."""


def warn_fallback(message: str, stacklevel: int = 2) -> None:
    """Warn ``message`` as a :class:`FallbackWarning` (pointing ``stacklevel`` frames above the
    caller) and log it through the ``pymc_aot`` logger."""
    log.warning("%s", message)
    warnings.warn(message, FallbackWarning, stacklevel=stacklevel + 1)


def warn_cached_failed(what: str, exc: BaseException) -> None:
    """The cached ``what`` failed with ``exc``: PyMC's own path runs (one :class:`FallbackWarning`,
    pointing two frames above the caller)."""
    warn_fallback(f"pymc-aot could not run the cached {what} ({type(exc).__name__}: {exc}); using PyMC's own path", 3)


def pymc_seam(
    original: Callable[..., Any],
    enabled: Callable[[], bool],
    answer: Callable[[inspect.BoundArguments, tuple[Any, ...], dict[str, Any]], Any],
) -> Callable[..., Any]:
    """``original`` (a PyMC function) wrapped for the cache: a call its signature rejects goes to
    ``original`` (PyMC raises its own TypeError), and so does one made while ``enabled()`` is false
    (a reference kept from while it was enabled); any other call is ``answer(bound, args, kwargs)``,
    with PyMC's defaults applied to ``bound``. ``answer`` runs one frame below the user's call."""
    signature = inspect.signature(original)

    @functools.wraps(original)
    def seam(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return original(*args, **kwargs)
        bound.apply_defaults()
        if not enabled():
            return original(*args, **kwargs)
        return answer(bound, args, kwargs)

    return seam
