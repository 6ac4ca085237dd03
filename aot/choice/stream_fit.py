"""How large a streamed batch may be, and where its outputs may go (see ``aot.choice.auto``'s rule)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import jax

from ...cache.auto_choice import AutoChoice, Candidate
from ...cache.entry import EntryMetadata
from ...cache.paths import human_bytes
from ..build.request import TransformRequest
from ..strategies.budget import DEFAULT_FRACTION, available_memory, exact_size

if TYPE_CHECKING:
    from ..strategies.strategies import Strategy
    from .search import Search

STREAM_BATCH_BYTES = 16 * 1024**2
"""A streamed batch's outputs stay under this: bounded host buffers and Zarr chunks."""


def host_budget() -> int:
    """Host memory a streamed run may fill: 80% of what is free now."""
    return int(DEFAULT_FRACTION * available_memory(jax.devices("cpu")[0]))


def is_streamed(label: str) -> bool:
    """Whether a strategy label names ``streamed(B)``."""
    return label.startswith("streamed(")


def is_streamed_over_devices(label: str) -> bool:
    """Whether a strategy label names ``streamed(B)`` over a mesh (``Strategy.label``:
    ``streamed(B) over D devices``)."""
    return is_streamed(label) and label.endswith(" devices")


def fit_by_halving(
    search: Search, b: int, strategy_for: Callable[[int], Strategy], halve: Callable[[int], int]
) -> None:
    """Compile ``strategy_for(b)``; while its device peak does not fit the budget, try
    ``halve(b)`` instead (twice at most)."""
    for _ in range(3):
        tried = search.attempt(strategy_for(b))
        if tried.metadata.device_peak <= search.budget or b == 1:
            return
        b = halve(b)


def device_is_host(request: TransformRequest) -> bool:
    """Whether the device's memory is the host's (the CPU backend): streaming into RAM gains nothing."""
    return request.device.platform == "cpu"


def acceptable(choice: AutoChoice, request: TransformRequest) -> bool:
    """Whether an ``auto`` choice made earlier holds for ``request`` (budget, ``out=``, host)."""
    if request.budget is not None and choice.peak > request.budget:
        return False
    if request.family is not None:  # B chosen for a strategy asked for: only the budget can undo it
        return True
    if request.to_disk or not is_streamed(choice.chosen):
        return request.to_disk == is_streamed(choice.chosen)
    chosen = [c for c in choice.candidates if c.strategy == choice.chosen]
    return not device_is_host(request) and all(c.host_bytes <= host_budget() for c in chosen)


def largest_divisor(n: int, limit: int) -> int:
    """The largest divisor of ``n`` up to ``limit`` (at least 1)."""
    limit = max(1, min(n, limit))
    for b in range(limit, 0, -1):
        if n % b == 0:
            return b
    return 1


def aligned_batch(chains: int, draws: int, limit: int) -> int:
    """The largest batch up to ``limit`` that lines up with chains (Zarr chunks along draws):
    a divisor of ``draws``, or a whole number of chains; ``limit`` itself if no divisor is near."""
    if limit >= draws:
        return largest_divisor(chains, limit // draws) * draws
    divisor = largest_divisor(draws, limit)
    return divisor if 2 * divisor >= limit else limit


def stream_batch(chains: int, draws: int, probe: EntryMetadata, budget: int) -> int:
    """The batch whose predicted device peak (inputs + 2 batches + temp) fits ``budget``."""
    n = chains * draws
    per_output = sum(probe.output_bytes) // max(n, 1)  # the probe (batched(1)) returns every draw
    per_draw = 2 * per_output + probe.memory.temp
    room = budget - probe.memory.argument
    limit = min(n, room // per_draw if per_draw else n, STREAM_BATCH_BYTES // per_output if per_output else n)
    return aligned_batch(chains, draws, limit) if limit >= 1 else 1


def streaming_advice(request: TransformRequest, candidates: list[Candidate], output: int) -> list[str]:
    """What streaming would need, and whether ``out=`` (disk) would help."""
    streamed = [c for c in candidates if is_streamed(c.strategy)]
    inputs, budget = min(c.argument for c in candidates), request.budget or 0
    least = min((c.peak for c in streamed), default=0)
    if request.to_disk:
        return [f"Even streamed to disk, the inputs ({human_bytes(inputs)}) and a batch must be on the device: "
                f"{least and human_bytes(least)} at least."]
    on_device = [c for c in streamed if c.peak <= budget]
    if on_device:
        best = min(on_device, key=lambda c: c.steps)
        return [
            f"Streaming batches off the device ({best.strategy}, device peak {human_bytes(best.peak)}) fits "
            f"the device, but the whole output ({exact_size(output)}) does not fit host memory either "
            f"({exact_size(host_budget())} usable): it fits neither; write it to disk with out='posterior.zarr'."
        ]
    if streamed:
        return [f"Streaming needs {human_bytes(least)} on the device: the inputs ({human_bytes(inputs)}) and a batch."]
    return [
        f"The outputs are {exact_size(output)}; with out='posterior.zarr' they go to disk batch by batch "
        f"and memory holds the inputs ({human_bytes(inputs)}) and a few batches."
    ]
