"""examples/demo.py times what the README claims of a hit, and says what is in it (issue 24, item 12)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[1] / "examples" / "demo.py"


def test_the_timed_part_holds_the_postprocess_call_and_no_import():
    child = next(
        n.value.value
        for n in ast.parse(DEMO.read_text()).body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "CHILD"
    )
    timed = child[child.index("t1 = time.perf_counter()") : child.index("t2 = time.perf_counter()")]
    assert "runtime.postprocess(" in timed and "import" not in timed
    before = child[: child.index("t1 = time.perf_counter()")]
    assert "import jax, pymc.sampling.jax" in before, "the imports a pm.sample run has paid are timed apart"


@pytest.mark.slow
def test_demo_runs_and_says_what_is_timed(tmp_path):
    env = {"PYMC_AOT_CACHE_DIR": str(tmp_path / "c"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, str(DEMO)], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("imports (jax, pymc.sampling.jax") == 2
    assert "postprocess: disk" in done.stdout and "deserialize" in done.stdout
