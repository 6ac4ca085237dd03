"""A hit in a fresh process imports only what a hit needs (the time to a first result counts them)."""

from __future__ import annotations

import importlib.util

import pytest
from children import run_child


@pytest.mark.slow
def test_a_hit_imports_none_of_the_builders_writers_or_other_entry_points(tmp_path):
    build = run_child("child_hit_modules.py", tmp_path)
    assert build["counters"]["compiles"] >= 1 and build["counters"]["disk_hits"] == 0  # auto compiles candidates
    assert {"pymc_aot.aot.build.compiler", "pytensor.link.jax.dispatch", "diskcache"} <= set(build["imported"])
    missing = [m for m in build["watched"] if importlib.util.find_spec(m) is None]
    assert not missing, f"not modules (a check that could never fail): {missing}"

    hit = run_child("child_hit_modules.py", tmp_path)
    assert hit["counters"] == {"compiles": 0, "disk_hits": 1}
    assert hit["already"] == [] and hit["imported"] == [], f"a hit imported {hit['imported']}"
