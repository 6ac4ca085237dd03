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
    with ``stats`` a dict of per-chain scalars named as PyMC names them. ``init_one`` and
    ``step_one`` are the same for one chain without the chain axis (no ``vmap``: a program that
    runs one chain per device compiles in about half the time, bench/first_run.py).
    """

    init: Callable[[list[Any], Any, tuple[Any, ...]], Any]
    step: Callable[[Any, tuple[Any, ...]], tuple[Any, list[Any], dict[str, Any]]]
    stat_names: tuple[str, ...]
    init_one: Callable[[list[Any], Any, tuple[Any, ...]], Any]
    step_one: Callable[[Any, tuple[Any, ...]], tuple[Any, list[Any], dict[str, Any]]]

    def one_chain(self) -> Kernel:
        """This kernel for a block of one chain: ``init`` and ``step`` take and give the chain axis
        (length 1) and run ``init_one`` and ``step_one`` inside."""
        import jax
        import jax.numpy as jnp

        def lead(tree: Any) -> Any:  # a leaf may be a Python number (blackjax's initial step size)
            return jax.tree_util.tree_map(lambda x: jnp.asarray(x)[None], tree)

        def init(positions: list[Any], keys: Any, data: tuple[Any, ...]) -> Any:
            return lead(self.init_one([p[0] for p in positions], keys[0], data))

        def step(state: Any, data: tuple[Any, ...]) -> Any:
            return lead(self.step_one(jax.tree_util.tree_map(lambda x: x[0], state), data))

        return Kernel(init, step, self.stat_names, self.init_one, self.step_one)
