from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    """A fresh cache root per test, with the in-process memo cleared."""
    from pymc_aot import runtime

    runtime.clear_memo()
    path = tmp_path / "cache"
    os.environ["PYMC_AOT_CACHE_DIR"] = str(path)
    yield path
    from pymc_aot.aot.choice import auto_later

    auto_later.wait()  # a first pm.sample's remaining candidates, before the directory goes
    os.environ.pop("PYMC_AOT_CACHE_DIR", None)
    runtime.clear_memo()


@pytest.fixture(scope="module")
def zoo_models() -> dict:
    """Every model of ``zoo.ZOO``, built once per test module."""
    from zoo import ZOO

    return {name: make() for name, make in ZOO.items()}
