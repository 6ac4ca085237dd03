"""What the runtime did in this process: hits, compiles, the last call's phases."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RuntimeCounters:
    """What the runtime did in this process (for tests and for the curious)."""

    memo_hits: int = 0
    disk_hits: int = 0
    compiles: int = 0
    """Executables compiled, wherever: a lookup's miss, ``auto``'s candidates, ``pm.sample``'s preflight."""
    preflight_compiles: int = 0
    """Of ``compiles``, those ``pm.sample``'s preflight made before sampling (``auto``)."""
    last_source: str = ""
    events: list[tuple[str, str]] = field(default_factory=list)
    last_phases: dict[str, float] = field(default_factory=dict)
    """Seconds per step of the last ``run`` (fingerprint, samples, key, read, deserialize, ...)."""

    def record(self, what: str, digest: str) -> None:
        self.last_source = what
        self.events.append((what, digest))
        if len(self.events) > 1000:
            del self.events[:500]
