"""examples/fleet.py on a 2-worker LocalCluster: precompiled once, the workers compile nothing."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a Dask cluster of worker processes

pytest.importorskip("dask.distributed")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def fleet():
    """examples/fleet.py as ``fleet``: the spawned workers get this ``sys.path`` and import it too."""
    sys.path.insert(0, str(ROOT / "examples"))
    yield importlib.import_module("fleet")
    sys.path.remove(str(ROOT / "examples"))


def test_workers_compile_nothing_from_a_bundle_and_once_each_without_it(fleet, tmp_path):
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as client:
        bundle = fleet.run_fleet(client, "bundle", 4, 200, 5, tmp_path / "bundle")
        client.restart()
        alone = fleet.run_fleet(client, "per-worker", 4, 200, 5, tmp_path / "alone")
    assert bundle["compiles"] == 0 and 1 <= bundle["disk_hits"] <= bundle["workers"]
    assert alone["compiles"] == alone["workers"] and alone["disk_hits"] == 0
    same = {r["seed"]: r["mu_mean"] for r in alone["results"]}
    assert {r["seed"]: r["mu_mean"] for r in bundle["results"]} == same, "bit-identical results"
