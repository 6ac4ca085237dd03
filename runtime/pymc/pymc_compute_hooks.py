"""``pm.compute_log_likelihood`` and ``pm.compute_deterministics`` through the cache.

The seams are module attributes, replaced by :func:`enable` and put back, by identity, by
:func:`disable`:

* ``pymc.stats.log_density.compute_log_likelihood`` -- where ``pm.sample`` (PyMC's NUTS, and
  nutpie in PyMC 6) and ``pm.to_inference_data`` look it up when asked for a log-likelihood;
  ``pymc.stats.compute_log_likelihood`` and ``pymc.compute_log_likelihood``, what users call;
* ``pymc.sampling.deterministic.compute_deterministics``, ``pymc.sampling.compute_deterministics``
  and ``pymc.compute_deterministics``.

A call is bound to PyMC's own signature. ``backend=`` and ``compile_kwargs={"mode": ...}``
naming one of PyTensor's modes only choose PyTensor's backend: the cache serves them
(``runtime/pymc/compute_options.py``). What the cache does not handle -- sample dimensions other
than ("chain", "draw"), other ``compile_kwargs``, an argument this module does not know, or any
failure of the cached run -- goes to PyMC's own function with one ``FallbackWarning``.
Arguments PyMC itself rejects (unknown ``var_names``, say) go to PyMC silently, so the user
gets PyMC's own error. ``progressbar`` is ignored. PyMC 6's ``merge_dataset`` gives PyMC's own
FutureWarning and PyMC's result.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..transforms.fallback import pymc_seam, warn_fallback
from .compute_options import MERGE_DEPRECATED, PyMCsToAnswer, compile_kwargs_reason, warn_as

SEAMS: dict[str, tuple[str, ...]] = {
    "compute_log_likelihood": ("pymc.stats.log_density", "pymc.stats", "pymc"),
    "compute_deterministics": ("pymc.sampling.deterministic", "pymc.sampling", "pymc"),
}
"""Function name -> the modules whose attribute is replaced; the first one defines it."""

_READ = {
    "compute_log_likelihood": {"idata", "var_names", "extend_inferencedata", "model", "progressbar"},
    "compute_deterministics": {
        "dataset", "group", "var_names", "model", "merge_dataset", "extend_dataset", "progressbar"
    },
}
_ACCEPTED: dict[str, Callable[[Any], bool]] = {
    "sample_dims": lambda v: not isinstance(v, str) and tuple(v) == ("chain", "draw"),  # posterior_io's layout
}
_CHECKED_TOGETHER = {"compile_kwargs", "backend"}  # compute_options.compile_kwargs_reason


@dataclass
class _State:
    options: Any = None
    originals: dict[tuple[str, str], Any] = field(default_factory=dict)


_STATE = _State()


def _original(name: str) -> Any:
    return _STATE.originals[(SEAMS[name][0], name)]


def _unsupported(name: str, arguments: dict[str, Any], signature: inspect.Signature) -> str | None:
    """Why the cache cannot answer this call, or None."""
    for param, value in arguments.items():
        if param in _READ[name] or param in _CHECKED_TOGETHER:
            continue
        accepted = _ACCEPTED.get(param)
        if accepted is not None:
            if not accepted(value):
                return f"{param}={value!r} is not handled by the cache"
        elif value is not signature.parameters[param].default:
            return f"argument {param}={value!r} is not handled by the cache"
    return compile_kwargs_reason(arguments.get("compile_kwargs"), arguments.get("backend"))


def _run_options() -> dict[str, Any]:
    """``from_posterior``'s keywords for ``enable``'s options (``Options.request_options``)."""
    options = _STATE.options
    request = options.request_options()
    picked = ("strategy", "batch_size", "memory_budget", "devices")
    return {"cache": options.cache_dir, **{name: getattr(request, name) for name in picked}}


def _names(var_names: Any, available: list[str]) -> list[str] | None:
    """``var_names`` as a list when the cache can answer for them; PyMC answers otherwise."""
    if var_names is None:
        return None
    names = [] if isinstance(var_names, str) else list(var_names)  # a bare string: PyMC's reading
    if not names or not all(isinstance(n, str) and n in available for n in names):
        raise PyMCsToAnswer
    return list(dict.fromkeys(names))


def _model(model: Any) -> Any:
    """The model PyMC would use; no model at all is PyMC's error to raise."""
    import pymc as pm

    try:
        return pm.modelcontext(model)
    except TypeError:
        raise PyMCsToAnswer from None


def _computed(
    model: Any, dataset: Any, *, log_likelihood: bool, var_names: list[str] | None, default: list[str]
) -> Any:
    """The cached executable's results from ``dataset``, as the Dataset PyMC would build."""
    from ..transforms.engine import from_posterior
    from .posterior_io import posterior_arrays, results_dataset

    if not default:
        raise PyMCsToAnswer  # nothing to compute; PyMC decides what that returns
    arrays = posterior_arrays(dataset, [rv.name for rv in model.free_RVs])
    results = from_posterior(model, arrays, log_likelihood=log_likelihood, var_names=var_names, **_run_options())
    return results_dataset(results, var_names or default, model, dataset)


def _log_likelihood(arguments: dict[str, Any]) -> Any:
    from .posterior_io import add_group, as_dataset

    model = _model(arguments["model"])
    observed = [rv.name for rv in model.observed_RVs]
    var_names = _names(arguments["var_names"], observed)
    idata = arguments["idata"]
    try:
        posterior = as_dataset(idata["posterior"])
    except (KeyError, TypeError, AttributeError):
        raise PyMCsToAnswer from None  # no posterior group: PyMC says so
    dataset = _computed(model, posterior, log_likelihood=True, var_names=var_names, default=observed)
    if arguments["extend_inferencedata"]:
        add_group(idata, "log_likelihood", dataset)
        return idata
    return dataset


def _deterministics(arguments: dict[str, Any]) -> Any:
    merge, extend = arguments.get("merge_dataset", False), arguments.get("extend_dataset", False)
    original = selected = arguments["dataset"]
    if "group" in arguments:
        from pymc.sampling.deterministic import _select_group

        try:
            selected = _select_group(original, arguments["group"])
        except ValueError:
            raise PyMCsToAnswer from None
    dataset = selected.dataset if hasattr(selected, "to_dataset") else selected
    model = _model(arguments["model"])
    available = [d.name for d in model.deterministics]
    var_names = _names(arguments["var_names"], available)
    result = _computed(model, dataset, log_likelihood=False, var_names=var_names, default=available)
    if extend:
        selected.update(result)
        return original
    if merge:
        import xarray

        return xarray.merge([dataset, result], compat="override")
    return result


def _announce(name: str, original: Any, arguments: dict[str, Any]) -> bool:
    """PyMC 6's deprecation of ``merge_dataset``, warned as PyMC warns it; True if warned."""
    merge, extend = arguments.get("merge_dataset", False), arguments.get("extend_dataset", False)
    if name != "compute_deterministics" or "extend_dataset" not in arguments or not merge:
        return False
    if extend:
        raise PyMCsToAnswer  # PyMC's ValueError: the two cannot be combined
    warn_as(original, MERGE_DEPRECATED, FutureWarning)
    return True


def _pymcs(original: Any, announced: bool, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """PyMC's own call; a deprecation already warned is not warned twice."""
    if not announced:
        return original(*args, **kwargs)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=re.escape(MERGE_DEPRECATED), category=FutureWarning)
        return original(*args, **kwargs)


_COMPUTE = {"compute_log_likelihood": _log_likelihood, "compute_deterministics": _deterministics}


def _answer(name: str, bound: inspect.BoundArguments, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The cache's answer to a bound call, or PyMC's own (with one warning where the cache could not)."""
    original = _original(name)
    announced = False
    try:
        announced = _announce(name, original, bound.arguments)
        reason = _unsupported(name, bound.arguments, bound.signature)
        if reason is None:
            try:
                return _COMPUTE[name](bound.arguments)
            except PyMCsToAnswer:
                raise
            except Exception as exc:  # noqa: BLE001 - never lose a user's call to the cache
                reason = f"{type(exc).__name__}: {exc}"
        warn_fallback(f"pymc-aot: {name} runs PyMC's own path ({reason})", 3)
    except PyMCsToAnswer:
        pass
    return _pymcs(original, announced, args, kwargs)


def _enabled() -> bool:
    return _STATE.options is not None


def _seam(name: str) -> Callable[..., Any]:
    return pymc_seam(_original(name), _enabled, functools.partial(_answer, name))


def enable(options: Any) -> None:
    """Route both functions through the cache with ``options`` (``pymc_hooks.Options``)."""
    if not _STATE.originals:
        modules = {m: importlib.import_module(m) for ms in SEAMS.values() for m in ms}
        _STATE.originals = {(m, name): getattr(modules[m], name) for name, ms in SEAMS.items() for m in ms}
        for name, ms in SEAMS.items():
            replacement = _seam(name)
            for m in ms:
                setattr(modules[m], name, replacement)
    _STATE.options = options


def disable() -> None:
    """Put every replaced attribute back, the very objects found by :func:`enable`."""
    for (module, name), original in _STATE.originals.items():
        setattr(importlib.import_module(module), name, original)
    _STATE.originals = {}
    _STATE.options = None


def is_enabled() -> bool:
    return bool(_STATE.originals)

