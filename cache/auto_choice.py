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
    """What ``auto`` chose under which budget, and the numbers it chose from.

    ``pending``: candidates not compiled yet (a first run inside ``pm.sample`` compiles the
    rule's winner, or its predicted winner, and the others in the background); ``note``
    says why they could wait. Empty once the choice is complete.
    """

    chosen: str
    chosen_key: str | None
    peak: int
    budget: int
    rule: str
    candidates: tuple[Candidate, ...]
    pending: tuple[str, ...] = ()
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The stored form; ``pending`` and ``note`` only while candidates are pending."""
        d = {**asdict(self), "candidates": [c.as_dict() for c in self.candidates], "pending": list(self.pending)}
        if not self.pending:
            del d["pending"], d["note"]
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> AutoChoice:
        return cls(
            chosen=str(d["chosen"]),
            chosen_key=d.get("chosen_key"),
            peak=int(d["peak"]),
            budget=int(d["budget"]),
            rule=str(d["rule"]),
            candidates=tuple(Candidate.from_dict(c) for c in d["candidates"]),
            pending=tuple(str(p) for p in d.get("pending", ())),
            note=str(d.get("note", "")),
        )
