"""The README's test command runs the fast set; CI also runs the slow set, nox runs everything."""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_slow_marker_is_registered_and_left_out_by_default():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert any(m.startswith("slow:") for m in options["markers"])
    assert shlex.split(options["addopts"])[-2:] == ["-m", "not slow"]


def test_ci_runs_the_readme_command_and_the_slow_set_and_nox_everything():
    ci = (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "python -m pytest -q -n 2\n" in readme and "python -m pytest -q -n 2 -m slow" in readme
    assert "pytest_or_fail python3 -m pytest -q -n 2 " in ci and "pytest_or_fail python3 -m pytest -q -n 2 -m slow" in ci
    assert 'if [ "$rc" -eq 5 ]' in ci, "no test collected still fails CI"
    nox = (ROOT / "noxfile.py").read_text()
    assert 'EVERY_TEST = ("-m", "slow or not slow")' in nox and "*EVERY_TEST" in nox


def test_ci_runs_both_halves_of_the_slow_set_on_both_pymc_lines():
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'SLOW_REST=("${SLOW_FIRST[@]/#/--ignore=}")' in ci, "the second half is every slow test not in the first"
    first = shlex.split(ci.split("SLOW_FIRST=(", 1)[1].split(")", 1)[0])
    assert first and all((ROOT / path).is_file() for path in first)
    for half in ('"${SLOW_FIRST[@]}"', '"${SLOW_REST[@]}"'):
        assert f"pytest_or_fail python3 -m pytest -q -n 2 -m slow {half}" in ci
        assert f'nox -R -s tests-3.12 --envdir "$envdir" -- -q -n 2 -m slow {half}' in ci
