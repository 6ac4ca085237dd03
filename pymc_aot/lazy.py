"""Attributes of a package that load on first use (``import pymc_aot`` imports neither jax nor pymc)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any], *, submodules: bool = False
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``exports`` maps a name to the (relative) module
    defining it; a loaded name is kept in ``namespace``. With ``submodules``, ``package.name``
    also imports the submodule ``name`` without an import statement."""

    def __getattr__(name: str) -> Any:
        if name in exports:
            value = getattr(importlib.import_module(exports[name], package), name)
            namespace[name] = value
            return value
        if submodules:
            try:
                return importlib.import_module(f".{name}", package)
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
