"""Where the cache lives and how big it may grow."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from .errors import CacheConfigError

ENV_CACHE_DIR = "PYMC_AOT_CACHE_DIR"
ENV_SIZE_LIMIT = "PYMC_AOT_CACHE_SIZE_LIMIT"
ENV_READ_ONLY = "PYMC_AOT_CACHE_READONLY"  # open a shared cache without writing to it
ENV_SIGNING_KEY = "PYMC_AOT_CACHE_SIGNING_KEY"  # the operator's Ed25519 private key (file or PEM)
ENV_PUBLIC_KEY = "PYMC_AOT_CACHE_PUBLIC_KEY"  # the operator's Ed25519 public key (file or PEM)
ENV_SHARED_HMAC_KEY = "PYMC_AOT_CACHE_KEY"  # the retired shared HMAC key: refused
DEFAULT_SIZE_LIMIT = 2 * 1024**3

_UNITS = {
    "": 1,
    "b": 1,
    "k": 1000,
    "kb": 1000,
    "kib": 1024,
    "m": 1000**2,
    "mb": 1000**2,
    "mib": 1024**2,
    "g": 1000**3,
    "gb": 1000**3,
    "gib": 1024**3,
    "t": 1000**4,
    "tb": 1000**4,
    "tib": 1024**4,
}


def default_cache_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The cache root: the argument, else ``$PYMC_AOT_CACHE_DIR``, else the user cache dir.

    The user cache dir is ``$XDG_CACHE_HOME/pymc-aot``, falling back to ``~/.cache/pymc-aot``.
    """
    if override is not None:
        return Path(override).expanduser()
    env = os.environ.get(ENV_CACHE_DIR)
    if env:
        return Path(env).expanduser()
    return user_cache_dir()


def user_cache_dir() -> Path:
    """``pymc-aot`` in the user cache dir: ``platformdirs`` on macOS and Windows; elsewhere the
    XDG spec (what platformdirs also answers there, without importing it on a hit): an absolute
    ``$XDG_CACHE_HOME``, else ``~/.cache``. A relative ``$XDG_CACHE_HOME`` is ignored, as the
    spec says, so the cache never moves with the working directory."""
    if sys.platform in ("darwin", "win32"):
        import platformdirs

        return Path(platformdirs.user_cache_dir("pymc-aot", appauthor=False))
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "pymc-aot"


def size_limit_from_env() -> int:
    """``$PYMC_AOT_CACHE_SIZE_LIMIT`` in bytes (the default if unset); CacheConfigError naming it
    if it is not a size."""
    value = os.environ.get(ENV_SIZE_LIMIT, "")
    if not value.strip():
        return DEFAULT_SIZE_LIMIT
    try:
        return parse_size(value)
    except ValueError as exc:
        raise CacheConfigError(f"{ENV_SIZE_LIMIT}: {exc}") from None


def parse_size(value: int | str) -> int:
    """Bytes from an int or a string such as ``"2GiB"``, ``"500 MB"`` or ``"1024"``."""
    if isinstance(value, bool):
        raise ValueError(f"expected a byte count, got {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"expected a non-negative byte count, got {value}")
        return value
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", str(value))
    if not match or match.group(2).lower() not in _UNITS:
        raise ValueError(f"expected a size such as 2GiB, 500MB or 1048576, got {value!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def human_bytes(n: int | float | None) -> str:
    """``1536`` -> ``"1.5 KiB"``; ``None`` -> ``"-"``."""
    if n is None:
        return "-"
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{int(n)} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")
