"""Signed bundles (issue 25): export chosen entries, import them verified, refuse any bad bundle whole."""

from __future__ import annotations

import json
import logging
import zipfile
from pathlib import Path

import pytest

from pymc_aot.cache import CacheStore, generate_keypair
from pymc_aot.cache.bundle import MANIFEST, BundleError, read_bundle
from pymc_aot.cache.transfer import export_bundle, import_bundle
from pymc_aot.runtime.cli import main

A, B, C = "a1" + "0" * 62, "b2" + "0" * 62, "c3" + "0" * 62


def _meta(model: str) -> dict:
    return {"key": {"strategy": "vmap"}, "model_name": model, "created": 1.0}


@pytest.fixture
def keys(tmp_path):
    return generate_keypair(tmp_path / "keys")


@pytest.fixture
def filled(tmp_path):
    store = CacheStore(tmp_path / "operator")
    assert store.put(A, b"exe-a" * 100, _meta("m1"))
    assert store.put(B, b"exe-b", _meta("m1"))
    assert store.put(C, b"exe-c", _meta("other"))
    return store


def _bundle(tmp_path, filled, keys, *prefixes, model=None) -> Path:
    path = tmp_path / "models.pmaot"
    export_bundle(filled, path, keys[0], prefixes, model)
    return path


def _rewrite(path: Path, edit) -> None:
    with zipfile.ZipFile(path) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    edit(members)
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def test_round_trip_into_a_fresh_cache(tmp_path, filled, keys):
    path = _bundle(tmp_path, filled, keys)
    worker = CacheStore(tmp_path / "worker")
    manifest, entries = import_bundle(worker, path, keys[1])
    assert sorted(e.digest for e in entries) == [A, B, C]
    assert worker.get(A)[0] == b"exe-a" * 100 and worker.get(C)[1]["model_name"] == "other"
    assert len(manifest["key_id"]) == 16


def test_prefixes_and_model_choose_entries(tmp_path, filled, keys):
    assert [e.digest for e in read_bundle(_bundle(tmp_path, filled, keys, "b2", "c3"), keys[1])[1]] == [B, C]
    assert sorted(e.digest for e in read_bundle(_bundle(tmp_path, filled, keys, model="m1"), keys[1])[1]) == [A, B]
    with pytest.raises(ValueError, match="no cached entry matches ff"):
        _bundle(tmp_path, filled, keys, "ff")


def _tamper_exe(members):
    name = f"entries/{A}/exe"
    members[name] = members[name][:-1] + b"X"


def _tamper_meta_and_manifest(members):
    """Change an entry's metadata and fix the manifest's digest: the entry's signature fails."""
    name = f"entries/{A}/meta.json"
    doc = json.loads(members[name])
    doc["meta"]["model_name"] = "forged"
    members[name] = json.dumps(doc, sort_keys=True).encode()
    manifest = json.loads(members[MANIFEST])
    import hashlib

    for listed in manifest["manifest"]["entries"]:
        if listed["digest"] == A:
            listed["meta_sha256"] = hashlib.sha256(members[name]).hexdigest()
    members[MANIFEST] = json.dumps(manifest).encode()


def _foreign_version(members):
    manifest = json.loads(members[MANIFEST])
    manifest["manifest"]["format"] = 2
    members[MANIFEST] = json.dumps(manifest).encode()


def _extra_member(members):
    members["entries/evil/exe"] = b"planted"


def _drop_entry(members):
    del members[f"entries/{B}/exe"]


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (_tamper_exe, rf"entry {A[:12]} was changed after it was signed"),
        (_tamper_meta_and_manifest, "the manifest's signature does not verify"),
        (_foreign_version, r"foreign version \('pymc-aot-bundle' format 2.*reads 'pymc-aot-bundle' format 1"),
        (_extra_member, "members the signed manifest does not list"),
        (_drop_entry, rf"entry {B[:12]} is missing or truncated"),
    ],
)
def test_a_bad_bundle_imports_nothing(tmp_path, filled, keys, edit, why):
    path = _bundle(tmp_path, filled, keys)
    _rewrite(path, edit)
    worker = CacheStore(tmp_path / "worker")
    with pytest.raises(BundleError, match=why):
        import_bundle(worker, path, keys[1])
    assert worker.entries() == []


def test_entry_signature_is_checked_even_with_a_consistent_manifest(tmp_path, filled, keys):
    """An entry re-signed with another key, spliced into a bundle whose manifest is re-signed
    with that key too: refused as signed by another key."""
    generate_keypair(tmp_path / "other")
    other_path = tmp_path / "other.pmaot"
    export_bundle(filled, other_path, tmp_path / "other" / "cache-signing-key.pem")
    worker = CacheStore(tmp_path / "worker")
    with pytest.raises(BundleError, match=r"signed with key '[0-9a-f]{16}', not with the public key"):
        import_bundle(worker, other_path, keys[1])
    assert worker.entries() == []
    _rewrite(other_path, lambda m: _rekey_manifest(m, keys[1]))
    with pytest.raises(BundleError, match="the manifest's signature does not verify"):
        import_bundle(worker, other_path, keys[1])
    assert worker.entries() == []


def _rekey_manifest(members, public_file):
    from pymc_aot.cache.signing import Ed25519Verifier, load_public_key

    manifest = json.loads(members[MANIFEST])
    manifest["manifest"]["key_id"] = Ed25519Verifier(load_public_key(public_file)).key_id
    members[MANIFEST] = json.dumps(manifest).encode()


def test_truncated_bundle_imports_nothing(tmp_path, filled, keys):
    path = _bundle(tmp_path, filled, keys)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    worker = CacheStore(tmp_path / "worker")
    with pytest.raises(BundleError, match="not a bundle, or truncated"):
        import_bundle(worker, path, keys[1])
    assert worker.entries() == []


def test_cli_export_then_import(tmp_path, filled, keys, capsys, monkeypatch):
    monkeypatch.delenv("PYMC_AOT_CACHE_SIGNING_KEY", raising=False)
    monkeypatch.delenv("PYMC_AOT_CACHE_PUBLIC_KEY", raising=False)
    path = tmp_path / "cli.pmaot"
    code = main(["export", str(path), "a1", "--signing-key", str(keys[0]), "--cache-dir", str(filled.directory)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "exported 1 entry" in out
    worker = tmp_path / "worker"
    assert main(["import", str(path), "--public-key", str(keys[1]), "--cache-dir", str(worker)]) == 0
    assert "imported 1 entry" in capsys.readouterr().out
    assert CacheStore(worker).get(A)[0] == b"exe-a" * 100
    _rewrite(path, _tamper_exe)
    assert main(["import", str(path), "--public-key", str(keys[1]), "--cache-dir", str(tmp_path / "w2")]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "changed after it was signed" in err
    assert main(["import", str(path), "--cache-dir", str(tmp_path / "w3")]) == 1
    assert "--public-key" in capsys.readouterr().err


# -- a bundle read in place, read-only (a container image) -------------------------------------
def _snapshot(path: Path) -> dict:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*"))
    return {str(p): (p.stat().st_mtime_ns, p.stat().st_size) for p in files}


@pytest.mark.parametrize("form", ["file", "unpacked"])
def test_a_bundle_is_read_in_place_without_writing(tmp_path, filled, keys, form):
    root = _bundle(tmp_path, filled, keys)
    if form == "unpacked":
        with zipfile.ZipFile(root) as zf:
            zf.extractall(tmp_path / "unpacked")
        root = tmp_path / "unpacked"
    before = _snapshot(root)
    store = CacheStore(root, read_only=True, public_key=keys[1])
    assert store.get(A)[0] == b"exe-a" * 100 and store.metadata(B)["model_name"] == "m1"
    assert sorted(r.digest for r in store.entries()) == [A, B, C]
    assert store.get("d" * 64) is None
    store.record_hit(A)
    store.close()
    assert _snapshot(root) == before and sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["keys", "operator", "models.pmaot", *(["unpacked"] if form == "unpacked" else [])]
    )


def test_a_bundle_read_in_place_with_another_key_warns_once_and_misses(tmp_path, filled, keys, caplog):
    root = _bundle(tmp_path, filled, keys)
    _, stranger = generate_keypair(tmp_path / "stranger")
    store = CacheStore(root, read_only=True, public_key=stranger)
    with caplog.at_level(logging.WARNING, logger="pymc_aot.cache"):
        assert store.get(A) is None and store.get(B) is None and store.entries() == []
    messages = [r.getMessage() for r in caplog.records if r.name == "pymc_aot.cache"]
    assert len(messages) == 1 and "not with the public key" in messages[0] and "running uncached" in messages[0]


def test_a_tampered_entry_of_an_unpacked_bundle_is_not_trusted(tmp_path, filled, keys):
    root = _bundle(tmp_path, filled, keys)
    with zipfile.ZipFile(root) as zf:
        zf.extractall(tmp_path / "unpacked")
    exe = tmp_path / "unpacked" / "entries" / A / "exe"
    exe.write_bytes(b"forged" + exe.read_bytes()[6:])
    store = CacheStore(tmp_path / "unpacked", read_only=True, public_key=keys[1])
    assert store.get(A) is None and store.get(B)[0] == b"exe-b"


def test_doctor_shows_a_bundles_manifest(tmp_path, filled, keys, monkeypatch):
    from pymc_aot.runtime.cli.diagnose_remote import bundle_facts

    root = _bundle(tmp_path, filled, keys)
    monkeypatch.setenv("PYMC_AOT_CACHE_PUBLIC_KEY", str(keys[1]))
    facts, problems = bundle_facts(root)
    assert problems == [] and dict(facts)["entries"] == "3" and dict(facts)["verified"] == "yes"
    assert dict(facts)["models"] == "m1, other"
    _, stranger = generate_keypair(tmp_path / "stranger")
    monkeypatch.setenv("PYMC_AOT_CACHE_PUBLIC_KEY", str(stranger))
    assert "not with the public key" in bundle_facts(root)[1][0]
    assert bundle_facts(tmp_path / "operator") is None
