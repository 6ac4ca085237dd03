"""The user's choices that shape a transform request, written down once.

A new option is a field of :class:`RequestOptions` (and its use in ``make_request``); the public
functions that offer it name it as a keyword and forward every option with
``RequestOptions.pick(locals())``, so nothing in between changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..strategies.strategies import AUTO, Strategy


@dataclass(frozen=True)
class RequestOptions:
    """What a user may choose about a transform: strategy, outputs, device, memory.

    ``model_name`` labels the stored entry (not part of the key); ``to_disk``: the outputs will
    be written to disk (``out=``), which steers ``auto`` and is not part of the key either.
    """

    strategy: str | Strategy = AUTO
    batch_size: int | None = None
    var_names: Sequence[str] | None = None
    keep_untransformed: bool = False
    log_likelihood: bool = False
    backend: str | None = None
    memory_budget: int | float | str | None = None
    model_name: str | None = None
    to_disk: bool = False
    devices: Any = None
    """For ``sharded(B)`` and ``streamed(B)``: a device count or a list of devices
    (``aot.strategies.sharding.DeviceRequest``)."""

    @classmethod
    def pick(cls, arguments: Mapping[str, Any]) -> RequestOptions:
        """The options among ``arguments`` (a public function's ``locals()``); the rest is ignored."""
        return cls(**{f.name: arguments[f.name] for f in dataclasses.fields(cls) if f.name in arguments})

    def replace(self, **changes: Any) -> RequestOptions:
        """These options with ``changes``; a ``TypeError`` names a keyword that is not an option."""
        return dataclasses.replace(self, **changes) if changes else self
