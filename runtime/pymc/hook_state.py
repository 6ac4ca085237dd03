"""What ``enable`` was given, what it replaced, and the sampling call in progress."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ...aot.build.options import RequestOptions


@dataclass(frozen=True)
class Options:
    """What ``enable`` was given."""

    cache_dir: str | None = None
    strategy: str = "auto"
    batch_size: int | None = None
    memory_budget: int | float | str | None = None
    jax_cache: bool = False
    out: str | None = None
    devices: Any = None
    """For ``sharded(B)`` (and ``auto``): a device count or a list (``aot.strategies.sharding.DeviceRequest``)."""
    sampler: bool = True
    """Run ``pm.sample``'s JAX NUTS itself from the store (``runtime/sampler``); False: PyMC's own."""
    checkpoint: str | None = None
    """With ``sampler``: the directory a run's state and draws are written to after each chunk."""
    chunk_size: int = 100
    """With ``sampler``: steps per call of the compiled sampler (progress and checkpoints happen between calls)."""

    def request_options(self, **changes: Any) -> RequestOptions:
        """The request options these stand for (strategy, batch size, budget, devices, ``out``), with ``changes``."""
        from ...aot.build.options import RequestOptions

        base = RequestOptions(self.strategy, self.batch_size, memory_budget=self.memory_budget, devices=self.devices)
        return base.replace(to_disk=self.out is not None, **changes)


@dataclass
class HookState:
    """The options in force (None: not enabled), the replaced originals, JAX's cache settings."""

    options: Options | None = None
    originals: dict[str, Any] = field(default_factory=dict)
    jax_config: dict[str, Any] = field(default_factory=dict)
    warned: bool = False

    def current(self) -> Options:
        """The options in force, or the defaults."""
        return self.options or Options()


STATE = HookState()


@dataclass(frozen=True)
class ActiveSampling:
    """The sampling call in progress: its model, the user's vectorize choice, its preflight (the
    budget it fixed, so a run that sampled for hours is not refused afterwards)."""

    model: Any
    vectorize: str | None
    preflight: Any = None
    """``runtime.pymc.preflight.Preflight`` (None: none ran); its verdict is waited for when asked."""
    written: dict[str, Path] = field(default_factory=dict)  # with out=: groups written to the store
    holding: list[bool] = field(default_factory=list)
    """Non-empty once sampling is over and the postprocessing holds ``auto``'s background jobs."""

    @property
    def budget(self) -> int | None:
        """The budget the preflight fixed (None: no ``auto`` choice)."""
        return self.preflight.budget if self.preflight is not None else None

    @property
    def stock(self) -> bool:
        """The preflight failed: this call's postprocessing runs PyMC's own path (one warning said so)."""
        return self.preflight is not None and self.preflight.failed


ACTIVE: contextvars.ContextVar[ActiveSampling | None] = contextvars.ContextVar("pymc_aot_active", default=None)
