"""A name for an entry made from Python: the model's, else the caller's variable, else file:line."""

from __future__ import annotations

import os
import sys
from typing import Any

_LIBRARIES = ("pymc_aot", "pymc", "pytensor", "jax", "jaxlib", "numpyro", "blackjax", "nutpie", "arviz", "contextlib")
"""Frames of these modules are skipped: the name comes from the user's own code."""


def _is_library(module: str) -> bool:
    return any(module == lib or module.startswith(lib + ".") for lib in _LIBRARIES)


def caller_label(model: Any) -> str:
    """``m`` if the first frame outside the libraries holds ``model`` in a variable named ``m``,
    else ``file.py:LINE`` of that call; "" where no such frame is found."""
    frame = sys._getframe(1)
    while frame is not None and _is_library(str(frame.f_globals.get("__name__", ""))):
        frame = frame.f_back
    if frame is None:
        return ""
    names = [name for name, value in frame.f_locals.items() if value is model]
    public = [n for n in names if not n.startswith("_")]
    if public or names:
        return (public or names)[0]
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"
