"""Replacements of PyMC's functions that stay PyMC's own while the compiled sampler is off.

A replacement records the function it stands in for (``__wrapped__``) and names itself
(``_pymc_aot_seam``), so ``install`` can take PyMC's function from behind one left in place
(``seams``, ``steps``, ``start`` use these).
"""

from __future__ import annotations

from typing import Any

from ..pymc.hook_state import STATE


def serving() -> bool:
    """Whether ``pm.sample`` runs the compiled sampler now (enabled, and not ``sampler=False``)."""
    return STATE.options is not None and STATE.options.sampler


def replacing(original: Any, replacement: Any) -> Any:
    """``replacement`` marked as ours, with the PyMC function it stands in for."""
    replacement.__wrapped__ = original
    replacement._pymc_aot_seam = replacement  # functools.wraps copies it: only ours names itself
    return replacement


def pymcs_function(fn: Any) -> Any:
    """PyMC's function behind ``fn``: ``fn`` itself unless it is a replacement of ours left in place."""
    while getattr(fn, "_pymc_aot_seam", None) is fn:
        fn = fn.__wrapped__
    return fn
