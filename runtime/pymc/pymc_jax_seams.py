"""The replacements for the postprocessing seams of ``pymc.sampling.jax``.

PyMC's ``sample_jax_nuts`` postprocesses in three module-level calls, which are the seams:

* ``get_jaxified_graph(inputs=model.value_vars, outputs=vars_to_sample)`` -- while a
  sampling call is active this returns a :class:`DeferredGraph` that remembers the model
  and the outputs and only builds PyMC's function if someone calls it;
* ``_postprocess_samples(jax_fn, raw_samples, backend, vectorize, donate)`` -- given a
  ``DeferredGraph`` it runs the cached executable instead;
* ``_get_log_likelihood(model, raw_samples, backend, vectorize)`` -- runs the cached
  log-likelihood executable.

``sample_jax_nuts`` (and its ``sample_numpyro_nuts`` / ``sample_blackjax_nuts`` partials)
are wrapped only to know which model is being sampled and whether the user chose a
``postprocessing_vectorize``. ``runtime.pymc.pymc_hooks`` installs these replacements;
``disable()`` puts every original object back. A replacement called while pymc-aot is not
enabled (one left in place after ``disable()`` by something that saved it while enabled: a
test's ``monkeypatch``, a ``mock.patch``) is PyMC's own function.

PyMC 5.28 and 6.x have these seams with the same signatures (PyMC 6's ``_get_log_likelihood``
goes through ``_postprocess_samples`` itself; it is replaced whole, so that does not matter).
PyMC 6 changed only how ``pm.sample`` hands the driver options over (``nuts={...}``, lifted
into ``sample_jax_nuts``'s keywords), so they reach the wrapper as keywords on both lines.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from ..transforms.fallback import warn_cached_failed
from .hook_state import ACTIVE, STATE, ActiveSampling

SEAMS = (
    "sample_jax_nuts",
    "sample_numpyro_nuts",
    "sample_blackjax_nuts",
    "get_jaxified_graph",
    "_postprocess_samples",
    "_get_log_likelihood",
)


class DeferredGraph:
    """Stands in for PyMC's jaxified posterior function; builds it only if called."""

    def __init__(
        self, model: Any, inputs: list[Any], outputs: list[Any], vectorize: str | None, budget: int | None = None
    ) -> None:
        self.model = model
        self.inputs = inputs
        self.outputs = outputs
        self.vectorize = vectorize
        self.budget = budget
        self._fn: Any = None

    def build(self) -> Any:
        if self._fn is None:
            self._fn = STATE.originals["get_jaxified_graph"](inputs=self.inputs, outputs=self.outputs)
        return self._fn

    def __call__(self, *args: Any) -> Any:
        return self.build()(*args)


def _strategy_for(vectorize: str | None) -> tuple[str, int | None]:
    options = STATE.current()
    if vectorize in ("vmap", "scan"):
        return vectorize, None  # the user asked PyMC for one; ours of the same name
    return options.strategy, options.batch_size


def _run_cached(
    model: Any,
    samples: Any,
    *,
    kind: str,
    names: tuple[str, ...],
    backend: str | None,
    vectorize: str | None,
    budget: int | None = None,
) -> dict[str, Any]:
    from ...aot.identity.spec import OutputSpec
    from ..streams.sharded_input import devices_for
    from ..transforms.engine import run_transform

    options = STATE.current()
    strategy, batch_size = _strategy_for(vectorize)
    active = ACTIVE.get()
    out = options.out if active is not None else None
    request = options.request_options(
        strategy=strategy,
        batch_size=batch_size,
        log_likelihood=kind == "log_likelihood",
        backend=backend,
        memory_budget=budget if budget is not None else options.memory_budget,
        devices=devices_for(strategy, samples, options.devices),  # parallel chains stay on their devices
    )
    spec = OutputSpec(kind, names)
    result = run_transform(model, list(samples), request, cache=options.cache_dir, spec=spec, out=out)
    if out is None or active is None:
        return result
    from .sample_out import placeholders

    active.written[kind] = Path(out)
    return placeholders(result)


def _get_jaxified_graph(inputs: Any = None, outputs: Any = None) -> Any:
    active = ACTIVE.get()
    original = STATE.originals["get_jaxified_graph"]
    if active is None or active.stock or outputs is None or inputs is None:
        return original(inputs=inputs, outputs=outputs)
    model, vectorize = active.model, active.vectorize
    from ...aot.identity.spec import posterior_names

    known = set(posterior_names(model))
    if list(inputs) != list(model.value_vars) or not all(getattr(o, "name", None) in known for o in outputs):
        return original(inputs=inputs, outputs=outputs)  # the sampler's logp, or someone else's graph
    _hold_background(active)  # sampling is over: the postprocessing starts
    return DeferredGraph(model, list(inputs), list(outputs), vectorize, active.budget)


def _hold_background(active: ActiveSampling) -> None:
    """Pause ``auto``'s background compiles until this ``pm.sample`` returns (``aot.choice.auto_later``)."""
    if not active.holding:
        from ...aot.choice import auto_later

        auto_later.hold()
        active.holding.append(True)


def _postprocess_samples(
    jax_fn: Any,
    raw_mcmc_samples: Any,
    postprocessing_backend: Any = None,
    postprocessing_vectorize: Any = "vmap",
    donate_samples: bool = False,
) -> Any:
    original = STATE.originals["_postprocess_samples"]
    if isinstance(jax_fn, DeferredGraph):
        names = tuple(o.name for o in jax_fn.outputs)
        try:
            result = _run_cached(
                jax_fn.model,
                raw_mcmc_samples,
                kind="posterior",
                names=names,
                backend=postprocessing_backend,
                vectorize=jax_fn.vectorize,
                budget=jax_fn.budget,
            )
        except Exception as exc:  # noqa: BLE001 - never lose a sampling run to the cache
            warn_cached_failed("posterior transform", exc)
            jax_fn = jax_fn.build()
        else:
            return [result[n] for n in names]
    return original(
        jax_fn,
        raw_mcmc_samples,
        postprocessing_backend=postprocessing_backend,
        postprocessing_vectorize=postprocessing_vectorize,
        donate_samples=donate_samples,
    )


def _get_log_likelihood(model: Any, samples: Any, backend: Any = None, postprocessing_vectorize: Any = "scan") -> Any:
    active = ACTIVE.get()
    if STATE.options is None or (active is not None and active.stock):
        return STATE.originals["_get_log_likelihood"](model, samples, backend, postprocessing_vectorize)
    if active is not None:
        _hold_background(active)
    names = tuple(rv.name for rv in model.observed_RVs)
    vectorize = active.vectorize if active is not None else postprocessing_vectorize
    budget = active.budget if active is not None else None
    try:
        return _run_cached(
            model, samples, kind="log_likelihood", names=names, backend=backend, vectorize=vectorize, budget=budget
        )
    except Exception as exc:  # noqa: BLE001 - never lose a sampling run to the cache
        warn_cached_failed("log-likelihood", exc)
        return STATE.originals["_get_log_likelihood"](model, samples, backend, postprocessing_vectorize)


def _sample_jax_nuts(*args: Any, **kwargs: Any) -> Any:
    if STATE.options is None:
        return STATE.originals["sample_jax_nuts"](*args, **kwargs)
    from ...aot.identity.fingerprint import one_walk_per_model
    from ..transforms.engine import DEFAULT

    # one walk: the sampler's keys, the preflight and the postprocessing; one executable: the
    # preflight's serves the postprocessing (TransformCache.run_scope)
    with one_walk_per_model(), DEFAULT.run_scope():
        return _sample_in_scope(*args, **kwargs)


def _sample_in_scope(*args: Any, **kwargs: Any) -> Any:
    import pymc as pm

    from .preflight import begin

    model = pm.modelcontext(kwargs.get("model"))
    options, gate = STATE.current(), None
    if options.sampler:  # the compiled sampler's programs load (or compile) while PyMC prepares
        from ..sampler.prefetch import Gate, prefetch

        gate = Gate()
        prefetch(model, STATE.originals["sample_jax_nuts"], args, kwargs, gate)
    preflight = begin(model, args, kwargs, gate)  # back once its (last) transform is lowered
    try:
        if gate is None or options.out is not None:  # nothing of ours settles it before PyMC's first draw
            preflight.settle()
        return _sample_active(ActiveSampling(model, kwargs.get("postprocessing_vectorize"), preflight), args, kwargs)
    finally:
        preflight.join()  # its thread is over before the call is (and before a refusal propagates)


def _sample_active(active: ActiveSampling, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    from ...aot.choice.resolve import SAMPLING

    token, sampling = ACTIVE.set(active), SAMPLING.set(True)
    out = STATE.current().out
    try:
        if out is None or active.stock:
            return STATE.originals["sample_jax_nuts"](*args, **kwargs)
        from .sample_out import sample_into_store

        return sample_into_store(STATE.originals["sample_jax_nuts"], args, kwargs, active.model, active.written)
    finally:
        ACTIVE.reset(token)
        SAMPLING.reset(sampling)
        if active.holding:
            from ...aot.choice import auto_later

            auto_later.release()


REPLACEMENTS = {
    "sample_jax_nuts": _sample_jax_nuts,
    "sample_numpyro_nuts": functools.partial(_sample_jax_nuts, nuts_sampler="numpyro"),
    "sample_blackjax_nuts": functools.partial(_sample_jax_nuts, nuts_sampler="blackjax"),
    "get_jaxified_graph": _get_jaxified_graph,
    "_postprocess_samples": _postprocess_samples,
    "_get_log_likelihood": _get_log_likelihood,
}


def seams_present(module: Any) -> bool:
    import inspect

    if not all(callable(getattr(module, name, None)) for name in SEAMS):
        return False
    expected = {
        "sample_jax_nuts": {"model", "postprocessing_vectorize", "postprocessing_backend"},
        "get_jaxified_graph": {"inputs", "outputs"},
        "_postprocess_samples": {
            "jax_fn",
            "raw_mcmc_samples",
            "postprocessing_backend",
            "postprocessing_vectorize",
            "donate_samples",
        },
        "_get_log_likelihood": {"model", "samples", "backend", "postprocessing_vectorize"},
    }
    for name, params in expected.items():
        try:
            found = set(inspect.signature(getattr(module, name)).parameters)
        except (TypeError, ValueError):
            return False
        if not params <= found:
            return False
    return True
