"""A request for a transform: which model, outputs, strategy (or auto) and device; and its key.

Making a request is cheap: a fingerprint walk and a key, no PyTensor rewrite, no jaxify.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import jax
import pytensor

from ...cache.entry import SIZED_STRATEGIES
from ..identity.fingerprint import ModelFingerprint, fingerprint_model
from ..identity.key import Signature, TransformKey, make_key
from ..identity.spec import OutputSpec, resolve_outputs
from ..strategies.budget import resolve_budget
from ..strategies.sharding import DeviceRequest, auto_mesh, ensure_host_devices, plan_mesh
from ..strategies.strategies import AUTO, Strategy, get_strategy
from .naming import caller_label
from .options import RequestOptions

Progress = Callable[[str], None]
"""Told each step of a build ("building graph", "lowering", ...); a hit says nothing."""

AFTER_LOWERING: ContextVar[Callable[[], None] | None] = ContextVar("pymc_aot_after_lowering", default=None)
"""Called (in the compiling thread's context) once a transform is lowered, before XLA compiles it
(``compiler.compile_transform``): ``pm.sample``'s preflight lets the call go on there
(``runtime.pymc.preflight``). Here, not in the compiler: a warm run does not import that."""

_JAX_DISPATCH = "pytensor.link.jax.dispatch"


@functools.cache
def match_floatx() -> None:
    """Set ``jax_enable_x64`` from ``floatX`` once, as importing PyTensor's JAX dispatch does.

    A build imports that dispatch, which sets the flag at import; a hit does not import it.
    Doing the same here, before the key reads the flag and before samples go to the device,
    keys a hit like the build that stored it and puts float64 draws on the device as float64.
    If the dispatch is already imported, its import did this and the flag is left alone.
    """
    if _JAX_DISPATCH not in sys.modules:
        jax.config.update("jax_enable_x64", pytensor.config.floatX == "float64")


@dataclass(frozen=True)
class TransformRequest:
    """Everything needed to build, key and store one transform.

    ``strategy`` None is ``auto``: a strategy is still to be chosen, under ``budget`` bytes
    (see :func:`pymc_aot.aot.choice.resolve.resolve`); with ``family`` (``"batched"``,
    ``"streamed"``, ``"sharded"`` asked for without a batch size) only that family's B is.
    ``model_name`` labels the stored entry for ``inspect``; it is not part of the key.
    """

    model: Any = field(repr=False, compare=False)
    fingerprint: ModelFingerprint = field(repr=False)
    spec: OutputSpec
    strategy: Strategy | None
    device: Any
    key: TransformKey = field(repr=False)
    budget: int | None = None
    model_name: str = ""
    to_disk: bool = False
    """The outputs go to a store on disk (``out=``), not memory: ``auto`` streams them."""
    devices: DeviceRequest = field(default=None, compare=False)
    """``devices=`` as asked (a count, a list, None): the mesh of a ``sharded`` strategy."""
    family: str | None = None
    """A sized strategy asked for without its batch size: B is chosen (``aot.choice.sized``)."""

    @property
    def label(self) -> str:
        return self.strategy.label if self.strategy is not None else self.family or AUTO

    def with_strategy(self, strategy: Strategy) -> TransformRequest:
        """The same request with a concrete ``strategy`` (and the key that goes with it)."""
        devices = self.devices if strategy.name == "sharded" else None  # auto streams on one device
        strategy = _for_outputs(bind_mesh(strategy, devices, self.device, self.key.values), self.spec)
        key = make_key(self.fingerprint, self.spec, strategy, self.key.values, self.device)
        return dataclasses.replace(self, strategy=strategy, key=key, budget=None, family=None)


def _for_outputs(strategy: Strategy, spec: OutputSpec) -> Strategy:
    if spec.kind != "posterior" and strategy.donate:
        # The raw samples are still needed after the log-likelihood (PyMC never donates here);
        # constrained inputs are the user's posterior arrays, which are never ours to consume.
        return dataclasses.replace(strategy, donate=False)
    return strategy


def bind_mesh(strategy: Strategy, devices: DeviceRequest, device: Any, values: Signature) -> Strategy:
    """``sharded`` gets its mesh for these samples, ``streamed`` too given several ``devices``
    (see ``Strategy.spans``); other strategies are returned as they are."""
    if strategy.mesh is not None or not strategy.spans(devices):
        return strategy
    return strategy.on_mesh(plan_mesh(devices, device.platform, *_chains_draws(values)))


def _chains_draws(values: Signature) -> tuple[int, int]:
    return (int(values[0][1][0]), int(values[0][1][1])) if values else (1, 0)


def unsized(name: Any, batch_size: int | None) -> str | None:
    """``"batched"``, ``"streamed"`` or ``"sharded"`` asked for without a batch size: the name of
    the family whose B is chosen at resolve time, as ``auto`` sizes it (``aot.choice.sized``);
    else None."""
    return name if isinstance(name, str) and name in SIZED_STRATEGIES and batch_size is None else None


def check_family_devices(family: str | None, devices: DeviceRequest) -> None:
    """Refuse ``devices=`` with ``batched`` and an unsized ``streamed`` (its B over a mesh is not chosen)."""
    if family in ("batched", "streamed") and devices is not None:
        raise ValueError(
            f"devices={devices!r} with strategy {family!r} needs a batch size ({family}(B)); "
            "without one, B is chosen for one device"
        )


def check_devices_apply(strategy: Strategy | None, devices: DeviceRequest) -> None:
    """Refuse ``devices=`` with a strategy that runs on one device (``auto`` is None: it may shard)."""
    if strategy is not None and strategy.name not in ("sharded", "streamed") and devices is not None:
        raise ValueError(
            f"devices={devices!r} applies to the 'sharded' strategy (and auto), not {strategy.label!r}; "
            "'streamed(B)' takes it too"
        )


def resolve_device(backend: str | None) -> Any:
    """The one device a transform runs on: the first of ``backend`` (default backend if None)."""
    try:
        return jax.devices(backend)[0]
    except RuntimeError as exc:
        raise ValueError(f"backend {backend!r} is not available here: {exc}") from None


def make_request(
    model: Any,
    values: Signature,
    options: RequestOptions | None = None,
    *,
    fingerprint: ModelFingerprint | None = None,
    spec: OutputSpec | None = None,
    **changes: Any,
) -> TransformRequest:
    """The request for ``model``'s transform of inputs shaped ``values``.

    ``options`` (default: all defaults), with ``changes`` as keywords (``strategy="vmap"``, ...),
    see :class:`~pymc_aot.aot.build.options.RequestOptions`. ``memory_budget`` is resolved here, once,
    and only for ``strategy="auto"``: bytes, a size ("12GiB"), a fraction of the device's free
    memory, or None for 80% of it. ``spec`` overrides the outputs the options name.
    ``devices``: for ``sharded(B)`` (and ``streamed(B)``), a device count or a list of devices
    (see ``aot.strategies.sharding``).
    """
    match_floatx()
    opts = (options or RequestOptions()).replace(**changes)
    fp = fingerprint or fingerprint_model(model)
    spec = spec or resolve_outputs(
        model, var_names=opts.var_names, keep_untransformed=opts.keep_untransformed, log_likelihood=opts.log_likelihood
    )
    strategy, devices = opts.strategy, opts.devices
    family = None if isinstance(strategy, Strategy) else unsized(strategy, opts.batch_size)
    chosen = strategy if isinstance(strategy, Strategy) else None if family else get_strategy(strategy, opts.batch_size)
    check_devices_apply(chosen, devices)
    check_family_devices(family, devices)
    ensure_host_devices(opts.backend)  # PyMC's host devices whenever JAX starts here: a later call may shard
    device = resolve_device(opts.backend)
    budget = resolve_budget(opts.memory_budget, device) if chosen is None else None
    if not fp.exact and fp.key_kind == "structural":  # code the fingerprint cannot describe
        from .lowered_key import lowered_fingerprint

        fp = lowered_fingerprint(model, spec, values, fp, device)
    if chosen is not None:
        chosen = _for_outputs(bind_mesh(chosen, devices, device, values), spec)
    may_shard = auto_mesh(devices, device, *_chains_draws(values)) if chosen is None else None
    if family is not None:  # the mesh a sized family runs on: the one asked for, for sharded
        may_shard = plan_mesh(devices, device.platform, *_chains_draws(values)) if family == "sharded" else None
    key = make_key(fp, spec, chosen, values, device, may_shard, family)
    name = opts.model_name or fp.model_name or caller_label(model)
    return TransformRequest(model, fp, spec, chosen, device, key, budget, name, opts.to_disk, devices, family)


def value_signature(model: Any, fingerprint: ModelFingerprint, chains: int, draws: int) -> Signature:
    """Shapes and dtypes of ``(chains, draws, *shape)`` inputs, from the model alone."""
    if chains < 1 or draws < 0:
        raise ValueError(f"need chains >= 1 and draws >= 0, got chains={chains}, draws={draws}")
    from .value_shapes import value_shapes

    shapes = value_shapes(model)
    return tuple(
        (name, (int(chains), int(draws), *shape), dtype)
        for name, shape, dtype in zip(fingerprint.value_names, shapes, fingerprint.value_dtypes, strict=True)
    )
