"""The random key of each draw: ``fold_in(key(random_seed), flat (chain, draw) index)``.

The key travels as one more mapped input, ``__rng__``, shaped ``(chains, draws, 3)`` uint32:
the seed's two words and the draw's flat index. Every strategy slices it like the posterior,
so any batching, streaming or split over devices gives each draw the same key, and one
executable serves every seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

RNG_INPUT = "__rng__"
"""The name of the key input in a predictive transform's signature."""

_WORD = 0xFFFFFFFF


def seed_words(random_seed: Any) -> tuple[int, int]:
    """Two uint32 words from ``random_seed``: an int (as ``jax.random.PRNGKey(seed)`` splits a
    64-bit seed), None (fresh entropy), or a NumPy ``Generator`` / ``SeedSequence`` (one draw)."""
    if random_seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
    elif isinstance(random_seed, np.random.Generator):
        seed = int(random_seed.integers(0, 2**63))
    elif isinstance(random_seed, np.random.SeedSequence):
        seed = int(random_seed.generate_state(1, np.uint64)[0])
    elif isinstance(random_seed, (int, np.integer)) and not isinstance(random_seed, bool):
        seed = int(random_seed)
        if seed < 0:
            raise ValueError(f"random_seed: expected a non-negative integer, got {seed}")
    else:
        raise ValueError(
            f"random_seed: expected an int, None, a numpy Generator or SeedSequence, got {type(random_seed).__name__}"
        )
    return (seed >> 32) & _WORD, seed & _WORD


def rng_array(random_seed: Any, chains: int, draws: int) -> np.ndarray:
    """The ``__rng__`` input: ``[seed_hi, seed_lo, chain * draws + draw]`` per draw."""
    hi, lo = seed_words(random_seed)
    out = np.empty((chains, draws, 3), np.uint32)
    out[..., 0], out[..., 1] = hi, lo
    out[..., 2] = np.arange(chains * draws, dtype=np.uint32).reshape(chains, draws)
    return out


PRNG_IMPL = "threefry2x32"
"""The PRNG of every predictive draw, whatever ``jax_default_prng_impl`` says. ``rbg`` and
``unsafe_rbg`` are no choice: vmapped over keys, XLA's bit generator draws from the first key
only (JAX's batching rule of ``rng_bit_generator``), so a draw would depend on its batch."""


def draw_keys(rng: Any, count: int) -> list[Any]:
    """``count`` independent typed keys for one draw, from its ``__rng__`` row (inside JAX)."""
    import jax

    key = jax.random.fold_in(jax.random.wrap_key_data(rng[:2], impl=PRNG_IMPL), rng[2])
    return list(jax.random.split(key, count)) if count else []
