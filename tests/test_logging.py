"""The ``pymc_aot`` logger: one line per transform (hit, miss, compile); enable(jax_cache=True) says what it replaces."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import jax
import pytest
from zoo import draws_for, scalars

from pymc_aot import runtime

HERE = Path(__file__).parent


def _lines(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "pymc_aot"]


def test_one_line_per_transform_says_miss_hit_or_memory(cache_dir, caplog):
    model = scalars()
    samples = draws_for(model, draws=6)
    with caplog.at_level(logging.DEBUG, logger="pymc_aot"):
        runtime.postprocess(model, samples, strategy="vmap")
        miss = [
            m for m in _lines(caplog) if "posterior transform (vmap) of model 'scalars'" in m and "building" not in m
        ]
        assert [m.split(": ", 2)[-1][:10] for m in miss] == ["cache miss", "compiled i"], miss
        assert miss[-1].endswith(", stored")
        caplog.clear()
        runtime.clear_memo()
        runtime.postprocess(model, samples, strategy="vmap")
        assert _lines(caplog) == [f"pymc-aot: posterior transform (vmap) of model 'scalars': cache hit ({cache_dir})"]
        caplog.clear()
        runtime.postprocess(model, samples, strategy="vmap")
        assert _lines(caplog) == ["pymc-aot: posterior transform (vmap) of model 'scalars': in memory"]


@pytest.mark.slow
def test_the_log_shows_on_stderr_like_pymcs_own(tmp_path):
    code = (
        "from zoo import draws_for, scalars; import pymc_aot\n"
        "m = scalars(); pymc_aot.postprocess(m, draws_for(m, draws=6), strategy='vmap')\n"
    )
    env = {"PYTHONPATH": str(HERE), "PYMC_AOT_CACHE_DIR": str(tmp_path / "c"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "pymc-aot: posterior transform (vmap) of model 'scalars': cache miss" in done.stderr


def test_enable_jax_cache_says_it_replaces_the_users_directory(tmp_path):
    before = jax.config.jax_compilation_cache_dir
    jax.config.update("jax_compilation_cache_dir", str(tmp_path / "mine"))
    try:
        with pytest.warns(UserWarning, match=r"instead of your jax_compilation_cache_dir .*mine"):
            assert runtime.enable(cache_dir=str(tmp_path / "cache"), jax_cache=True)
        runtime.disable()
        assert jax.config.jax_compilation_cache_dir == str(tmp_path / "mine")
    finally:
        runtime.disable()
        jax.config.update("jax_compilation_cache_dir", before)
