"""What ``stream_fit`` and ``shard_fit`` see of ``auto``'s search, so that they need not import ``auto``.

``auto._Search`` implements :class:`Search`; ``auto`` imports the fits, which see only this
protocol (no import circle, not even for type checkers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ...cache.auto_choice import Candidate
    from ...cache.entry import EntryMetadata
    from ..build.request import TransformRequest
    from ..strategies.strategies import Strategy


class Tried(Protocol):
    """One compiled (or found) candidate: its metadata is what a fit reads."""

    @property
    def metadata(self) -> EntryMetadata: ...


class Search(Protocol):
    """The candidates of one ``auto`` request (``auto._Search``)."""

    request: TransformRequest
    budget: int

    def attempt(self, strategy: Strategy) -> Tried:
        """Compile (or find) ``strategy``'s candidate, once."""
        ...

    def weighed(self) -> list[Candidate]:
        """Every candidate tried so far, weighed against the budget."""
        ...
