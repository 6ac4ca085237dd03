"""How fast the command line answers: ``pymc-aot --help``, ``inspect`` and ``stats``, fresh processes.

    python bench/cli_start.py [--repeats 7]

A cache holding one entry (eight schools, compiled by a process first) is listed each time;
wall time from starting the interpreter to its exit, median of ``--repeats`` runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import machine, median  # noqa: E402

COMMANDS = (["--help"], ["inspect"], ["stats"])
FILL = "import pymc_aot; from pymc_aot import examples; pymc_aot.precompile(examples.eight_schools(), draws=100)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYMC_AOT_CACHE_DIR": tmp, "PYTHONDONTWRITEBYTECODE": ""}
        subprocess.run([sys.executable, "-c", FILL], env=env, check=True, capture_output=True)
        seconds: dict[str, list[float]] = {" ".join(c): [] for c in COMMANDS}
        for _ in range(opts.repeats):
            for command in COMMANDS:
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-m", "pymc_aot", *command], env=env, check=True, capture_output=True)
                seconds[" ".join(command)].append(time.perf_counter() - t0)
    print(f"machine: {machine()}\nmedian of {opts.repeats} fresh processes\n")
    print("| command | seconds |\n|---|---|")
    for command, times in seconds.items():
        print(f"| pymc-aot {command} | {median(times):.3f} |")


if __name__ == "__main__":
    main()
