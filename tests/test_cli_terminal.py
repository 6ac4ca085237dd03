"""What the installed command prints on a terminal, in a pipe, and what it imports to answer."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCHOOLS = str(ROOT / "examples" / "eight_schools.py")
EXE = str(Path(sys.executable).parent / "pymc-aot")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # anything but tab and newline
pytestmark = pytest.mark.skipif(not Path(EXE).exists(), reason="the console script is not installed")


def environment(cache: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE")}
    return {**env, "PYMC_AOT_CACHE_DIR": str(cache), "PYTHONWARNINGS": "ignore", **extra}


def on_a_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run the command with stdin, stdout and stderr on a pseudo-terminal; all it wrote."""
    leader, follower = pty.openpty()
    env = {**env, "TERM": "xterm-256color", "COLUMNS": "140", "LINES": "40"}
    proc = subprocess.Popen([EXE, *args], stdin=follower, stdout=follower, stderr=follower, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the command closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return proc.wait(timeout=300), b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.slow
def test_rich_progress_and_tables_on_a_terminal(tmp_path):
    env = environment(tmp_path / "cache")
    code, screen = on_a_terminal(["precompile", SCHOOLS, "--draws", "10", "--log-likelihood"], env)
    assert code == 0, screen
    assert "\x1b[?25l" in screen, "a live display hides the cursor"
    assert "━" in screen and "\r" in screen, "a progress bar redrawn in place"
    assert "log-likelihood" in screen and "candidates" in screen and "stored: auto:" in screen
    assert re.search(r"\d:\d\d:\d\d", screen), "elapsed time"
    assert "  [" not in screen, "no timestamped lines on a terminal"
    code, screen = on_a_terminal(["inspect"], env)
    assert code == 0 and "─" in screen and "\x1b[1m" in screen, "a rich table: a rule and bold headers"


@pytest.mark.slow
def test_piped_output_has_no_control_characters(tmp_path):
    env = environment(tmp_path / "cache")
    args = [EXE, "precompile", SCHOOLS, "--draws", "10", "--log-likelihood"]
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    for stream in (done.stdout, done.stderr):
        assert not CONTROL.search(stream), repr(CONTROL.search(stream))
    assert "posterior: batched(1): compiling" in done.stderr and "  [" in done.stderr
    assert "----" in done.stdout and "auto:" in done.stdout
    listed = subprocess.run([EXE, "inspect"], capture_output=True, text=True, env=env, timeout=120)
    assert listed.returncode == 0 and not CONTROL.search(listed.stdout) and "----" in listed.stdout
    as_json = subprocess.run([*args, "--json"], capture_output=True, text=True, env=env, timeout=300)
    assert as_json.returncode == 0
    assert [e["cached"] for e in json.loads(as_json.stdout)["entries"]] == [True, True], "stdout is JSON alone"


def test_help_inspect_and_stats_import_no_heavy_library(tmp_path):
    code = (
        "import sys\n"
        "from pymc_aot.runtime.cli import main\n"
        "codes = [main(['--help']), main(['inspect']), main(['inspect', '--json']), main(['stats'])]\n"
        "heavy = sorted(m for m in ('jax', 'jaxlib', 'pymc', 'pytensor', 'matplotlib', 'rich') if m in sys.modules)\n"
        "print('RESULT', codes, heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment(tmp_path / "cache"), timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "RESULT [0, 0, 0, 0] []"


def test_precompile_says_it_is_loading_before_importing_anything_heavy(tmp_path):
    model = str(ROOT / "tests" / "models" / "reports_imports.py")
    done = subprocess.run(
        [EXE, "precompile", model], capture_output=True, text=True, env=environment(tmp_path / "cache"), timeout=120
    )
    assert done.returncode == 1
    first, report = done.stderr.splitlines()[:2]
    assert first.endswith(f"loading {model}") and report == "MODEL-IMPORT heavy=[]"
    assert "the model code raised RuntimeError: stop after reporting" in done.stderr


@pytest.mark.slow
def test_a_failure_on_a_terminal_marks_the_task_and_ends_in_one_line(tmp_path):
    model = str(ROOT / "tests" / "models" / "reports_imports.py")
    code, screen = on_a_terminal(["precompile", model, "--log-likelihood"], environment(tmp_path / "cache"))
    assert code == 1
    assert "✗" in screen and "failed" in screen and "not run" in screen
    last = screen.replace("\r", "").strip().splitlines()[-1]
    assert "pymc-aot: the model code raised RuntimeError: stop after reporting" in last
