"""An executable loaded in this process, with its stored metadata."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...aot.build.request import TransformRequest
from ...aot.choice.stream_fit import acceptable
from ...cache.entry import EntryMetadata


@dataclass(frozen=True, eq=False)  # never compared; identity equality and hash
class LoadedTransform:
    """An executable in this process and the metadata it was stored with."""

    executable: Any
    metadata: EntryMetadata

    @property
    def output_names(self) -> tuple[str, ...]:
        return self.metadata.output_names

    @property
    def data_indices(self) -> tuple[int, ...]:
        return self.metadata.data_indices

    def fits(self, request: TransformRequest) -> bool:
        """False for an ``auto`` choice that does not hold for ``request``: made under a larger
        budget, or for outputs going elsewhere (``out=`` or memory); see ``aot.choice.stream_fit.acceptable``."""
        auto = self.metadata.auto
        return request.budget is None or auto is None or acceptable(auto, request)
