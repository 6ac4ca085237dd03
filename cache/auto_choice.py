"""What ``auto`` stored about its choice: the strategy chosen and every candidate's numbers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class Candidate:
    """One strategy ``auto`` compiled (or found) and weighed against the budget.

    ``peak`` is the predicted device peak (for ``streamed`` two batches in flight);
    ``host_bytes`` what the run assembles in host memory besides (streamed only, else 0).
    """

    strategy: str
    steps: int
    key: str | None
    peak: int
    argument: int
    output: int
    temp: int
    alias: int
    flops: float | None
    bytes_accessed: float | None
    fits: bool
    host_bytes: int = 0

    @property
    def extra(self) -> int:
        """What a call needs beyond its outputs: temp - alias."""
        return self.temp - self.alias

    def as_dict(self) -> dict[str, Any]:
        """The stored form; ``host_bytes`` only where there are any (older entries lack it)."""
        d = asdict(self)
        if not self.host_bytes:
            del d["host_bytes"]
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Candidate:
        return cls(**{f.name: d[f.name] for f in fields(cls) if f.name in d or f.default is MISSING})


@dataclass(frozen=True)
class AutoChoice:
    """What ``auto`` chose under which budget, and the numbers it chose from."""

    chosen: str
    chosen_key: str | None
    peak: int
    budget: int
    rule: str
    candidates: tuple[Candidate, ...]

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "candidates": [c.as_dict() for c in self.candidates]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> AutoChoice:
        return cls(
            chosen=str(d["chosen"]),
            chosen_key=d.get("chosen_key"),
            peak=int(d["peak"]),
            budget=int(d["budget"]),
            rule=str(d["rule"]),
            candidates=tuple(Candidate.from_dict(c) for c in d["candidates"]),
        )
