"""Load a model from ``path/to/file.py:NAME`` or ``package.module:NAME``."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any


class ModelRefError(Exception):
    """The reference cannot be turned into a model; the message is one line for the user."""


def split_ref(ref: str) -> tuple[str, str]:
    """``"path/to/file.py:NAME"`` -> ``("path/to/file.py", "NAME")``; NAME defaults to ``model``."""
    target, _, name = ref.rpartition(":") if ":" in ref else (ref, ":", "model")
    if not target:
        raise ModelRefError(f"expected path/to/file.py:NAME or package.module:NAME, got {ref!r}")
    return target, name or "model"


def ref_label(ref: str) -> str:
    """``examples/regression.py:model`` -> ``regression:model``, the label ``inspect`` shows."""
    target, name = split_ref(ref)
    stem = target.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".py")
    return f"{stem}:{name}"


def _is_file_ref(target: str) -> bool:
    return target.endswith(".py") or "/" in target or Path(target).suffix == ".py"


def user_module_name(path: Path) -> str:
    """The module name a model file is imported under: the same in every process (``hash()`` of a
    string is salted per process), so functions defined there describe the same way each run."""
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    return f"_pymc_aot_user_{digest}"


def load_model(ref: str) -> Any:
    """The ``pm.Model`` named by ``ref``; NAME may be a model or a zero-argument callable.

    Without ``:NAME`` the name ``model`` is used. Exceptions raised by the user's own code
    propagate unchanged (the CLI turns them into one line, or a traceback under --debug).
    """
    target, name = split_ref(ref)
    if _is_file_ref(target):
        path = Path(target)
        if not path.is_file():
            raise ModelRefError(f"model file not found: {path}")
        module_name = user_module_name(path)
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise ModelRefError(f"cannot import {path} as a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        sys.path.insert(0, str(path.resolve().parent))
        try:
            spec.loader.exec_module(module)
        finally:
            sys.path.pop(0)
    else:
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as exc:
            if exc.name and target.startswith(exc.name):
                raise ModelRefError(f"module not found: {target}") from None
            raise
    import pymc as pm  # only now: the CLI says "loading" before anything heavy is imported

    if not hasattr(module, name):
        available = sorted(k for k, v in vars(module).items() if isinstance(v, pm.Model))
        hint = f" (models defined there: {', '.join(available)})" if available else ""
        raise ModelRefError(f"{target} has no attribute {name!r}{hint}")
    obj = getattr(module, name)
    if callable(obj) and not isinstance(obj, pm.Model):
        obj = obj()
    if not isinstance(obj, pm.Model):
        raise ModelRefError(f"{ref} is a {type(obj).__name__}, not a pm.Model (or a function returning one)")
    return obj
