"""Which options of ``pm.compute_log_likelihood`` / ``compute_deterministics`` the cache can serve.

``backend=`` (PyMC 6) and ``compile_kwargs={"mode": ...}`` naming one of PyTensor's own
modes only choose the backend PyTensor compiles to; the cache computes the same values with
JAX, so those calls are served. Anything else in ``compile_kwargs`` (``givens``, ``updates``,
a ``Mode`` of one's own whose rewrites may change the numerics, ...) goes to PyMC.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

_BACKEND_ONLY_MODES = frozenset({"FAST_RUN", "FAST_COMPILE", "C", "CVM", "VM", "JAX", "NUMBA", "PYTORCH", "MLX"})
"""PyTensor's predefined modes by name: each picks a linker and the standard rewrites."""

MERGE_DEPRECATED = (
    "`merge_dataset` is deprecated and will be removed in a future release. "
    "Use `extend_dataset=True` to add the deterministics to the original dataset, "
    "passing a `.copy()` of it if it should not be mutated."
)
"""PyMC 6's FutureWarning for ``compute_deterministics(merge_dataset=True)``, word for word."""


class PyMCsToAnswer(Exception):
    """Arguments PyMC rejects with its own error: the call goes to PyMC, without a warning."""


def _predefined(mode: Any) -> bool:
    if isinstance(mode, str):
        return mode.upper() in _BACKEND_ONLY_MODES
    from pytensor.compile import mode as modes

    known = [*modes.predefined_modes.values(), *modes.fast_run_linkers_to_mode.values()]
    return any(mode is m for m in known)


def compile_kwargs_reason(compile_kwargs: Any, backend: Any) -> str | None:
    """Why ``compile_kwargs`` (with ``backend``) may change the result, or None when it only
    chooses PyTensor's backend. Raises :class:`PyMCsToAnswer` for a combination PyMC refuses."""
    if backend is not None and not isinstance(backend, str):
        raise PyMCsToAnswer
    if (compile_kwargs or backend is not None) and pymcs_compile_replaced():
        return "pymc.model.core.compile is replaced; the compile options are for it"
    if backend is not None and not _predefined(backend):
        return f"backend={backend!r} is not one of PyTensor's predefined modes"
    if not compile_kwargs:
        return None
    if not isinstance(compile_kwargs, dict):
        raise PyMCsToAnswer
    if backend is not None and "mode" in compile_kwargs:
        raise PyMCsToAnswer  # PyMC 6: "compile_kwargs['mode'] cannot be combined with backend"
    others = sorted(set(compile_kwargs) - {"mode"})
    if others:
        return f"compile_kwargs {others} may change the result; the cache only serves 'mode'"
    if not _predefined(compile_kwargs["mode"]):
        return f"compile_kwargs mode={compile_kwargs['mode']!r} is not one of PyTensor's predefined modes"
    return None


def pymcs_compile_replaced() -> bool:
    """Whether ``pymc.model.core.compile`` (what ``Model.compile_fn`` compiles with) is not PyMC's
    own function: whoever replaced it (a test's mock, a profiler) asked for PyMC's path."""
    import pymc.model.core
    import pymc.pytensorf

    own = getattr(pymc.pytensorf, "compile", None)
    return own is not None and getattr(pymc.model.core, "compile", own) is not own


def warn_as(original: Any, message: str, category: type[Warning]) -> None:
    """Warn ``message`` as if from inside ``original`` (a PyMC function), as PyMC itself does:
    same category, module and file, so PyMC's users' warning filters treat it the same."""
    code = original.__code__
    module = original.__globals__.get("__name__", "pymc")
    registry = original.__globals__.setdefault("__warningregistry__", {})
    filename = inspect.getsourcefile(original) or code.co_filename
    warnings.warn_explicit(message, category, filename, code.co_firstlineno, module, registry)
