"""The distribution installs one import name, pymc_aot, that a user's own files cannot shadow."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_user_files_named_like_our_subpackages_do_not_shadow_them(tmp_path: Path) -> None:
    (tmp_path / "cache.py").write_text("raise RuntimeError('the user cache.py was imported')\n")
    (tmp_path / "aot.py").write_text("raise RuntimeError('the user aot.py was imported')\n")
    (tmp_path / "runtime").mkdir()
    (tmp_path / "runtime" / "__init__.py").write_text("raise RuntimeError('the user runtime/ was imported')\n")
    code = (
        "import sys, pymc_aot\n"
        "from pymc_aot.aot.strategies import budget\n"
        "from pymc_aot.cache import CacheStore\n"
        "assert pymc_aot.CacheStore is CacheStore\n"
        "assert budget.parse_size('1KiB') == 1024\n"
        "assert 'cache' not in sys.modules and 'runtime' not in sys.modules and 'aot' not in sys.modules\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_import_pymc_aot_is_light() -> None:
    code = "import sys, pymc_aot, pymc_aot.runtime.cli; print(sorted(m for m in ('jax', 'pymc', 'pytensor') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_module_entry_point_runs_the_cli() -> None:
    done = subprocess.run([sys.executable, "-m", "pymc_aot", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "precompile" in done.stdout


def test_version_marker_and_changelog() -> None:
    import importlib.metadata
    import importlib.resources
    import tomllib

    import pymc_aot

    root = Path(__file__).resolve().parents[1]
    assert pymc_aot.__version__ == importlib.metadata.version("pymc-aot")
    assert importlib.resources.files("pymc_aot").joinpath("py.typed").is_file()
    setuptools = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "py.typed" in setuptools["package-data"]["pymc_aot"], "py.typed ships in the wheel"
    assert setuptools["dynamic"]["version"] == {"attr": "pymc_aot.__version__"}
    assert f"## [{pymc_aot.__version__}]" in (root / "CHANGELOG.md").read_text()
