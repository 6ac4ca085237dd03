"""``pm.sample_posterior_predictive`` through the cache, inside :func:`pymc_aot.enable`.

The seam is the module attribute ``sample_posterior_predictive`` of ``pymc.sampling.forward``,
``pymc.sampling`` and ``pymc``, replaced by :func:`enable` and put back, by identity, by
:func:`disable` (as ``runtime/pymc_compute_hooks.py`` does for ``compute_log_likelihood``).

A call is bound to PyMC's signature. An InferenceData, DataTree or Dataset posterior with
sample dims ("chain", "draw") is answered by the cached executable and returned as PyMC
returns it (``posterior_predictive`` or, with ``predictions=True``, ``predictions`` group;
``extend_inferencedata``; ``return_inferencedata=False``; ``idata_kwargs``). Anything else --
a MultiTrace or list of points, ``compile_kwargs``, a random variable without a JAX
implementation, any failure -- goes to PyMC's own function with one warning saying why.
The draws come from JAX's PRNG: equal to PyMC's in distribution, not in value.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..transforms.fallback import pymc_seam, warn_fallback

NAME = "sample_posterior_predictive"
MODULES = ("pymc.sampling.forward", "pymc.sampling", "pymc")
_IGNORED = {"progressbar", "progressbar_theme"}


@dataclass
class _State:
    options: Any = None
    originals: dict[str, Any] = field(default_factory=dict)


_STATE = _State()


class _PyMCsToAnswer(Exception):
    """A call PyMC answers itself without a warning (nothing to draw, no model, ...)."""


_KNOWN = {
    "trace", "model", "var_names", "sample_dims", "random_seed", "return_inferencedata",
    "extend_inferencedata", "predictions", "idata_kwargs", "compile_kwargs", *_IGNORED,
}


def _unsupported(arguments: dict[str, Any], signature: inspect.Signature) -> str | None:
    """Why the cache cannot answer this call, or None."""
    for param, value in arguments.items():
        if param not in _KNOWN and value is not signature.parameters[param].default:
            return f"argument {param}={value!r} is not handled by the cache"  # PyMC 6's sample_vars, freeze_vars
    trace = arguments.get("trace")
    if not (hasattr(trace, "groups") or hasattr(trace, "data_vars")):
        return f"a posterior of type {type(trace).__name__} (the cache takes InferenceData, DataTree or Dataset)"
    dims = arguments.get("sample_dims")
    if dims is not None and (isinstance(dims, str) or tuple(dims) != ("chain", "draw")):
        return f"sample_dims={dims!r}"
    if arguments.get("compile_kwargs"):
        return f"compile_kwargs={arguments['compile_kwargs']!r}"
    return None


def _predictive(arguments: dict[str, Any]) -> Any:
    import pymc as pm

    from ..transforms.engine import DEFAULT
    from . import _constant_coords
    from .run import make_plan, posterior_dict, run_predictive

    try:
        model = pm.modelcontext(arguments["model"])
    except TypeError:
        raise _PyMCsToAnswer from None
    trace = arguments["trace"]
    arrays, constant, observed = posterior_dict(trace)
    observed_names = [str(n) for n in observed.data_vars] if observed is not None else []
    plan = make_plan(
        model, arguments["var_names"], set(arrays), constant, _constant_coords(trace, model), observed_names, True
    )
    plan = type(plan)(tuple(n for n in plan.outputs if not _is_transformed(n)), plan.given, plan.drawn)
    if not plan.outputs:
        raise _PyMCsToAnswer  # PyMC decides what an empty request returns
    differs = _frozen_by_pymc(plan, set(arrays) - {d.name for d in model.deterministics})
    if differs:
        raise _Unserved(differs)
    if model.potentials:
        warnings.warn(
            "The effect of Potentials on other parameters is ignored during posterior predictive sampling. "
            "This is likely to lead to invalid or biased predictive samples.",
            UserWarning,
            stacklevel=5,
        )
    results = run_predictive(
        DEFAULT, model, arrays, plan, _options(), random_seed=arguments["random_seed"], cache=_STATE.options.cache_dir
    )
    from .idata import to_pymc_result

    return to_pymc_result(results, model, trace, arguments)


class _Unserved(Exception):
    """A call the cache could compute, but not as this PyMC computes it: PyMC's path, one warning."""


def _frozen_by_pymc(plan: Any, in_trace: set[str]) -> str | None:
    """Why PyMC 6 would answer ``plan`` otherwise, or None: it keeps the trace's random variables
    (``in_trace``) that ``plan`` draws afresh. PyMC 5.x follows ``plan`` exactly. A deterministic
    is recomputed by both, or copied by PyMC 6 where its inputs are unchanged (the same value)."""
    from ...aot.compat import freezes_trace_variables

    if not freezes_trace_variables():
        return None
    kept = sorted({*plan.drawn, *plan.outputs} & in_trace)
    if kept:
        return f"PyMC 6 keeps the trace's values of {kept} unless sample_vars names them; the cache draws them"
    return None


def _is_transformed(name: str) -> bool:
    from pymc.util import is_transformed_name

    return is_transformed_name(name)


def _options() -> Any:
    """``enable``'s options as a request's (strategy, batch size, budget, devices) and cache."""
    options = _STATE.options
    return options.request_options().replace(to_disk=False)  # enable(out=) is for pm.sample's groups


def _seam(original: Callable[..., Any]) -> Callable[..., Any]:
    """``original`` (PyMC's function, or a stand-in with its signature) answered by the cache."""
    return pymc_seam(original, _enabled, functools.partial(_answer, original))


def _answer(
    original: Callable[..., Any], bound: inspect.BoundArguments, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """The cache's answer to a bound call, or PyMC's own with one warning saying why."""
    reason = _unsupported(bound.arguments, bound.signature)
    if reason is None:
        try:
            return _predictive(bound.arguments)
        except _PyMCsToAnswer:
            return original(*args, **kwargs)
        except _Unserved as exc:
            reason = str(exc)
        except Exception as exc:  # noqa: BLE001 - never lose a user's call to the cache
            reason = f"{type(exc).__name__}: {exc}"
    warn_fallback(f"pymc-aot: {NAME} runs PyMC's own path ({reason})", 3)
    return original(*args, **kwargs)


def _enabled() -> bool:
    return _STATE.options is not None


def enable(options: Any) -> None:
    """Route ``pm.sample_posterior_predictive`` through the cache with ``options``."""
    if not _STATE.originals:
        modules = {m: importlib.import_module(m) for m in MODULES}
        _STATE.originals = {m: getattr(modules[m], NAME) for m in MODULES}
        replacement = _seam(_STATE.originals[MODULES[0]])
        for m in MODULES:
            setattr(modules[m], NAME, replacement)
    _STATE.options = options


def disable() -> None:
    """Put every replaced attribute back, the very objects found by :func:`enable`."""
    for module, original in _STATE.originals.items():
        setattr(importlib.import_module(module), NAME, original)
    _STATE.originals = {}
    _STATE.options = None
