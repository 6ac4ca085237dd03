"""Regrouping modules into rooms (issue 21) changed no key of the zoo but pymc-aot's own source digest.

The zoo's key parts are computed twice in fresh processes: by this checkout, and by a commit of
the flat layout (extracted from git into the installed layout). They must be equal except
``versions["pymc-aot"]``, the digest of the source files themselves. The flat commit is the tip
of issue 26's key work, cut before the regrouping: its key is the one main holds now (the
regrouping was checked against e72edbf, main just before it, when it landed).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BEFORE_ROOMS = "3311a02"
"""aot/ and runtime/ flat, with issue 26's key (which changed descriptions on purpose)."""
LAYOUT = {"pymc_aot": "pymc_aot", "aot": "pymc_aot/aot", "cache": "pymc_aot/cache", "runtime": "pymc_aot/runtime"}


def _extract(commit: str, dest: Path) -> Path:
    """``commit``'s package, laid out as pyproject's package-dir installs it, under ``dest``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", commit, *LAYOUT], capture_output=True, check=False
    )
    if archive.returncode != 0:
        pytest.skip(f"commit {commit} is not in this repository (a shallow clone?): {archive.stderr[:200]!r}")
    raw = dest / "raw"
    raw.mkdir()
    subprocess.run(["tar", "-x", "-C", str(raw)], input=archive.stdout, check=True)
    site = dest / "site"
    for folder, target in LAYOUT.items():  # pymc_aot first: the others go inside it
        shutil.move(raw / folder, site / target)
    return site


def _key_parts(path: Path | None) -> dict:
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    if path is not None:
        env["PYTHONPATH"] = str(path)  # before the editable install's finder, which comes last
    done = subprocess.run(
        [sys.executable, str(HERE / "child_key_parts.py")], capture_output=True, text=True, env=env, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _without_own_source(parts: dict) -> tuple[dict, set[str]]:
    own = set()
    for value in parts.values():
        own.add(value["versions"].pop("pymc-aot"))
    return parts, own


def test_the_zoo_keys_are_those_of_the_flat_layout(tmp_path):
    site = _extract(BEFORE_ROOMS, tmp_path)
    before, now = _key_parts(site), _key_parts(None)
    assert before["package"].startswith(str(site)), before["package"]
    assert now["package"].startswith(str(ROOT)), now["package"]
    old, old_source = _without_own_source(before["parts"])
    new, new_source = _without_own_source(now["parts"])
    assert len(old) >= 6 * 7 and old.keys() == new.keys()
    assert old_source != new_source  # the one part that may change: the source is not the same
    changed = {case: old[case] for case in old if old[case] != new[case]}
    assert not changed, f"key parts changed by the move: {sorted(changed)[:5]}"
