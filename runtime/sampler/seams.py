"""``pm.sample(nuts_sampler="numpyro"|"blackjax")`` on the compiled sampler.

PyMC's ``sample_jax_nuts`` stays in charge (initial points, postprocessing, the
InferenceData, convergence checks); three of its module-level helpers are replaced:

* ``get_jaxified_logp`` returns a :class:`LazyLogp`: the stored ``logp`` program for PyMC's
  initial-point checks, PyMC's own jaxified logp only if something traces it;
* ``_sample_numpyro_nuts`` / ``_sample_blackjax_nuts`` run the stored sampler in chunks and
  return what PyMC's would (raw draws, sample stats named as PyMC names them, the library).

On by default inside ``enable()`` (``enable(sampler=False)`` leaves sampling to PyMC). What the
compiled sampler does not serve (unknown ``nuts_kwargs``, a model the fingerprint cannot
describe) or a failure of its own runs PyMC's own function, with one ``FallbackWarning``;
``MemoryBudgetError`` (the sampler would not fit the budget) is raised before sampling.

A replacement called while the compiled sampler is off (not enabled, or ``enable(sampler=False)``)
is PyMC's own function: one left in ``pymc.sampling.jax`` after ``disable()`` (something that saved
it while enabled put it back: a test's ``monkeypatch``, a ``mock.patch``) never samples from the
store, and ``install`` takes PyMC's function from behind it.
"""

from __future__ import annotations

import logging
from typing import Any

from ..pymc.hook_state import STATE
from ..transforms.fallback import warn_fallback
from .replacing import pymcs_function, replacing, serving

log = logging.getLogger("pymc_aot")
REPLACED = ("get_jaxified_logp", "_sample_numpyro_nuts", "_sample_blackjax_nuts")
_ORIGINALS: dict[str, Any] = {}


class LazyLogp:
    """Stands in for ``get_jaxified_logp(model, negative_logp)``'s function."""

    def __init__(self, model: Any, negative_logp: bool, make: Any) -> None:
        self.model, self.negative_logp, self._make = model, negative_logp, make
        self._jax_fn: Any = None

    def original(self) -> Any:
        if self._jax_fn is None:
            self._jax_fn = self._make(self.model, negative_logp=self.negative_logp)
        return self._jax_fn

    def __call__(self, x: Any) -> Any:
        import jax

        if any(isinstance(v, jax.core.Tracer) for v in jax.tree_util.tree_leaves(x)):
            return self.original()
        from ..pymc.preflight import settle_active
        from .session import logp_at

        settle_active()  # a call the preflight refused stops here, at its first start point (nothing compiled)
        try:
            value = logp_at(self.model, list(x))
        except Exception as exc:  # noqa: BLE001 - the check of a start point falls back to PyMC's function
            log.debug(
                "pymc-aot: the logp program failed on a start point (%s: %s); PyMC's own logp checks it",
                type(exc).__name__,
                exc,
            )
            return self.original()(x)
        return -value if self.negative_logp else value


def _logp(original: Any) -> Any:
    def get_jaxified_logp(model: Any, negative_logp: bool = True) -> Any:
        if not serving():
            return original(model, negative_logp=negative_logp)
        return LazyLogp(model, negative_logp, original)

    return replacing(original, get_jaxified_logp)


def _warn(sampler: str, why: str) -> None:
    warn_fallback(
        f"pymc-aot: the compiled {sampler} sampler does not serve this call ({why}); using PyMC's own sampler",
        stacklevel=3,
    )


def _sampler(name: str, original: Any) -> Any:
    def sample(**kwargs: Any) -> Any:
        from ...aot.sampler import UnsupportedSettings
        from ...aot.strategies.budget import MemoryBudgetError
        from ..pymc.preflight import settle_active
        from .session import run_compiled

        settle_active()  # the postprocessing's verdict, before the first draw
        if serving():
            try:
                return run_compiled(name, **kwargs)
            except UnsupportedSettings as exc:
                _warn(name, str(exc))
            except MemoryBudgetError:
                raise  # the refusal the preflight exists for
            except Exception as exc:  # noqa: BLE001 - never lose a sampling run to the cache
                _warn(name, f"{type(exc).__name__}: {exc}")
        logp = kwargs.get("logp_fn")
        if isinstance(logp, LazyLogp):
            kwargs["logp_fn"] = logp.original()
        return original(**kwargs)

    sample.__name__ = f"_sample_{name}_nuts"
    return replacing(original, sample)


def install() -> None:
    """Replace the helpers (once)."""
    import pymc.sampling.jax as pymc_jax

    if _ORIGINALS:
        return
    from . import start, steps

    steps.install()  # pm.sample's assign_step_methods, from the store on a warm run
    start.install()  # PyMC's jittered initial points, from the store for an exact repeat
    _ORIGINALS.update({name: pymcs_function(getattr(pymc_jax, name)) for name in REPLACED})
    pymc_jax.get_jaxified_logp = _logp(_ORIGINALS["get_jaxified_logp"])
    pymc_jax._sample_numpyro_nuts = _sampler("numpyro", _ORIGINALS["_sample_numpyro_nuts"])
    pymc_jax._sample_blackjax_nuts = _sampler("blackjax", _ORIGINALS["_sample_blackjax_nuts"])


def uninstall() -> None:
    """Put PyMC's helpers back; harmless if not installed."""
    if not _ORIGINALS:
        return
    import pymc.sampling.jax as pymc_jax

    from . import start, steps

    steps.uninstall()
    start.uninstall()
    for name, original in _ORIGINALS.items():
        setattr(pymc_jax, name, original)
    _ORIGINALS.clear()


def present(module: Any) -> bool:
    return all(callable(getattr(module, name, None)) for name in REPLACED) and STATE is not None
