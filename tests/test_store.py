"""The on-disk store alone: no jax, no pymc."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from pymc_aot.cache import CacheStore, default_cache_dir, parse_size
from pymc_aot.cache.paths import human_bytes


def _meta(**extra):
    return {"key": {"strategy": "vmap"}, "model_name": "m", "created": 1.0, **extra}


def test_put_get_roundtrip_and_hits(tmp_path):
    store = CacheStore(tmp_path)
    assert store.get("a" * 64) is None
    assert store.put("a" * 64, b"\x00exe-bytes", _meta())
    exe, meta = store.get("a" * 64)
    assert exe == b"\x00exe-bytes" and meta["model_name"] == "m"
    store.record_hit("a" * 64)
    store.record_hit("a" * 64)
    (record,) = store.entries()
    assert record.hits == 2 and record.executable_bytes == len(b"\x00exe-bytes")
    assert store.find("aaa") == ["a" * 64] and store.find("b") == []


def test_secret_is_private(tmp_path):
    store = CacheStore(tmp_path)
    store.put("c" * 64, b"x", _meta())
    mode = stat.S_IMODE(os.stat(tmp_path / "secret.key").st_mode)
    assert mode == 0o600


def test_tampered_metadata_is_dropped(tmp_path):
    store = CacheStore(tmp_path)
    store.put("d" * 64, b"payload", _meta())
    envelope = json.loads(store.db.get("meta:" + "d" * 64))
    envelope["meta"]["model_name"] = "evil"
    store.db.set("meta:" + "d" * 64, json.dumps(envelope))
    assert store.get("d" * 64) is None
    assert store.db.get("exe:" + "d" * 64) is None, "a broken entry is dropped whole"


def test_tampered_executable_is_dropped(tmp_path):
    store = CacheStore(tmp_path)
    store.put("e" * 64, b"payload", _meta())
    store.db.set("exe:" + "e" * 64, b"paylaod")
    assert store.get("e" * 64) is None
    assert store.entries() == []


class _WriterBetweenReads:
    """A reader's database on which another process replaces the entry right after the first metadata read."""

    def __init__(self, db, replace):
        self._db, self._replace = db, replace

    def get(self, key, *args, **kwargs):
        value = self._db.get(key, *args, **kwargs)
        if key.startswith("meta:") and self._replace is not None:
            self._replace, replace = None, self._replace
            replace()
        return value

    def __getattr__(self, name):
        return getattr(self._db, name)


def test_an_entry_replaced_between_reads_is_read_again_not_dropped(tmp_path, caplog):
    """Two processes that missed one key both store it; a reader between them must not take the
    first one's metadata with the second one's executable for a broken entry (CI, issue 25)."""
    digest = "9" * 64
    writer = CacheStore(tmp_path)
    writer.put(digest, b"first compile", _meta())
    reader = CacheStore(tmp_path)
    assert reader.db is not None  # opened: the careful path reads the metadata and the executable one after the other
    reader._db = _WriterBetweenReads(reader._db, lambda: writer.put(digest, b"second compile!", _meta(created=2.0)))
    with caplog.at_level("WARNING", logger="pymc_aot"):
        exe, meta = reader.get(digest)
    assert (exe, meta["created"]) == (b"second compile!", 2.0)
    assert caplog.messages == []
    assert CacheStore(tmp_path).get(digest)[0] == b"second compile!", "kept, not dropped"


def test_foreign_secret_is_not_trusted(tmp_path):
    CacheStore(tmp_path).put("f" * 64, b"payload", _meta())
    (tmp_path / "secret.key").write_bytes(b"k" * 32)
    assert CacheStore(tmp_path).get("f" * 64) is None


def test_lru_eviction_keeps_size_under_limit(tmp_path):
    store = CacheStore(tmp_path, size_limit=400_000)
    for i in range(12):
        store.put(f"{i:064x}", os.urandom(60_000), _meta(created=float(i)))
        store.get(f"{0:064x}")  # keep the first one hot
    assert store.volume() <= 400_000 + 60_000  # diskcache culls right after the write
    kept = {r.digest for r in store.entries()}
    assert f"{0:064x}" in kept and f"{11:064x}" in kept
    assert f"{1:064x}" not in kept


def test_default_dir_resolution(monkeypatch, tmp_path):
    monkeypatch.delenv("PYMC_AOT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "pymc-aot"
    monkeypatch.setenv("PYMC_AOT_CACHE_DIR", str(tmp_path / "env"))
    assert default_cache_dir() == tmp_path / "env"
    assert default_cache_dir(tmp_path / "arg") == tmp_path / "arg"


def test_sizes():
    assert parse_size("2GiB") == 2 * 1024**3
    assert parse_size("500 MB") == 500_000_000
    assert parse_size(1024) == 1024
    assert human_bytes(1536) == "1.5 KiB"
    with pytest.raises(ValueError, match="expected a size such as"):
        parse_size("lots")


def test_cache_package_imports_neither_jax_nor_pymc():
    code = "import sys, cache; print(any(m in sys.modules for m in ('jax', 'pymc', 'pytensor')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
