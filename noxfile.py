"""The version matrix: ``nox`` (reuses its virtualenvs; ``nox -s tests-3.12`` runs one session).

Each session installs the project the way the README says (``pip install -e ".[dev]"``, here
together with the session's pins so that pip resolves them in one go), prints the versions it
got, then runs the README's test command with the slow tests too. Extra arguments after ``--`` replace pytest's.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nox

nox.options.reuse_venv = "yes"
nox.options.error_on_missing_interpreters = True

NEWEST_PYMC_6 = ("pymc>=6", "pytensor>=3", "jax>=0.12", "jaxlib>=0.12")
# The oldest supported line, and the newest PyMC 6 on each Python it supports.
MATRIX: dict[str, tuple[str, ...]] = {
    "3.11": ("pymc==5.28.*", "pytensor==2.38.*", "jax==0.10.*", "jaxlib==0.10.*", "numpy==2.0.*"),
    "3.12": NEWEST_PYMC_6,
    "3.13": NEWEST_PYMC_6,
}
# The middle of the declared jax range, with PyMC 6.
JAX_0_11 = ("pymc>=6", "pytensor>=3", "jax==0.11.*", "jaxlib==0.11.*")

REPORTED = ("numpy", "pymc", "pytensor", "jax", "jaxlib", "arviz", "numpyro", "blackjax", "xarray", "h5netcdf")
README_TEST_COMMAND = ("python", "-m", "pytest", "-q", "-n", "2")
EVERY_TEST = ("-m", "slow or not slow")
"""The README's command runs the fast set (pyproject's addopts); a session runs the slow tests too."""


def _pyenv_interpreters_on_path() -> None:
    """Put pyenv's interpreters (``python3.12`` ...) on PATH ahead of its shims, which only
    answer for the version that is switched on."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = [root / v / "bin" for v in sorted(os.listdir(root))] if root.is_dir() else []
    wanted = [str(b) for b in found if any((b / f"python{p}").exists() for p in MATRIX)]
    os.environ["PATH"] = os.pathsep.join([*wanted, os.environ.get("PATH", "")])


_pyenv_interpreters_on_path()


def _pymc_major(pins: tuple[str, ...]) -> int:
    pin = next(p for p in pins if p.startswith("pymc"))
    return int(re.search(r"\d+", pin).group())


_WHERE = "import os, pymc_aot.aot as a; print(os.path.dirname(os.path.realpath(a.__path__[0])))"


def _runs_this_checkout(session: nox.Session, other: Path) -> bool:
    """Whether ``other`` imports pymc-aot from this checkout (its editable install may point at
    another clone, one since moved or deleted); reinstalled once (no dependencies) if not."""
    here = os.path.realpath(os.getcwd())
    for attempt in range(2):
        where = session.run(str(other), "-c", _WHERE, external=True, silent=True, success_codes=[0, 1])
        if isinstance(where, str) and where.strip().splitlines()[-1:] == [here]:
            return True
        if attempt == 0:
            session.run(str(other), "-m", "pip", "install", "-q", "--no-deps", "-e", ".", external=True)
    return False


def _other_pymc_line(session: nox.Session, pins: tuple[str, ...]) -> dict[str, str]:
    """Point tests/test_compat.py's cross-version test at a sibling session's interpreter
    with the other PyMC major, where one was already made (and runs this checkout)."""
    envdir = Path(session.virtualenv.location).parent
    for python, their_pins in MATRIX.items():
        other = envdir / f"tests-{python.replace('.', '-')}" / "bin" / "python"
        if _pymc_major(their_pins) != _pymc_major(pins) and other.exists() and _runs_this_checkout(session, other):
            return {"PYMC_AOT_OTHER_PYTHON": str(other)}
    return {}


def _install_and_test(session: nox.Session, pins: tuple[str, ...]) -> None:
    """Install with ``pins``, print the versions, run ``python -m pytest -q -n 2 -m "slow or not slow"``,
    every test (its exit code 5, no test collected, fails the session like any other)."""
    session.install("--upgrade", "-e", ".[dev]", *pins)
    show_versions = (
        "import sys; from importlib.metadata import version; "
        f"print('python ' + sys.version.split()[0], *(f'{{n}} {{version(n)}}' for n in {REPORTED!r}), sep=', ')"
    )
    session.run("python", "-c", show_versions)
    command = [*README_TEST_COMMAND[:3], *(session.posargs or [*README_TEST_COMMAND[3:], *EVERY_TEST])]
    session.run(*command, env=_other_pymc_line(session, pins))


@nox.session(python=list(MATRIX))
def tests(session: nox.Session) -> None:
    """The oldest line on 3.11, the newest PyMC 6 on 3.12 and 3.13."""
    _install_and_test(session, MATRIX[str(session.python)])


@nox.session(python="3.12", name="tests-jax-0.11")
def tests_jax_0_11(session: nox.Session) -> None:
    """The newest PyMC 6 with jax 0.11."""
    _install_and_test(session, JAX_0_11)


# PyMC's own tests of the functions pymc-aot hooks, run with pymc_aot.enable() for the whole
# session (tests/pymc_suite_plugin.py). PyMC's sdists carry no tests/sampling or tests/stats, so
# the files come from PyMC's source archive of the installed version's tag, into a temporary
# folder, never the repository; offline, point PYMC_SOURCE at a PyMC checkout or a tarball of it.
PYMC_SUITE = ("tests/sampling/test_deterministic.py", "test_log_density.py")
PYMC_ARCHIVE = "https://github.com/pymc-devs/pymc/archive/refs/tags/v{version}.tar.gz"


def _pymc_source(session: nox.Session, version: str) -> Path:
    """A folder holding PyMC ``version``'s pyproject.toml and tests/ (PYMC_SOURCE, or the tag's archive)."""
    import tarfile
    import urllib.request

    given = os.environ.get("PYMC_SOURCE")
    if given and Path(given).is_dir():
        return Path(given)
    root = Path(session.create_tmp()) / f"pymc-{version}"
    if not (root / "tests").is_dir():
        archive = Path(given) if given else root.with_suffix(".tar.gz")
        if not given:
            session.log(f"fetching {PYMC_ARCHIVE.format(version=version)}")
            urllib.request.urlretrieve(PYMC_ARCHIVE.format(version=version), archive)
        with tarfile.open(archive) as tar:
            top = tar.getnames()[0].split("/")[0]
            wanted = [m for m in tar.getmembers() if m.name.startswith((f"{top}/tests/", f"{top}/pyproject.toml"))]
            tar.extractall(root.parent, members=wanted, filter="data")
        (root.parent / top).rename(root)
    return root


def _suite_files(source: Path) -> list[str]:
    found = [str(p) for name in PYMC_SUITE for p in sorted((source / "tests").rglob(Path(name).name))]
    if not found:
        raise RuntimeError(f"none of {PYMC_SUITE} under {source / 'tests'}")
    return found


@nox.session(python=["3.11", "3.12"], name="pymc-suite", default=False)
def pymc_suite(session: nox.Session) -> None:
    """PyMC's own test_deterministic.py and test_log_density.py with pymc-aot enabled, under PyMC's
    configuration and warning filters; a cold pass, then a warm one on the same cache."""
    pins = MATRIX[str(session.python)]
    session.install("--upgrade", "-e", ".[dev]", *pins)
    version = session.run("python", "-c", "import pymc; print(pymc.__version__)", silent=True).strip()
    source = _pymc_source(session, version)
    cache = Path(session.create_tmp()) / "pymc-aot-cache"
    env = {"PYTHONPATH": os.pathsep.join([str(Path("tests").resolve()), str(source)]), "PYMC_AOT_CACHE_DIR": str(cache)}
    session.chdir(source)  # PyMC's tests import their own `tests` package
    for _ in ("cold", "warm"):
        session.run(
            "python", "-m", "pytest", "-p", "pymc_suite_plugin", "-c", str(source / "pyproject.toml"),
            "--rootdir", str(source), "-q", *_suite_files(source), *session.posargs, env=env,
        )


@nox.session(python="3.11", default=False)
def clients(session: nox.Session) -> None:
    """pm.sample under enable() on a pymc-marketing MMM and a bambi model, against stock PyMC
    (tests/test_real_clients.py; pymc-marketing pins pymc < 6.4, so the PyMC 5.28 line; bambi 0.17
    brings arviz-plots 0.8, with which ArviZ 0.23's ``import arviz`` fails, so bambi < 0.17 there)."""
    session.install("--upgrade", "-e", ".[dev]", *MATRIX["3.11"], "pymc-marketing", "bambi<0.17")
    session.run("python", "-m", "pytest", "-q", "-n", "0", "tests/test_real_clients.py", *session.posargs)
