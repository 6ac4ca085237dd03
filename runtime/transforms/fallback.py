"""The one warning pymc-aot gives when PyMC's own path runs instead of the cache.

Every fallback (a seam of ``pm.sample``, ``pm.compute_log_likelihood`` /
``compute_deterministics``, a PyMC without the seams) warns with :class:`FallbackWarning`
and logs the same line at WARNING through the ``pymc_aot`` logger, so it can be filtered
(``warnings.filterwarnings("ignore", category=pymc_aot.FallbackWarning)``) or collected.
"""

from __future__ import annotations

import logging
import warnings

__all__ = ["FallbackWarning", "warn_fallback"]

log = logging.getLogger("pymc_aot")


class FallbackWarning(UserWarning):
    """pymc-aot handed a call to PyMC's own path; the result is PyMC's, the cache was not used."""


def warn_fallback(message: str, stacklevel: int = 2) -> None:
    """Warn ``message`` as a :class:`FallbackWarning` (pointing ``stacklevel`` frames above the
    caller) and log it through the ``pymc_aot`` logger."""
    log.warning("%s", message)
    warnings.warn(message, FallbackWarning, stacklevel=stacklevel + 1)
