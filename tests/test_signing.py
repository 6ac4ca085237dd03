"""Shared read-only caches signed with the operator's Ed25519 key: the store alone, no jax."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from pymc_aot.cache import CachePermissionError, CacheStore, generate_keypair

DIGEST = "b" * 64


def _meta(**extra):
    return {"key": {"strategy": "vmap"}, "model_name": "m", "created": 1.0, **extra}


@pytest.fixture
def keys(tmp_path):
    return generate_keypair(tmp_path / "keys")


@pytest.fixture
def shared(tmp_path, keys):
    """A cache the operator filled with one signed entry; the store is closed."""
    root = tmp_path / "shared"
    operator = CacheStore(root, signing_key=keys[0])
    assert operator.put(DIGEST, b"executable", _meta())
    operator.close()
    return root


def _snapshot(root: Path):
    return sorted((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in root.rglob("*") if p.is_file())


def _value_file(root: Path, key: str) -> Path:
    with sqlite3.connect(root / "cache.db") as con:
        (filename,) = con.execute("SELECT filename FROM Cache WHERE key = ?", (key,)).fetchone()
    return root / filename


def test_keygen_writes_a_private_and_a_public_key(tmp_path):
    private_file, public_file = generate_keypair(tmp_path / "keys")
    assert private_file.stat().st_mode & 0o777 == 0o600
    assert public_file.stat().st_mode & 0o777 == 0o644
    assert private_file.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert public_file.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    with pytest.raises(FileExistsError, match="never overwrites"):
        generate_keypair(tmp_path / "keys")


def test_keygen_command(tmp_path):
    command = [sys.executable, "-m", "pymc_aot.cache", "keygen", str(tmp_path / "k")]
    out = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"PYMC_AOT_CACHE_SIGNING_KEY={tmp_path / 'k' / 'cache-signing-key.pem'}" in out.stdout
    assert f"PYMC_AOT_CACHE_PUBLIC_KEY={tmp_path / 'k' / 'cache-public-key.pem'}" in out.stdout
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.returncode == 1 and "already exists" in again.stderr


def test_worker_reads_what_the_operator_signed_and_writes_nothing(shared, keys):
    before = _snapshot(shared)
    worker = CacheStore(shared, read_only=True, public_key=keys[1])
    exe, meta = worker.get(DIGEST)
    assert exe == b"executable" and meta["model_name"] == "m"
    assert not worker.put("c" * 64, b"other", _meta())
    worker.record_hit(DIGEST)
    assert [r.digest for r in worker.entries()] == [DIGEST]
    assert not worker.delete(DIGEST) and worker.clear() == 0
    with pytest.raises(CachePermissionError, match="cannot sign"):
        worker._signer.sign(b"payload")
    worker.close()
    assert _snapshot(shared) == before, "a worker writes nothing"
    assert not (shared / "secret.key").exists(), "a signed cache has no HMAC secret"


def test_operator_key_from_the_environment_and_worker_key_as_pem_text(tmp_path, keys, monkeypatch):
    monkeypatch.setenv("PYMC_AOT_CACHE_SIGNING_KEY", str(keys[0]))
    assert CacheStore(tmp_path / "shared").put(DIGEST, b"executable", _meta())
    monkeypatch.delenv("PYMC_AOT_CACHE_SIGNING_KEY")
    monkeypatch.setenv("PYMC_AOT_CACHE_READONLY", "1")
    monkeypatch.setenv("PYMC_AOT_CACHE_PUBLIC_KEY", keys[1].read_text())
    assert CacheStore(tmp_path / "shared").get(DIGEST)[0] == b"executable"


def test_another_public_key_misses_and_deletes_nothing(shared, tmp_path, caplog):
    _, other_public = generate_keypair(tmp_path / "other")
    before = _snapshot(shared)
    worker = CacheStore(shared, read_only=True, public_key=other_public)
    with caplog.at_level(logging.WARNING, logger="pymc_aot.cache"):
        assert worker.get(DIGEST) is None
        assert worker.get(DIGEST) is None
        assert worker.entries() == []
    assert caplog.text.count("failed verification") == 1 and "public key" in caplog.text
    worker.close()
    assert _snapshot(shared) == before


def test_a_private_cache_does_not_verify_as_a_shared_one(tmp_path, keys):
    assert CacheStore(tmp_path / "mine").put(DIGEST, b"executable", _meta())
    assert CacheStore(tmp_path / "mine", read_only=True, public_key=keys[1]).get(DIGEST) is None


def _resign(shared: Path, sign) -> None:
    """Rewrite the entry as a forger would: another executable, its true digest, a new signature."""
    forged = b"forged executable"
    _value_file(shared, f"exe:{DIGEST}").write_bytes(forged)
    meta_file = _value_file(shared, f"meta:{DIGEST}")
    body = json.loads(meta_file.read_text())["meta"]
    body.update(executable_size=len(forged), executable_sha256=hashlib.sha256(forged).hexdigest())
    payload = json.dumps(body, sort_keys=True).encode()
    meta_file.write_text(json.dumps({"meta": body, "sig": sign(payload)}, sort_keys=True))


@pytest.mark.parametrize("forger", ["hmac-with-public-key", "hmac-with-public-pem", "another-ed25519-key", "no-sig"])
def test_a_worker_cannot_forge(shared, keys, forger):
    public_pem = keys[1].read_bytes()
    raw = serialization.load_pem_public_key(public_pem).public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    other = ed25519.Ed25519PrivateKey.generate()
    sign = {
        "hmac-with-public-key": lambda p: hmac.new(raw, p, hashlib.sha256).hexdigest(),
        "hmac-with-public-pem": lambda p: hmac.new(public_pem, p, hashlib.sha256).hexdigest(),
        "another-ed25519-key": lambda p: other.sign(p).hex(),
        "no-sig": lambda p: "",
    }[forger]
    _resign(shared, sign)
    assert CacheStore(shared, read_only=True, public_key=keys[1]).get(DIGEST) is None


# -- keys that are refused, each with what to do ---------------------------------------------
def test_private_key_readable_by_others_is_refused(tmp_path, keys):
    os.chmod(keys[0], 0o640)
    with pytest.raises(CachePermissionError, match=r"signing_key.*mode 640.*chmod 600"):
        CacheStore(tmp_path / "c", signing_key=keys[0])


def test_public_key_writable_by_others_is_refused(tmp_path, keys):
    os.chmod(keys[1], 0o666)
    with pytest.raises(CachePermissionError, match=r"swap in their own key.*chmod go-w"):
        CacheStore(tmp_path / "c", read_only=True, public_key=keys[1])


def test_keys_that_are_not_ed25519_are_refused(tmp_path, monkeypatch):
    ec_key = ec.generate_private_key(ec.SECP256R1())
    pem = ec_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    monkeypatch.setenv("PYMC_AOT_CACHE_SIGNING_KEY", pem.decode())
    with pytest.raises(CachePermissionError, match=r"PYMC_AOT_CACHE_SIGNING_KEY: expected an Ed25519 private key, got"):
        CacheStore(tmp_path / "c")
    monkeypatch.delenv("PYMC_AOT_CACHE_SIGNING_KEY")
    ec_public = ec_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    with pytest.raises(CachePermissionError, match=r"public_key: expected a PEM Ed25519 public key.*keygen"):
        CacheStore(tmp_path / "c", read_only=True, public_key=ec_public)
    with pytest.raises(CachePermissionError, match=r"signing_key: expected an unencrypted PEM Ed25519 private key"):
        CacheStore(tmp_path / "c", signing_key="-----BEGIN PRIVATE KEY-----\ngarbage\n-----END PRIVATE KEY-----\n")
    with pytest.raises(CachePermissionError, match=r"public_key.*cannot read the key file"):
        CacheStore(tmp_path / "c", read_only=True, public_key=tmp_path / "missing.pem")
    with pytest.raises(CachePermissionError, match=r"public_key: expected an Ed25519 public key \(PEM text or a file\), got int"):
        CacheStore(tmp_path / "c", read_only=True, public_key=3)


def test_read_only_without_a_public_key_says_what_to_set(tmp_path):
    with pytest.raises(CachePermissionError, match=r"PYMC_AOT_CACHE_PUBLIC_KEY=.*keygen"):
        CacheStore(tmp_path / "c", read_only=True)


def test_a_public_key_alone_needs_read_only(tmp_path, keys):
    with pytest.raises(CachePermissionError, match=r"PYMC_AOT_CACHE_READONLY=1.*PYMC_AOT_CACHE_SIGNING_KEY"):
        CacheStore(tmp_path / "c", public_key=keys[1])


def test_signing_and_public_key_must_be_one_pair(tmp_path, keys):
    _, other_public = generate_keypair(tmp_path / "other")
    with pytest.raises(CachePermissionError, match="not one pair"):
        CacheStore(tmp_path / "c", signing_key=keys[0], public_key=other_public)
    assert CacheStore(tmp_path / "c", signing_key=keys[0], public_key=keys[1]).put(DIGEST, b"x", _meta())


# -- what a worker refuses in the shared cache itself ----------------------------------------
@pytest.mark.parametrize("what", ["root", "database", "subdirectory"])
def test_worker_refuses_a_shared_cache_others_could_write(shared, keys, what):
    target = {
        "root": shared,
        "database": shared / "cache.db",
        "subdirectory": _value_file(shared, f"exe:{DIGEST}").parent,
    }[what]
    os.chmod(target, 0o777 if target.is_dir() else 0o666)
    with pytest.raises(CachePermissionError, match="group- or world-writable"):
        CacheStore(shared, read_only=True, public_key=keys[1]).get(DIGEST)


def test_worker_never_reads_outside_the_shared_cache(shared, keys, tmp_path):
    outside = tmp_path / "copy.val"
    outside.write_bytes(_value_file(shared, f"exe:{DIGEST}").read_bytes())
    with sqlite3.connect(shared / "cache.db") as con:
        con.execute("UPDATE Cache SET filename = ? WHERE key = ?", (str(outside), f"exe:{DIGEST}"))
    assert CacheStore(shared, read_only=True, public_key=keys[1]).get(DIGEST) is None
    assert outside.read_bytes() == b"executable"


# -- a real worker: another uid that may not write the shared cache -------------------------
WORKER = """
import json, sys
from pymc_aot.cache import CacheStore
store = CacheStore(sys.argv[1], read_only=True, public_key=sys.argv[2])
found = store.get(sys.argv[3])
print(json.dumps({"exe": found[0].decode() if found else None, "entries": [r.digest for r in store.entries()]}))
"""


def _worker_site(base: Path) -> Path:
    """The store's package and its dependencies where another uid can import them (no jax, no pymc)."""
    import shutil

    import cffi
    import cryptography
    import diskcache

    import pymc_aot.cache

    site = base / "site"
    (site / "pymc_aot").mkdir(parents=True)
    (site / "pymc_aot" / "__init__.py").write_text("")
    shutil.copytree(Path(pymc_aot.cache.__file__).parent, site / "pymc_aot" / "cache")
    for module in (diskcache, cryptography, cffi):
        shutil.copytree(Path(module.__file__).parent, site / module.__name__)
    for backend in Path(cffi.__file__).parent.parent.glob("_cffi_backend*"):
        shutil.copy(backend, site)
    return site


def _system_python_matches() -> bool:
    try:
        out = subprocess.run(["/usr/bin/python3", "-S", "-c", "import sys; print(sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=60)
    except OSError:
        return False
    return out.stdout.strip() == str(sys.version_info[:2])


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or not Path("/usr/bin/setpriv").exists()
                    or not _system_python_matches(), reason="needs root, setpriv and a system python of this version")
def test_a_worker_of_another_uid_reads_the_shared_cache_while_the_operator_writes(tmp_path):
    import tempfile

    base = Path(tempfile.mkdtemp(dir="/tmp", prefix="pymc-aot-shared-"))
    try:
        os.chmod(base, 0o755)
        site = _worker_site(base)
        private_file, public_file = generate_keypair(base / "keys")
        os.chmod(base / "keys", 0o755)
        root = base / "cache"
        operator = CacheStore(root, signing_key=private_file)
        assert operator.put(DIGEST, b"executable", _meta())
        subprocess.run(["chmod", "-R", "go-w,go+rX", str(root), str(site)], check=True)

        def worker(digest: str) -> dict:
            command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                       "/usr/bin/env", "-i", f"PYTHONPATH={site}", "/usr/bin/python3", "-S", "-c", WORKER,
                       str(root), str(public_file), digest]
            out = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=base)
            assert out.returncode == 0, out.stderr
            return json.loads(out.stdout.strip().splitlines()[-1])

        before = _snapshot(root)
        assert worker(DIGEST) == {"exe": "executable", "entries": [DIGEST]}, "read while the operator holds it open"
        assert _snapshot(root) == before, "the worker wrote nothing"
        assert operator.put("c" * 64, b"second", _meta(created=2.0))
        subprocess.run(["chmod", "-R", "go-w,go+rX", str(root)], check=True)
        assert worker("c" * 64) == {"exe": "second", "entries": [DIGEST, "c" * 64]}
        operator.close()
        assert worker("c" * 64) == {"exe": "second", "entries": [DIGEST, "c" * 64]}, "and after it is done"
        con = sqlite3.connect(root / "cache.db")  # a cache left in WAL mode (filled by an older pymc-aot)
        assert con.execute("PRAGMA journal_mode=wal").fetchone() == ("wal",)
        con.close()
        assert worker(DIGEST) == {"exe": "executable", "entries": [DIGEST, "c" * 64]}, "read as immutable"
    finally:
        import shutil

        shutil.rmtree(base, ignore_errors=True)


def test_another_public_key_warns_once_for_all_and_inspect_counts_them(tmp_path, keys, caplog, capsys, monkeypatch):
    from pymc_aot.runtime.cli import main

    root = tmp_path / "shared"
    operator = CacheStore(root, signing_key=keys[0])
    for digest in ("b" * 64, "c" * 64, "d" * 64):
        assert operator.put(digest, b"executable", _meta())
    operator.close()
    _, other_public = generate_keypair(tmp_path / "other")
    worker = CacheStore(root, read_only=True, public_key=other_public)
    with caplog.at_level(logging.WARNING, logger="pymc_aot.cache"):
        for digest in ("b" * 64, "c" * 64, "d" * 64):
            assert worker.metadata(digest) is None and worker.get(digest) is None
        assert worker.entries() == []
    assert len(caplog.records) == 1, caplog.text
    assert "signed with another key" in caplog.text and "failed verification" in caplog.text
    monkeypatch.setenv("PYMC_AOT_CACHE_READONLY", "1")
    monkeypatch.setenv("PYMC_AOT_CACHE_PUBLIC_KEY", str(other_public))
    assert main(["inspect", "--cache-dir", str(root)]) == 0
    out = capsys.readouterr().out
    assert out.strip() == f"3 entries in {root} signed with another key (not listed)"
