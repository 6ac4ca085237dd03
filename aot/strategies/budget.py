"""How much memory postprocessing may use: parse a budget, or derive one from the device."""

from __future__ import annotations

import os
from typing import Any

from ...cache import parse_size
from ...cache.paths import human_bytes

DEFAULT_FRACTION = 0.8


class MemoryBudgetError(ValueError):
    """No candidate strategy fits the budget; raised before any sampling starts."""


def available_memory(device: Any) -> int:
    """Bytes free on ``device``: the accelerator's limit minus what is in use, else free RAM."""
    stats = None
    if device.platform != "cpu":
        try:
            stats = device.memory_stats()
        except Exception:  # noqa: BLE001 - not every backend reports
            stats = None
    if stats and "bytes_limit" in stats:
        return int(stats["bytes_limit"]) - int(stats.get("bytes_in_use", 0))
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))


def resolve_budget(budget: int | float | str | None, device: Any) -> int:
    """Bytes from ``budget``: an int of bytes, a size string ("12GiB"), a fraction in (0, 1]
    of the device's available memory, or None for 80% of it."""
    if budget is None:
        return int(DEFAULT_FRACTION * available_memory(device))
    if isinstance(budget, float) or (isinstance(budget, str) and _is_fraction(budget)):
        fraction = float(budget)
        if not 0 < fraction <= 1:
            raise ValueError(f"memory_budget: a fraction must be in (0, 1], got {budget!r}")
        return int(fraction * available_memory(device))
    try:
        return parse_size(budget)
    except ValueError as exc:
        raise ValueError(f"memory_budget: {exc}") from None


def _is_fraction(text: str) -> bool:
    try:
        value = float(text)
    except ValueError:
        return False
    return 0 < value <= 1 and "." in text


def exact_size(n: int) -> str:
    """``"1.5 KiB (1,536 bytes)"``: a size people read, and the number."""
    return f"{human_bytes(n)} ({n:,} bytes)"
