"""What a compiled sampler is built for: the sampler, chains, warmup, its NUTS options."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

SAMPLERS = ("numpyro", "blackjax")
CHAIN_METHODS = ("parallel", "vectorized")
DEFAULT_CHUNK = 100

# NUTS options each library takes (as PyMC passes nuts_kwargs through); scalars only.
NUTS_OPTIONS = {
    "numpyro": frozenset(
        {
            "max_tree_depth",
            "step_size",
            "adapt_step_size",
            "adapt_mass_matrix",
            "dense_mass",
            "regularize_mass_matrix",
            "find_heuristic_step_size",
            "forward_mode_differentiation",
        }
    ),
    "blackjax": frozenset({"max_num_doublings", "is_mass_matrix_diagonal", "initial_step_size", "algorithm"}),
}


class UnsupportedSettings(ValueError):
    """A sampling call the compiled sampler does not serve (PyMC's own path runs it)."""


@dataclass(frozen=True)
class SamplerSettings:
    """Everything about the sampler that changes its compiled programs.

    ``draws`` is not here: it only sets how often the host calls the ``chunk`` program.
    ``nuts`` holds the library's own NUTS options, sorted.
    """

    sampler: str
    chains: int
    tune: int
    target_accept: float
    chain_method: str = "parallel"
    chunk: int = DEFAULT_CHUNK
    nuts: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if self.sampler not in SAMPLERS:
            raise UnsupportedSettings(f"nuts_sampler={self.sampler!r}: the compiled sampler serves {SAMPLERS}")
        if self.chain_method not in CHAIN_METHODS:
            raise UnsupportedSettings(f"chain_method={self.chain_method!r}: expected one of {CHAIN_METHODS}")
        if self.chains < 1 or self.tune < 0 or self.chunk < 1:
            raise UnsupportedSettings(
                f"need chains >= 1, tune >= 0 and chunk >= 1, got {self.chains}, {self.tune}, {self.chunk}"
            )
        if not (0.0 < self.target_accept < 1.0) or not math.isfinite(self.target_accept):
            raise UnsupportedSettings(f"target_accept={self.target_accept!r}: expected a number in (0, 1)")

    @classmethod
    def make(cls, sampler: str, nuts_kwargs: dict[str, Any] | None = None, **fields: Any) -> SamplerSettings:
        """Settings from PyMC's arguments; ``UnsupportedSettings`` names what is not served."""
        nuts = dict(nuts_kwargs or {})
        nuts.pop("progress_bar", None)  # PyMC's blackjax path adds it; progress is the host's job
        unknown = sorted(set(nuts) - NUTS_OPTIONS.get(sampler, frozenset()))
        if unknown:
            raise UnsupportedSettings(f"nuts_kwargs {unknown} are not served by the compiled {sampler} sampler")
        for name, value in nuts.items():
            if not isinstance(value, (bool, int, float, str)):
                raise UnsupportedSettings(f"nuts_kwargs[{name!r}]={value!r}: only scalar options are served")
        return cls(sampler=sampler, nuts=tuple(sorted(nuts.items())), **fields)

    def parts(self) -> dict[str, Any]:
        """JSON-able form, for the key."""
        return json.loads(
            json.dumps(
                {
                    "sampler": self.sampler,
                    "chains": self.chains,
                    "tune": self.tune,
                    "target_accept": float(self.target_accept),
                    "chain_method": self.chain_method,
                    "chunk": self.chunk,
                    "nuts": dict(self.nuts),
                }
            )
        )
