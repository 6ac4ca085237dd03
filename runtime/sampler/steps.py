"""``pm.sample``'s ``assign_step_methods``, answered from the store on a warm run.

Installed with the compiled sampler (``seams.install``) in place of
``pymc.sampling.mcmc.assign_step_methods``, which ``pm.sample`` looks up there at each call
(PyMC 5.28 and 6.x). A call from ``pm.sample`` with ``nuts_sampler="numpyro"|"blackjax"`` and no
``step`` of the user's, for a model the fingerprint describes exactly, is answered from a record
(``aot/sampler/steps.py``) once PyMC's own function has answered "NUTS for every variable" for
that model: the same ``([], {NUTS: model.value_vars})`` PyMC returns, without building the logp
and its gradients. Every other call, and every failure here, is PyMC's own function; so is
every call while the compiled sampler is off (a hook left behind after ``disable()``).
"""

from __future__ import annotations

import sys
import time
from types import FrameType
from typing import Any

from ..pymc.hook_state import STATE
from .counts import COUNTS
from .replacing import pymcs_function, replacing, serving

SERVED = ("numpyro", "blackjax")
_ORIGINAL: dict[str, Any] = {}


def _from_sample(frame: FrameType | None) -> bool:
    """Whether the caller is ``pm.sample`` asking for a JAX NUTS sampler the compiled one serves."""
    return (
        frame is not None
        and frame.f_code.co_name == "sample"
        and frame.f_globals.get("__name__") == "pymc.sampling.mcmc"
        and frame.f_locals.get("nuts_sampler") in SERVED
    )


def _key(model: Any, methods: Any) -> Any:
    from ...aot.sampler.steps import StepsKey, method_names
    from .session import _fingerprint

    return StepsKey(_fingerprint(model), method_names(list(methods)))


def _store() -> Any:
    from ..transforms.engine import get_store

    return get_store(STATE.current().cache_dir)


def _recorded(model: Any, methods: Any) -> tuple[Any, Any]:
    """``(key, step class)`` of a recorded answer; ``(key, None)`` if none; ``(None, None)`` if
    this model cannot have one."""
    from ...aot.sampler.steps import recorded_method

    try:
        key = _key(model, methods)
        name = recorded_method(_store(), key)
    except Exception:  # noqa: BLE001 - the fingerprint or the store failed: PyMC's function answers
        return None, None
    by_name = dict(zip(key.methods, methods, strict=True))
    return key, by_name.get(name) if name is not None else None


def _record(key: Any, answer: tuple[Any, Any], model: Any, seconds: float) -> None:
    from pymc.step_methods import NUTS

    from ...aot.sampler.steps import method_names, record_method

    provided, selected = answer
    if provided or len(selected) != 1:
        return
    [(method, chosen)] = selected.items()
    if not (isinstance(method, type) and issubclass(method, NUTS)) or list(chosen) != list(model.value_vars):
        return
    try:
        record_method(_store(), key, method_names([method])[0], seconds)
    except Exception:  # noqa: BLE001 - a record not written is asked for again next time
        return


def _hook(original: Any) -> Any:
    def assign_step_methods(model: Any, step: Any = None, methods: Any = None, *args: Any, **kwargs: Any) -> Any:
        """PyMC's ``assign_step_methods``; from the record where ``pm.sample`` asks for numpyro/blackjax."""
        if not serving() or step is not None or not methods or args or kwargs:
            return original(model, step, methods, *args, **kwargs)
        if not _from_sample(sys._getframe(1)):
            return original(model, step, methods)
        key, method = _recorded(model, methods)
        if method is not None:
            COUNTS["steps_recorded"] += 1
            return [], {method: list(model.value_vars)}
        COUNTS["steps_asked"] += 1
        t0 = time.perf_counter()
        answer = original(model, step, methods)
        if key is not None:
            _record(key, answer, model, time.perf_counter() - t0)
        return answer

    return replacing(original, assign_step_methods)


def install() -> None:
    import pymc.sampling.mcmc as mcmc

    if not _ORIGINAL and callable(getattr(mcmc, "assign_step_methods", None)):
        original = pymcs_function(mcmc.assign_step_methods)  # PyMC's, not a hook of ours left behind
        _ORIGINAL["assign_step_methods"] = original
        mcmc.assign_step_methods = _hook(original)


def uninstall() -> None:
    if _ORIGINAL:
        import pymc.sampling.mcmc as mcmc

        mcmc.assign_step_methods = _ORIGINAL.pop("assign_step_methods")
