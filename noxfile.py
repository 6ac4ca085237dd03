"""The version matrix: ``nox`` (reuses its virtualenvs; ``nox -s "tests-3.12"`` runs one session).

Each session installs the project the way the README says (``pip install -e ".[dev]"``, here
together with the session's pins so that pip resolves them in one go), prints the versions it
got, then runs the README's test command. Extra arguments after ``--`` replace pytest's.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nox

nox.options.reuse_venv = "yes"
nox.options.error_on_missing_interpreters = True

# The oldest supported line, and the newest PyMC 6 on each Python it supports.
MATRIX: dict[str, tuple[str, ...]] = {
    "3.11": (
        "pymc==5.28.*",
        "pytensor==2.38.*",
        "jax==0.10.*",
        "jaxlib==0.10.*",
        "numpy==2.0.*",
    ),
    "3.12": ("pymc>=6", "pytensor>=3", "jax>=0.12", "jaxlib>=0.12"),
    "3.13": ("pymc>=6", "pytensor>=3", "jax>=0.12", "jaxlib>=0.12"),
}

REPORTED = ("numpy", "pymc", "pytensor", "jax", "jaxlib", "arviz", "numpyro", "blackjax", "xarray", "h5netcdf")
README_TEST_COMMAND = ("python", "-m", "pytest", "-q", "-n", "2")


def _pyenv_interpreters_on_path() -> None:
    """Put pyenv's interpreters (``python3.12`` ...) on PATH ahead of its shims, which only
    answer for the version that is switched on."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = [str(root / v / "bin") for v in sorted(os.listdir(root))] if root.is_dir() else []
    wanted = [b for b in found if Path(b).name == "bin" and any(Path(b, f"python{p}").exists() for p in MATRIX)]
    os.environ["PATH"] = os.pathsep.join([*wanted, os.environ.get("PATH", "")])


_pyenv_interpreters_on_path()


def _pymc_major(python: str) -> int:
    pin = next(p for p in MATRIX[python] if p.startswith("pymc"))
    return int(re.search(r"\d+", pin).group())


def _other_pymc_line(session: nox.Session) -> dict[str, str]:
    """Point tests/test_compat.py's cross-version test at a sibling session's interpreter
    with the other PyMC major, where one was already made."""
    envdir = Path(session.virtualenv.location).parent
    for python in MATRIX:
        other = envdir / f"tests-{python.replace('.', '-')}" / "bin" / "python"
        if _pymc_major(python) != _pymc_major(str(session.python)) and other.exists():
            return {"PYMC_AOT_OTHER_PYTHON": str(other)}
    return {}


@nox.session(python=list(MATRIX))
def tests(session: nox.Session) -> None:
    """Install with this Python's pins, then ``python -m pytest -q -n 2`` (its exit code 5,
    no test collected, fails the session like any other)."""
    pins = MATRIX[str(session.python)]
    session.install("--upgrade", "-e", ".[dev]", *pins)
    versions = ", ".join(f"{name} {{version({name!r})}}" for name in REPORTED)
    session.run("python", "-c", f"from importlib.metadata import version; import sys; "
                f"print(f'python {{sys.version.split()[0]}}, {versions}')")
    command = [*README_TEST_COMMAND[:3], *(session.posargs or README_TEST_COMMAND[3:])]
    session.run(*command, env=_other_pymc_line(session))
