"""What a library's NUTS provides to the programs: a batched init and step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Logp = Callable[..., Any]
"""``logp(*values, *data) -> scalar`` log density of one point."""


@dataclass(frozen=True)
class Kernel:
    """One library's NUTS as two functions of batched (all-chains) state.

    ``init(positions, keys, data) -> state``; ``step(state, data) -> (state, position, stats)``
    with ``stats`` a dict of per-chain scalars named as PyMC names them.
    """

    init: Callable[[list[Any], Any, tuple[Any, ...]], Any]
    step: Callable[[Any, tuple[Any, ...]], tuple[Any, list[Any], dict[str, Any]]]
    stat_names: tuple[str, ...]
