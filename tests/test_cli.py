"""The pymc-aot command line, through click's runner and as an installed executable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pymc.sampling.jax  # noqa: F401 - PyMC's host CPU devices, before JAX starts (the --devices test)
import pytest

from pymc_aot.runtime.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCHOOLS = str(ROOT / "examples" / "eight_schools.py")
BAD = str(ROOT / "tests" / "models" / "bad_models.py")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_precompile_then_cached_then_inspect(capsys, cache_dir):
    code, out, err = run(capsys, "precompile", SCHOOLS, "--chains", "2", "--draws", "50", "--log-likelihood")
    assert code == 0, err
    assert "posterior" in out and "log_likelihood" in out and "peak" in out
    for step in ("building graph", "lowering", "compiling", "storing"):
        assert step in err
    code, out, err = run(capsys, "precompile", SCHOOLS, "--chains", "2", "--draws", "50", "--log-likelihood", "--json")
    assert code == 0
    doc = json.loads(out)
    assert [e["cached"] for e in doc["entries"]] == [True, True]
    assert "compiling" not in err, "a second identical run must not compile"
    entry = doc["entries"][0]
    assert entry["chains"] == 2 and entry["draws"] == 50 and entry["model_name"] == "eight_schools:model"
    assert isinstance(entry["memory"]["peak"], int) and entry["memory"]["peak"] > 0

    code, out, _ = run(capsys, "inspect", "--json")
    assert code == 0
    listed = json.loads(out)["entries"]
    assert {e["key"] for e in doc["entries"]} <= {e["key"] for e in listed}
    assert entry["strategy"].startswith("auto:"), "auto is the default"

    code, out, _ = run(capsys, "inspect", entry["key"][:10])
    assert code == 0 and "key parts" in out and '"jax"' in out and entry["key"] in out

    code, out, _ = run(capsys, "inspect", entry["key"][:8], "--json")
    parts = json.loads(out)["entry"]["key_parts"]
    assert parts["values"][0][1] == [2, 50] and parts["strategy"] == "auto"


def test_inspect_prefix_errors(capsys, cache_dir):
    from pymc_aot.cache import CacheStore

    assert run(capsys, "precompile", SCHOOLS, "--draws", "10", "--strategy", "vmap")[0] == 0
    code, _, err = run(capsys, "inspect", "zzz")
    assert code == 1 and "no cached entry has a key starting with 'zzz'" in err
    store = CacheStore(cache_dir)
    (real,) = store.entries()
    payload, meta = store.get(real.digest)
    for twin in ("abcd" + "0" * 60, "abcd" + "1" * 60):
        store.put(twin, payload, {k: v for k, v in meta.items() if k not in ("digest", "format")})
    code, _, err = run(capsys, "inspect", "abcd")
    assert code == 1 and "ambiguous" in err and "abcd00000000" in err and "abcd11111111" in err
    code, out, _ = run(capsys, "inspect", "abcd1")
    assert code == 0 and "abcd" + "1" * 60 in out


def test_stats_and_clear(capsys, cache_dir):
    assert run(capsys, "precompile", SCHOOLS, "--draws", "10", "--strategy", "vmap")[0] == 0
    code, out, _ = run(capsys, "stats", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["entries"] == 1 and doc["bytes_used"] > 0 and doc["location"] == str(cache_dir)
    assert run(capsys, "clear")[0] == 1
    code, out, _ = run(capsys, "clear", "--older-than", "1", "--yes")
    assert code == 0 and "nothing to remove" in out
    code, out, _ = run(capsys, "clear", "--all", "--yes")
    assert code == 0 and "removed 1 entry" in out
    assert json.loads(run(capsys, "stats", "--json")[1])["entries"] == 0


def test_clear_asks_first(cache_dir):
    from click.testing import CliRunner

    from pymc_aot.runtime.cli import cli

    assert main(["precompile", SCHOOLS, "--draws", "10", "--strategy", "vmap"]) == 0
    result = CliRunner().invoke(cli, ["clear", "--all"], input="n\n")
    assert result.exit_code != 0 and "remove 1 entry" in result.output
    assert json.loads(CliRunner().invoke(cli, ["stats", "--json"]).output)["entries"] == 1


def test_cache_dir_option_beats_env(capsys, cache_dir, tmp_path):
    other = tmp_path / "other"
    assert run(capsys, "precompile", SCHOOLS, "--draws", "10", "--strategy", "vmap", "--cache-dir", str(other))[0] == 0
    assert json.loads(run(capsys, "stats", "--json", "--cache-dir", str(other))[1])["entries"] == 1
    assert json.loads(run(capsys, "stats", "--json")[1])["entries"] == 0


def test_compare_marks_smallest_peak_and_runs(capsys, cache_dir):
    code, out, err = run(capsys, "compare", SCHOOLS, "--chains", "2", "--draws", "30", "--run", "--json")
    assert code == 0, err
    rows = json.loads(out)["strategies"]
    labels = [r["strategy"] for r in rows]
    assert labels[:5] == ["vmap", "scan", "scan_vmap", "vmap_scan", "nested_scan"] and "batched(10)" in labels
    assert sum(r["smallest_peak"] for r in rows) == 1
    best = next(r for r in rows if r["smallest_peak"])
    assert best["memory"]["peak"] == min(r["memory"]["peak"] for r in rows)
    assert all(r["run_seconds"] > 0 for r in rows)
    code, out, _ = run(capsys, "compare", SCHOOLS, "--chains", "2", "--draws", "30")
    assert code == 0 and " *" in out and "cached" in out


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("nowhere/missing.py:model", "model file not found"),
        (f"{BAD}:nothing", "has no attribute 'nothing'"),
        (f"{BAD}:not_a_model", "is a int, not a pm.Model"),
        (f"{BAD}:broken", "the model code raised RuntimeError: the user's own bug"),
        (str(ROOT / "tests" / "models" / "raises_on_import.py"), "ZeroDivisionError: exploded at import"),
        ("no_such_package.models:model", "module not found: no_such_package.models"),
    ],
)
def test_model_reference_errors(capsys, cache_dir, ref, message):
    code, _, err = run(capsys, "precompile", ref)
    assert code == 1
    assert message in err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("pymc-aot: ")


def test_debug_shows_user_traceback(capsys, cache_dir):
    code, _, err = run(capsys, "--debug", "precompile", f"{BAD}:broken")
    assert code == 1 and "Traceback" in err and "raise RuntimeError" in err


def test_bad_options_are_user_errors(capsys, cache_dir):
    code, _, err = run(capsys, "precompile", f"{BAD}:small", "--strategy", "fastest")
    assert code == 1 and "unknown strategy 'fastest'" in err
    code, _, err = run(capsys, "precompile", f"{BAD}:small", "--chains", "0")
    assert code == 1 and "--chains" in err
    code, _, err = run(capsys, "precompile", f"{BAD}:small", "--var-names", "y")
    assert code == 1 and "unknown variable(s) ['y']" in err


def test_every_command_has_help_with_an_example(capsys):
    for command in ("precompile", "inspect", "compare", "stats", "clear", "doctor"):
        code, out, _ = run(capsys, command, "--help")
        assert code == 0 and "Example" in out and "pymc-aot " + command in out


@pytest.mark.slow
def test_installed_executable(tmp_path):
    # the console script installed beside this interpreter (a venv's bin need not be on PATH)
    exe = str(Path(sys.executable).parent / "pymc-aot")
    assert Path(exe).exists(), f"{exe} is missing: install the package (pip install -e .)"
    env = dict(os.environ, PYMC_AOT_CACHE_DIR=str(tmp_path), PYTHONWARNINGS="ignore")
    done = subprocess.run([exe, "precompile", SCHOOLS, "--draws", "20", "--json"], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["entries"][0]["draws"] == 20
    listed = subprocess.run([exe, "inspect"], capture_output=True, text=True, env=env, timeout=120)
    assert listed.returncode == 0 and "eight_schools:model" in listed.stdout
    missing = subprocess.run([exe, "inspect", "nope"], capture_output=True, text=True, env=env, timeout=120)
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1


def test_precompile_from_constrained_serves_compute_log_likelihood(capsys, tmp_path):
    """--from constrained compiles what pm.compute_deterministics / compute_log_likelihood run;
    the library then finds both without compiling."""
    import numpy as np

    import pymc_aot
    from pymc_aot import runtime
    from pymc_aot.runtime.cli.modelref import load_model

    root = str(tmp_path / "c")
    args = ("precompile", SCHOOLS, "--chains", "2", "--draws", "5", "--strategy", "vmap", "--cache-dir", root)
    code, out, _ = run(capsys, *args, "--from", "constrained", "--log-likelihood", "--json")
    assert code == 0
    kinds = [e["kind"] for e in json.loads(out)["entries"]]
    assert kinds == ["deterministics", "constrained_log_likelihood"]
    model = load_model(SCHOOLS)
    rng = np.random.default_rng(0)
    posterior = {rv.name: rng.normal(size=(2, 5, *model.initial_point()[model.rvs_to_values[rv].name].shape))
                 for rv in model.free_RVs}
    posterior["tau"] = np.abs(posterior["tau"])
    runtime.clear_memo()
    before = runtime.COUNTERS.compiles
    for log_likelihood in (False, True):
        pymc_aot.from_posterior(model, posterior, log_likelihood=log_likelihood, strategy="vmap", cache=root)
    assert runtime.COUNTERS.compiles == before


def test_precompile_devices_for_sharded(capsys, cache_dir):
    args = ("precompile", SCHOOLS, "--chains", "4", "--draws", "20", "--strategy", "sharded(5)", "--json")
    keys = []
    for devices in ("1", "2"):
        code, out, err = run(capsys, *args, "--devices", devices)
        assert code == 0, err
        entry = json.loads(out)["entries"][0]
        assert entry["strategy"] == "sharded(5)"
        keys.append(entry["key"])
    assert keys[0] != keys[1], "the key names the mesh"
    code, _, err = run(capsys, "precompile", SCHOOLS, "--strategy", "vmap", "--devices", "2")
    assert code == 1 and "devices=2 applies to the 'sharded' strategy" in err
    code, _, err = run(capsys, "precompile", SCHOOLS, "--devices", "0")
    assert code == 1 and "--devices" in err
