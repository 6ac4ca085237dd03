"""``pymc-aot precompile MODEL --predictive``: what ``pm.sample_posterior_predictive`` reads later."""

from __future__ import annotations

from pathlib import Path

import pytest
from children import run_child

from pymc_aot.runtime.cli import main

pytestmark = pytest.mark.slow  # a fresh process

HERE = Path(__file__).parent


def test_precompiled_predictive_is_read_by_a_fresh_process(capsys, tmp_path) -> None:
    cache = str(tmp_path / "cache")
    args = ["precompile", f"{HERE / 'predictive_models.py'}:poisson", "--chains", "2", "--draws", "30"]
    code = main([*args, "--strategy", "vmap", "--predictive", "--cache-dir", cache])
    _, err = capsys.readouterr()
    assert code == 0, err
    assert "predictive" in err
    found = run_child("child_predictive_hook.py", cache)
    assert found == {"compiles": 0, "disk_hits": 1}
