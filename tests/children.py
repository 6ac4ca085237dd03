"""Fresh child processes for tests: start one and read its JSON line; make one refuse to compile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def run_child(script: str, *args: Any, env: dict[str, str] | None = None, timeout: int = 600) -> dict:
    """Run ``tests/<script>`` in a fresh interpreter (tests/ on its path, ``env`` added to the
    environment); fail with its stderr unless it exits 0; return the JSON its last line prints."""
    full_env = {**os.environ, "PYTHONPATH": str(HERE), **(env or {})}
    proc = subprocess.run(
        [sys.executable, str(HERE / script), *map(str, args)],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=HERE,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def forbid_compiles() -> None:
    """From now on any graph build, lowering or XLA compile in this process raises."""
    import jax

    from pymc_aot import aot

    def refuse(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("a compile happened on what should be a cache hit")

    aot.build.compiler.compile_transform = refuse
    aot.build.compiler.build_transform = refuse
    jax.stages.Lowered.compile = refuse
    jax.stages.Traced.lower = refuse
