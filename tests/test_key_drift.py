"""The key of an unchanged model never drifts: not after other work in the process (a rewrite,
a compile, ``pm.sample``), not in another process, not after a precompile in another process."""

from __future__ import annotations

import pytest
from children import run_child


@pytest.fixture(scope="module")
def drift() -> tuple[dict, dict]:
    first = run_child("child_drift.py", "fresh,rewrite,compile,sample,logp", timeout=1200)
    second = run_child("child_drift.py", "sample,fresh", timeout=1200)  # other work before any key
    return first, second


def test_every_model_keeps_its_key_whatever_ran_before(drift):
    first, second = drift
    drifted = {}
    for name, stages in first.items():
        hashes = {h for pair in stages.values() for h in pair} | {h for pair in second[name].values() for h in pair}
        if len(hashes) != 1:
            seen = {**stages, **{f"other process, {k}": v for k, v in second[name].items()}}
            drifted[name] = {stage: [h[:8] for h in pair] for stage, pair in seen.items()}
    assert not drifted, "\n".join(f"{name}: {stages}" for name, stages in drifted.items())


@pytest.mark.parametrize("model", ["shared_ops", "time_series"])
def test_precompile_then_sample_in_a_fresh_process_compiles_nothing(tmp_path, model):
    env = {"PYMC_AOT_CACHE_DIR": str(tmp_path / "cache")}
    first = run_child("child_precompile_sample.py", "precompile", model, env=env, timeout=900)
    assert first["compiles"] > 0, first
    sampled = run_child("child_precompile_sample.py", "sample", model, env=env, timeout=900)
    assert sampled["compiles"] == 0 and sampled["disk_hits"] > 0, sampled


def test_three_postprocess_calls_compile_once(tmp_path):
    env = {"PYMC_AOT_CACHE_DIR": str(tmp_path / "cache")}
    counts = run_child("child_precompile_sample.py", "thrice", "shared_ops", env=env, timeout=900)["counts"]
    assert counts[0] > 0 and counts[0] == counts[1] == counts[2], counts
