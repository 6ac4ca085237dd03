"""The remote tier (issue 25) over fsspec's ``file://`` backend: a miss fetches, verifies and
stores locally; a forged, tampered or unreachable remote gives a miss and one warning."""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("fsspec")

from pymc_aot.cache import CacheConfigError, CacheStore, generate_keypair
from pymc_aot.cache.remote import RemoteTier
from pymc_aot.cache.signing import Ed25519Signer, load_private_key
from pymc_aot.runtime.cli import main

A, B = "a1" + "0" * 62, "b2" + "0" * 62


def _meta(model: str = "m") -> dict:
    return {"key": {"strategy": "vmap"}, "model_name": model, "created": 1.0}


@pytest.fixture
def keys(tmp_path):
    return generate_keypair(tmp_path / "keys")


@pytest.fixture
def remote(tmp_path, keys, monkeypatch):
    url = f"file://{tmp_path / 'bucket' / 'prefix'}"
    signer = Ed25519Signer(load_private_key(keys[0]))
    tier = RemoteTier(url)
    tier.push(A, b"exe-a", _meta(), signer)
    tier.push(B, b"exe-b", _meta(), signer)
    monkeypatch.setenv("PYMC_AOT_CACHE_REMOTE", url)
    monkeypatch.setenv("PYMC_AOT_CACHE_REMOTE_PUBLIC_KEY", str(keys[1]))
    return tmp_path / "bucket" / "prefix"


def test_a_miss_is_filled_from_the_remote_and_stored_locally(tmp_path, remote, monkeypatch):
    worker = CacheStore(tmp_path / "worker")
    assert worker.metadata(A)["model_name"] == "m"
    assert worker.get(B)[0] == b"exe-b"
    assert worker.get("c" * 64) is None
    monkeypatch.delenv("PYMC_AOT_CACHE_REMOTE")
    again = CacheStore(tmp_path / "worker")
    assert again.get(A)[0] == b"exe-a" and again.get(B)[0] == b"exe-b", "stored locally"


def test_a_read_only_shared_cache_reads_the_remote_with_its_public_key(tmp_path, remote, keys, monkeypatch):
    monkeypatch.delenv("PYMC_AOT_CACHE_REMOTE_PUBLIC_KEY")
    root = tmp_path / "shared"
    CacheStore(root, signing_key=keys[0]).put("d" * 64, b"x", _meta())
    worker = CacheStore(root, read_only=True, public_key=keys[1])
    assert worker.get(A)[0] == b"exe-a"


@pytest.mark.parametrize("what", ["exe", "meta", "other key"])
def test_a_tampered_or_forged_remote_entry_is_not_trusted(tmp_path, remote, keys, caplog, what):
    entry = remote / "entries" / A
    if what == "exe":
        (entry / "exe").write_bytes(b"forged")
    elif what == "meta":
        (entry / "meta.json").write_text((entry / "meta.json").read_text().replace('"m"', '"x"'))
    else:
        private, _ = generate_keypair(tmp_path / "stranger")
        RemoteTier(f"file://{remote}").push(A, b"evil", _meta(), Ed25519Signer(load_private_key(private)))
    worker = CacheStore(tmp_path / "worker")
    with caplog.at_level(logging.WARNING, logger="pymc_aot.cache"):
        assert worker.get(A) is None and worker.get(B)[0] == b"exe-b"
    assert "failed verification" in caplog.text
    assert [r.digest for r in worker.entries()] == [B]


def test_an_unreachable_remote_warns_once_and_misses(tmp_path, keys, monkeypatch, caplog):
    monkeypatch.setenv("PYMC_AOT_CACHE_REMOTE", "nosuchprotocol://bucket/prefix")
    monkeypatch.setenv("PYMC_AOT_CACHE_REMOTE_PUBLIC_KEY", str(keys[1]))
    worker = CacheStore(tmp_path / "worker")
    with caplog.at_level(logging.WARNING, logger="pymc_aot.cache"):
        assert worker.get(A) is None and worker.get(B) is None and worker.metadata(A) is None
    messages = [r.getMessage() for r in caplog.records if r.name == "pymc_aot.cache"]
    assert len(messages) == 1 and "cannot be read" in messages[0]


def test_a_remote_without_a_public_key_names_the_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("PYMC_AOT_CACHE_REMOTE", f"file://{tmp_path}/bucket")
    monkeypatch.delenv("PYMC_AOT_CACHE_REMOTE_PUBLIC_KEY", raising=False)
    with pytest.raises(CacheConfigError, match="PYMC_AOT_CACHE_REMOTE_PUBLIC_KEY"):
        CacheStore(tmp_path / "worker").get(A)


def test_cli_push_then_a_worker_fetches(tmp_path, keys, monkeypatch, capsys):
    for name in ("PYMC_AOT_CACHE_SIGNING_KEY", "PYMC_AOT_CACHE_PUBLIC_KEY", "PYMC_AOT_CACHE_REMOTE"):
        monkeypatch.delenv(name, raising=False)
    operator = CacheStore(tmp_path / "operator")
    assert operator.put(A, b"exe-a", _meta("m1")) and operator.put(B, b"exe-b", _meta("m2"))
    url = f"file://{tmp_path}/bucket"
    args = ["push", "--remote", url, "--signing-key", str(keys[0]), "--cache-dir", str(tmp_path / "operator")]
    assert main([*args, "--model", "m2"]) == 0
    assert "pushed 1 entry" in capsys.readouterr().out
    assert RemoteTier(url).digests() == [B]
    monkeypatch.setenv("PYMC_AOT_CACHE_REMOTE", url)
    monkeypatch.setenv("PYMC_AOT_CACHE_REMOTE_PUBLIC_KEY", str(keys[1]))
    worker = CacheStore(tmp_path / "worker")
    assert worker.get(B)[0] == b"exe-b" and worker.get(A) is None


def test_doctor_shows_the_remote_tier(remote, keys, monkeypatch):
    from pymc_aot.runtime.cli.diagnose_remote import remote_facts

    facts, problems = remote_facts()
    assert problems == [] and dict(facts)["entries"] == "2" and dict(facts)["reachable"] == "yes"
    monkeypatch.setenv("PYMC_AOT_CACHE_REMOTE", "nosuchprotocol://x")
    facts, problems = remote_facts()
    assert dict(facts)["reachable"] == "no" and "cannot be listed" in problems[0]


def test_a_remote_that_hangs_is_given_up_on_once_and_misses(tmp_path, keys, monkeypatch, caplog):
    import threading

    import fsspec
    from fsspec.implementations.memory import MemoryFileSystem

    release, calls = threading.Event(), []

    class Hangs(MemoryFileSystem):
        protocol = "pymcaothangs"

        def cat_file(self, path, *args, **kwargs):
            calls.append(path)
            release.wait(60)
            raise FileNotFoundError(path)

    fsspec.register_implementation("pymcaothangs", Hangs, clobber=True)
    monkeypatch.setenv("PYMC_AOT_CACHE_REMOTE", "pymcaothangs://bucket/prefix")
    monkeypatch.setenv("PYMC_AOT_CACHE_REMOTE_PUBLIC_KEY", str(keys[1]))
    monkeypatch.setenv("PYMC_AOT_CACHE_REMOTE_TIMEOUT", "0.3")
    worker = CacheStore(tmp_path / "worker")
    try:
        with caplog.at_level(logging.WARNING, logger="pymc_aot.cache"):
            assert worker.get(A) is None and worker.get(B) is None and worker.metadata(A) is None
    finally:
        release.set()
    messages = [r.getMessage() for r in caplog.records if r.name == "pymc_aot.cache"]
    assert len(messages) == 1 and "no answer within 0.3 s" in messages[0]
    assert len(calls) == 1, "after one timeout the remote is not asked again in this process"


@pytest.mark.parametrize("value", ["soon", "0", "-1"])
def test_a_bad_remote_timeout_names_the_variable(tmp_path, remote, monkeypatch, value):
    monkeypatch.setenv("PYMC_AOT_CACHE_REMOTE_TIMEOUT", value)
    with pytest.raises(CacheConfigError, match=f"PYMC_AOT_CACHE_REMOTE_TIMEOUT: .* got '{value}'"):
        CacheStore(tmp_path / "worker").get(A)
