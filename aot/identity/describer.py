"""What ``instances`` and ``usercode`` describe through, so that they need not import ``describe``.

``describe.Describer`` implements :class:`Describes`; ``describe`` imports ``instances`` and
``usercode``, which see only this protocol and :class:`DescribeState` (no import circle, not
even for type checkers).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

MAX_REASONS = 8


@dataclass(eq=False)  # never compared
class DescribeState:
    """What one fingerprint learned while describing: why it is not exact, and where it is."""

    reasons: list[str] = field(default_factory=list)
    where: str = ""
    path: list[str] = field(default_factory=list)
    user_objects: int = 0
    replaced: dict[type, tuple[str, ...]] = field(default_factory=dict)
    """``trust.replaced_methods`` per class, checked once per fingerprint (classes recur at many nodes)."""

    def unsure(self, why: str) -> None:
        trail = " > ".join(self.path)
        reason = ": ".join(p for p in (self.where, trail, why) if p)
        if reason not in self.reasons and len(self.reasons) < MAX_REASONS:
            self.reasons.append(reason)


class Describes(Protocol):
    """A describer as its helpers use it (``describe.Describer``)."""

    state: DescribeState
    module_views: dict[tuple[int, frozenset[str]], Any]

    def describe(self, obj: Any) -> Any:
        """A hashable, deterministic description of ``obj``."""
        ...

    def labelled(self, label: str, obj: Any) -> Any:
        """``describe(obj)``, with ``label`` in the trail of any reason found inside."""
        ...

    def unsure(self, obj: Any, why: str) -> tuple[str, str]:
        """Record that ``obj`` cannot be described exactly."""
        ...
