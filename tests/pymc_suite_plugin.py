"""A pytest plugin that runs a whole session -- PyMC's own test files -- with ``pymc_aot.enable()``.

Loaded by the ``pymc-suite`` nox session with ``-p pymc_suite_plugin`` (this folder on
``PYTHONPATH``); the cache root is ``$PYMC_AOT_CACHE_DIR``. PyMC's own configuration and warning
filters apply (its ``pyproject.toml`` is the ini file), not this project's. The summary says
what the cache did, so a warm pass that compiled something shows.
"""

from __future__ import annotations

import os
from typing import Any


def pytest_configure(config: Any) -> None:
    import pymc_aot

    pymc_aot.enable(cache_dir=os.environ.get("PYMC_AOT_CACHE_DIR"))


def pytest_unconfigure(config: Any) -> None:
    import pymc_aot

    pymc_aot.disable()


def pytest_report_header(config: Any) -> str:
    return f"pymc-aot enabled for the whole session, cache {os.environ.get('PYMC_AOT_CACHE_DIR') or 'default'}"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from pymc_aot import runtime

    c = runtime.COUNTERS
    terminalreporter.write_line(
        f"pymc-aot: {c.compiles} compiles ({c.preflight_compiles} in pm.sample's preflight), "
        f"{c.disk_hits} disk hits, {c.memo_hits} memo hits"
    )
