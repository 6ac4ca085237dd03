"""What a new user tripped on at the command line (issue 24): exit codes, Ctrl-C, options checked up front."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pymc_aot.cache import CacheStore, generate_keypair
from pymc_aot.runtime.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCHOOLS = str(ROOT / "examples" / "eight_schools.py")
REGRESSION = str(ROOT / "examples" / "regression.py")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_precompile_that_stores_nothing_exits_1(capsys, cache_dir):
    code, out, err = run(
        capsys, "precompile", SCHOOLS, "--draws", "10", "--strategy", "vmap", "--cache-dir", "/proc/nope"
    )
    assert code == 1, err
    assert "nothing stored for 1 of 1 transforms in /proc/nope" in err
    assert "NOT stored in /proc/nope" in out


def test_clear_on_a_read_only_cache_exits_1(capsys, tmp_path, monkeypatch):
    private_key, public_key = generate_keypair(tmp_path / "keys")
    operator = CacheStore(tmp_path / "shared", signing_key=private_key)
    assert operator.put("b" * 64, b"exe", {"key": {"strategy": "vmap"}, "model_name": "m", "created": 1.0})
    operator.close()
    monkeypatch.setenv("PYMC_AOT_CACHE_READONLY", "1")
    monkeypatch.setenv("PYMC_AOT_CACHE_PUBLIC_KEY", str(public_key))
    code, out, err = run(capsys, "clear", "--all", "--yes", "--cache-dir", str(tmp_path / "shared"))
    assert code == 1 and "is read-only" in err and "nothing removed" in err
    assert "removed" not in out


class _SwallowsCtrlC:
    """A ``__del__`` that gets Ctrl-C: Python prints "Exception ignored" and goes on (JAX's gc callback did)."""

    def __del__(self) -> None:
        signal.raise_signal(signal.SIGINT)


def test_ctrl_c_swallowed_on_the_way_still_stops_with_130(capsys, cache_dir, monkeypatch):
    from pymc_aot.runtime.cli.state import CliState

    loaded = []

    def load_model(self, ref):
        _SwallowsCtrlC()  # collected at once: the interrupt is raised inside __del__ and ignored
        loaded.append(ref)
        raise AssertionError("the command went on after Ctrl-C")

    monkeypatch.setattr(CliState, "load_model", load_model)
    code, _, err = run(capsys, "precompile", SCHOOLS, "--draws", "10")
    assert loaded, "the fake model loader ran"
    assert code == 130, err
    assert "interrupted" in err


@pytest.mark.slow
def test_ctrl_c_in_a_real_process_exits_130_and_keeps_the_cache(tmp_path):
    env = {**os.environ, "PYMC_AOT_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "pymc_aot", "precompile", REGRESSION, "--draws", "50", "--log-likelihood"]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = ""
    deadline = time.monotonic() + 300
    while "compiling" not in seen and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen += line
    proc.send_signal(signal.SIGINT)
    _, rest = proc.communicate(timeout=300)
    assert proc.returncode == 130, seen + rest
    assert "interrupted" in rest
    store = CacheStore(tmp_path / "cache")
    for record in store.entries():  # whatever was stored is whole and verifies
        assert store.get(record.digest) is not None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--memory-budget", "lots"], "expected a size such as 2GiB"),
        (["--memory-budget", "1.5"], "must be in (0, 1]"),
        (["--strategy", "bogus"], "unknown strategy 'bogus'"),
        (["--strategy", "vmap(3)"], "only batched, streamed, sharded take a batch size"),
        (["--strategy", "batched"], "needs --batch-size"),
        (["--strategy", "vmap", "--batch-size", "4"], "--batch-size applies to"),
        (["--draws", "0"], "0 is not in the range x>=1"),
    ],
)
def test_precompile_options_are_checked_before_the_model_loads(capsys, cache_dir, monkeypatch, args, message):
    from pymc_aot.runtime.cli.state import CliState

    def load_model(self, ref):
        raise AssertionError("loaded the model before checking the options")

    monkeypatch.setattr(CliState, "load_model", load_model)
    code, _, err = run(capsys, "precompile", SCHOOLS, *args)
    assert code == 1 and message in err, err
    assert "pymc-aot: pymc-aot" not in err


@pytest.mark.parametrize(
    ("plot", "message"),
    [
        ("/proc/nope/x.png", "does not exist"),
        ("{tmp}/missing/out.png", "does not exist"),
        ("{tmp}/x.pdf", ".png or .svg"),
    ],
)
def test_compare_plot_path_is_checked_up_front_and_never_made(capsys, cache_dir, monkeypatch, tmp_path, plot, message):
    from pymc_aot.runtime.cli.state import CliState

    monkeypatch.setattr(CliState, "load_model", lambda self, ref: pytest.fail("loaded the model first"))
    path = plot.format(tmp=tmp_path)
    code, _, err = run(capsys, "compare", SCHOOLS, "--plot", path)
    assert code == 1 and message in err, err
    assert not (tmp_path / "missing").exists(), "the directory was created"


def test_strategy_choices_match_the_library():
    from pymc_aot.aot.strategies.strategies import STRATEGY_NAMES
    from pymc_aot.runtime.cli.options import STRATEGY_CHOICES

    assert set(STRATEGY_CHOICES) == {"auto", *STRATEGY_NAMES}


def test_clear_stale_imports_neither_jax_nor_pymc(tmp_path):
    """It compares versions: from the installed metadata, not by importing jax and pymc (30-70 s loaded)."""
    code = (
        "import sys\n"
        "from pymc_aot.runtime.cli import main\n"
        "code = main(['clear', '--stale', '--yes'])\n"
        "print('RESULT', code, sorted(m for m in ('jax', 'pymc', 'pytensor') if m in sys.modules))\n"
    )
    env = {**os.environ, "PYMC_AOT_CACHE_DIR": str(tmp_path / "cache")}
    store = CacheStore(tmp_path / "cache")
    assert store.put("a" * 64, b"exe", {"key": {"versions": {"jax": "0.0.1"}, "format": 2}, "created": 1.0})
    store.close()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "RESULT 0 []"
    assert "removed 1 entry" in done.stdout


def test_installed_versions_equal_the_keys():
    from pymc_aot.aot.identity.versions import installed_versions, library_versions

    assert installed_versions() == library_versions()


def test_keygen_command(capsys, tmp_path):
    code, out, _ = run(capsys, "keygen", str(tmp_path / "k"))
    assert code == 0
    assert f"PYMC_AOT_CACHE_SIGNING_KEY={tmp_path / 'k' / 'cache-signing-key.pem'}" in out
    assert f"PYMC_AOT_CACHE_PUBLIC_KEY={tmp_path / 'k' / 'cache-public-key.pem'}" in out
    code, _, err = run(capsys, "keygen", str(tmp_path / "k"))
    assert code == 1 and "never overwrites" in err and err.count("\n") == 1


def test_stats_says_how_the_cache_is_signed(capsys, tmp_path, monkeypatch):
    import json

    _, public_key = generate_keypair(tmp_path / "keys")
    CacheStore(tmp_path / "mine").put("a" * 64, b"exe", {"key": {}, "created": 1.0})
    code, out, _ = run(capsys, "stats", "--cache-dir", str(tmp_path / "mine"))
    assert code == 0 and "signed       private cache, signed with this user's secret (HMAC-SHA256)" in out
    monkeypatch.setenv("PYMC_AOT_CACHE_READONLY", "1")
    monkeypatch.setenv("PYMC_AOT_CACHE_PUBLIC_KEY", str(public_key))
    code, out, _ = run(capsys, "stats", "--json", "--cache-dir", str(tmp_path / "mine"))
    assert json.loads(out)["signed"].startswith("shared cache, read-only, verified with the operator's public key")


def test_a_refusal_names_pymc_aot_once(capsys, tmp_path):
    root = tmp_path / "open"
    root.mkdir()
    root.chmod(0o777)
    code, _, err = run(capsys, "inspect", "--cache-dir", str(root))
    assert code == 1 and err.startswith("pymc-aot refuses") and "pymc-aot: pymc-aot" not in err


def test_arviz_refactor_notice_is_not_printed_by_the_cli(capsys, monkeypatch):
    import warnings

    from pymc_aot.runtime.cli.errors import UserError
    from pymc_aot.runtime.cli.state import CliState

    def load_model(self, ref):
        warnings.warn("\nArviZ is undergoing a major refactor to improve flexibility", FutureWarning, stacklevel=1)
        raise UserError("stop here")

    monkeypatch.setattr(CliState, "load_model", load_model)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        code, _, _ = run(capsys, "precompile", SCHOOLS, "--draws", "10")
    assert code == 1
    assert not [w for w in seen if "ArviZ" in str(w.message)]
