"""The key's parts beyond the model: its kind and reasons, pymc-aot's own source, the host CPU,
and the CLI reusing its own entries for a model file holding user code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pymc as pm
import pytest
from twins import write_case
from zoo import scalars

from pymc_aot import aot
from pymc_aot.aot.identity import hostcpu, versions
from pymc_aot.cache import CacheStore
from pymc_aot.runtime.cli.modelref import user_module_name


def test_stored_key_names_kind_versions_and_cpu(cache_dir):
    entry = aot.precompile(scalars(), chains=2, draws=5, strategy="vmap")
    parts = CacheStore(cache_dir).metadata(entry.digest)["key"]
    assert parts["key_kind"] == "structural" and parts["key_reasons"] == []
    assert set(parts["versions"]) >= {"python", "numpy", "scipy", "jax", "jaxlib", "pytensor", "pymc", "pymc-aot"}
    assert parts["versions"]["pymc-aot"].startswith("src.")
    assert parts["cpu"] == hostcpu.cpu_features() and parts["cpu"].startswith(parts["cpu"].split(":")[0])


def test_reasons_are_shown_but_do_not_change_the_digest(cache_dir):
    import dataclasses

    key = aot.precompile(scalars(), chains=2, draws=5, strategy="vmap").key
    worded = dataclasses.replace(key, key_reasons=("said differently",))
    assert worded.digest == key.digest and worded.parts()["key_reasons"] == ["said differently"]
    assert dataclasses.replace(key, key_kind="lowered").digest != key.digest
    assert dataclasses.replace(key, cpu="x86_64: sse2").digest != key.digest


def test_lowered_key_for_a_model_the_fingerprint_cannot_describe(cache_dir):
    import contextvars

    scale = contextvars.ContextVar("scale", default=1.0)

    def model(observed):
        def logp(value, mu):
            return pm.logp(pm.Normal.dist(mu, scale.get()), value)

        with pm.Model() as m:
            mu = pm.Normal("mu")
            pm.CustomDist("y", mu, logp=logp, observed=observed)
        return m

    first = aot.precompile(model(np.zeros(3)), chains=2, draws=5, strategy="vmap", log_likelihood=True)
    parts = CacheStore(cache_dir).metadata(first.digest)["key"]
    assert parts["key_kind"] == "lowered" and "ContextVar" in parts["key_reasons"][0]
    again = aot.precompile(model(np.zeros(3)), chains=2, draws=5, strategy="vmap", log_likelihood=True)
    assert again.cached and again.digest == first.digest
    other = aot.precompile(model(np.ones(3)), chains=2, draws=5, strategy="vmap", log_likelihood=True)
    assert other.digest != first.digest


def test_source_digest_covers_every_file_and_byte(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    base = versions.digest_tree("pkg", tmp_path)
    assert versions.digest_tree("pkg", tmp_path) == base
    (tmp_path / "sub" / "b.py").write_text("y = 3\n")
    assert versions.digest_tree("pkg", tmp_path) != base
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    (tmp_path / "c.py").write_text("")
    assert versions.digest_tree("pkg", tmp_path) != base


def test_cpu_features_keep_instruction_sets_only(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 hypervisor avx512f constant_tsc fma\n\nflags\t: other\n")
    assert hostcpu.cpuinfo_flags(str(info)) == ["fpu", "sse2", "avx2", "hypervisor", "avx512f", "constant_tsc", "fma"]
    assert hostcpu.isa_features(["fpu", "sse2", "avx2", "hypervisor", "avx512f", "fma"], "x86_64") == [
        "avx2",
        "avx512f",
        "fma",
        "sse2",
    ]
    assert hostcpu.isa_features(["fp", "asimd", "sve"], "aarch64") == ["asimd", "fp", "sve"]


@pytest.mark.slow
def test_model_file_module_name_is_the_same_in_every_process(tmp_path):
    path = tmp_path / "model.py"
    code = "from pathlib import Path; from pymc_aot.runtime.cli.modelref import user_module_name as n; print(n(Path(%r)))"
    names = {
        subprocess.run([sys.executable, "-c", code % str(path)], capture_output=True, text=True, check=True).stdout.strip()
        for _ in range(2)
    }
    assert names == {user_module_name(path)}


@pytest.mark.slow
def test_cli_precompile_twice_reuses_its_entry_for_a_model_with_user_code(tmp_path):
    write_case(tmp_path / "model", "customdist_logp", 0)
    exe = str(Path(sys.executable).parent / "pymc-aot")
    env = dict(os.environ, PYMC_AOT_CACHE_DIR=str(tmp_path / "cache"), PYTHONWARNINGS="ignore")
    args = [exe, "precompile", f"{tmp_path / 'model' / 'model.py'}:model", "--chains", "2", "--draws", "10"]
    args += ["--strategy", "vmap", "--log-likelihood", "--json"]
    runs = [subprocess.run(args, capture_output=True, text=True, env=env, timeout=300) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[-1].stderr[-2000:]
    first, second = (json.loads(r.stdout)["entries"] for r in runs)
    assert [e["cached"] for e in first] == [False, False]
    assert [e["cached"] for e in second] == [True, True]
    assert [e["key"] for e in first] == [e["key"] for e in second]


def test_key_cost_bench_runs_on_a_small_model():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench import key_cost

    result = key_cost.child("zoo/scalars", 1.0)
    assert result["kind"] == "structural" and result["reasons"] == []
    assert 0 < result["structural"] and 0 < result["lowered"]
