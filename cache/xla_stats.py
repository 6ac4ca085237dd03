"""What XLA says about one executable (memory, cost) and how long it took to build."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class MemoryStats:
    """XLA's memory analysis of one executable, in bytes."""

    argument: int
    output: int
    temp: int
    alias: int
    generated_code: int

    @property
    def peak(self) -> int:
        """Predicted peak: argument + output + temp - alias."""
        return self.argument + self.output + self.temp - self.alias

    def as_dict(self) -> dict[str, int]:
        return {**asdict(self), "peak": self.peak}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> MemoryStats:
        return cls(*(int(d[f.name]) for f in fields(cls)))


@dataclass(frozen=True)
class CostStats:
    """XLA's cost analysis, where the backend provides one."""

    flops: float | None
    bytes_accessed: float | None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CostStats:
        return cls(*(None if d.get(f.name) is None else float(d[f.name]) for f in fields(cls)))


@dataclass(frozen=True)
class CompileTimings:
    """Seconds spent building (rewrite + jaxify), lowering, compiling and serializing."""

    build: float
    lower: float
    compile: float
    serialize: float

    @property
    def total(self) -> float:
        return self.build + self.lower + self.compile + self.serialize

    def as_dict(self) -> dict[str, float]:
        return {**asdict(self), "total": self.total}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CompileTimings:
        return cls(*(float(d[f.name]) for f in fields(cls)))
