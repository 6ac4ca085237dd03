"""pymc-aot doctor: one screen of facts, exit 1 with one line per problem."""

from __future__ import annotations

import json
from pathlib import Path

from pymc_aot.cache import CacheStore
from pymc_aot.runtime.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCHOOLS = str(ROOT / "examples" / "eight_schools.py")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def healthy(capsys, root: Path) -> CacheStore:
    assert main(["precompile", SCHOOLS, "--draws", "10", "--strategy", "vmap", "--cache-dir", str(root)]) == 0
    capsys.readouterr()
    return CacheStore(root)


def test_doctor_on_a_healthy_cache(capsys, tmp_path):
    root = tmp_path / "cache"
    healthy(capsys, root)
    code, out, err = run(capsys, "doctor", "--cache-dir", str(root))
    assert code == 0, err
    assert err == ""
    for fact in (
        "jax ",
        "jaxlib ",
        "pytensor ",
        "pymc ",
        "pymc-aot ",
        "backend ",
        "host devices ",
        "x64 ",
        "floatX=",
        "auto budget ",
        "JAX's cache ",
    ):
        assert fact in out, fact
    assert f"root          {root}" in out and "mode 700" in out
    assert "entries       1, backed by 1 executables" in out
    assert "signed        private cache, signed with this user's secret (HMAC-SHA256)" in out
    assert out.strip().endswith("no problems found")
    doc = json.loads(run(capsys, "doctor", "--json", "--cache-dir", str(root))[1])
    assert doc["problems"] == [] and doc["sections"]["cache"]["root"] == str(root)


def test_doctor_on_a_world_writable_cache(capsys, tmp_path):
    root = tmp_path / "cache"
    healthy(capsys, root)
    root.chmod(0o777)
    code, out, err = run(capsys, "doctor", "--cache-dir", str(root))
    assert code == 1
    (line,) = err.strip().splitlines()
    assert line.startswith("pymc-aot: ") and "world-writable (mode 777)" in line and f"chmod go-w {root}" in line
    assert "1 problem(s)" in out


def test_doctor_on_entries_from_another_jax_version(capsys, tmp_path):
    root = tmp_path / "cache"
    store = healthy(capsys, root)
    (record,) = store.entries()
    payload, meta = store.get(record.digest)
    old = {k: v for k, v in meta.items() if k not in ("digest", "format")}
    old["key"] = {**old["key"], "versions": {**old["key"]["versions"], "jax": "0.0.1"}}
    assert store.put("0" * 64, payload, old)  # the store's own signed write, as an older install made it
    code, _, err = run(capsys, "doctor", "--cache-dir", str(root))
    assert code == 1
    (line,) = err.strip().splitlines()
    assert "1 stored executables" in line and "jax 0.0.1" in line and "pymc-aot clear --stale" in line
    assert run(capsys, "clear", "--stale", "--yes", "--cache-dir", str(root))[0] == 0
    assert run(capsys, "doctor", "--cache-dir", str(root))[0] == 0


def test_doctor_reports_every_problem_on_its_own_line(capsys, tmp_path):
    root = tmp_path / "cache"
    healthy(capsys, root)
    (root / "secret.key").chmod(0o644)
    root.chmod(0o775)
    code, _, err = run(capsys, "doctor", "--cache-dir", str(root))
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 2 and all(line.startswith("pymc-aot: ") for line in lines)
    assert "group- or world-writable (mode 775)" in lines[0] and "chmod 600" in lines[1]
