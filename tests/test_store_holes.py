"""The store's holes from issue 10, one test each: every one of these failed before its fix."""

from __future__ import annotations

import logging
import os
import pickle
import sqlite3
from pathlib import Path

import diskcache
import pytest

from pymc_aot.cache import CachePermissionError, CacheStore

DIGEST = "a" * 64


def _meta(**extra):
    return {"key": {"strategy": "vmap"}, "model_name": "m", "created": 1.0, **extra}


def _stored(root: Path) -> CacheStore:
    store = CacheStore(root)
    assert store.put(DIGEST, b"executable", _meta())
    store.close()
    return store


def _row_filename(root: Path, key: str) -> str:
    with sqlite3.connect(root / "cache.db") as con:
        (filename,) = con.execute("SELECT filename FROM Cache WHERE key = ?", (key,)).fetchone()
    return filename


def _point_row(root: Path, key: str, filename: str) -> None:
    with sqlite3.connect(root / "cache.db") as con:
        con.execute("UPDATE Cache SET filename = ? WHERE key = ?", (filename, key))


# -- permissions of everything under the root ------------------------------------------------
def test_group_writable_database_is_refused(tmp_path):
    root = tmp_path / "cache"
    _stored(root)
    os.chmod(root / "cache.db", 0o664)
    with pytest.raises(CachePermissionError, match=r"cache\.db.*group- or world-writable.*chmod go-w"):
        CacheStore(root).get(DIGEST)


def test_group_writable_subdirectory_is_refused(tmp_path):
    root = tmp_path / "cache"
    _stored(root)
    subdir = (root / _row_filename(root, f"exe:{DIGEST}")).parent
    os.chmod(subdir, 0o775)
    with pytest.raises(CachePermissionError, match=r"group- or world-writable.*chmod -R go-w"):
        CacheStore(root).get(DIGEST)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_foreign_owned_database_is_refused(tmp_path):
    root = tmp_path / "cache"
    _stored(root)
    os.chown(root / "cache.db", 12345, 12345)
    with pytest.raises(CachePermissionError, match=r"cache\.db.*belongs to uid 12345"):
        CacheStore(root).get(DIGEST)


def test_new_subdirectories_are_private(tmp_path):
    """diskcache makes its subdirectories with the umask; a umask of 002 must not make them group-writable."""
    root = tmp_path / "cache"
    old = os.umask(0o002)
    try:
        _stored(root)
    finally:
        os.umask(old)
    value = root / _row_filename(root, f"exe:{DIGEST}")
    for path in (value.parent, value.parent.parent, root / "cache.db"):
        assert path.stat().st_mode & 0o077 == 0, (path, oct(path.stat().st_mode))
    assert CacheStore(root).get(DIGEST) is not None


# -- rows whose filename points elsewhere ----------------------------------------------------
@pytest.mark.parametrize("form", ["absolute", "relative", "database", "secret"])
def test_row_pointing_elsewhere_never_deletes_that_file(tmp_path, form):
    root = tmp_path / "cache"
    _stored(root)
    outside = tmp_path / "precious.txt"
    outside.write_bytes(b"not yours")
    target = {
        "absolute": str(outside),
        "relative": os.path.join("..", "precious.txt"),
        "database": "cache.db",
        "secret": "secret.key",
    }[form]
    _point_row(root, f"exe:{DIGEST}", target)
    store = CacheStore(root)
    assert store.get(DIGEST) is None, "an entry whose executable lives elsewhere is dropped"
    assert outside.read_bytes() == b"not yours"
    assert (root / "cache.db").exists() and (root / "secret.key").exists()
    store.close()
    again = CacheStore(root)
    assert again.put(DIGEST, b"executable", _meta()) and again.get(DIGEST)[0] == b"executable"


def test_row_pointing_outside_is_never_read(tmp_path):
    """A valid metadata file copied outside the cache and pointed at is refused, not read."""
    root = tmp_path / "cache"
    _stored(root)
    outside = tmp_path / "copy.val"
    outside.write_bytes((root / _row_filename(root, f"meta:{DIGEST}")).read_bytes())
    _point_row(root, f"meta:{DIGEST}", str(outside))
    assert CacheStore(root).get(DIGEST) is None
    assert outside.exists()


def test_value_file_symlinked_outside_is_refused(tmp_path):
    root = tmp_path / "cache"
    _stored(root)
    value = root / _row_filename(root, f"exe:{DIGEST}")
    outside = tmp_path / "elsewhere.val"
    outside.write_bytes(value.read_bytes())
    value.unlink()
    value.symlink_to(outside)
    assert CacheStore(root).get(DIGEST) is None
    assert outside.read_bytes() == b"executable"


# -- refused rows are dropped, not fatal -----------------------------------------------------
def _plant_pickled(root: Path, key: str, value) -> None:
    planted = diskcache.Cache(str(root), disk_min_file_size=0)  # the stock Disk pickles dicts
    planted.set(key, value)
    planted.close()


@pytest.mark.parametrize("kind", ["use", "meta", "exe"])
def test_pickled_row_is_dropped_not_fatal(tmp_path, kind):
    root = tmp_path / "cache"
    _stored(root)
    _plant_pickled(root, f"{kind}:{DIGEST}", {"hits": 1})
    store = CacheStore(root)
    for _ in range(2):
        store.get(DIGEST)
        store.record_hit(DIGEST)
        store.entries()
    assert store.put(DIGEST, b"executable", _meta())
    assert store.get(DIGEST)[0] == b"executable"
    store.record_hit(DIGEST)
    assert [r.hits for r in store.entries()] == [1]


# -- a cache path that is not a directory ----------------------------------------------------
def test_cache_path_that_is_a_file_warns_once_and_runs_uncached(tmp_path, caplog):
    path = tmp_path / "a-file"
    path.write_text("not a cache")
    store = CacheStore(path)
    with caplog.at_level(logging.WARNING, logger="pymc_aot.cache"):
        assert store.get(DIGEST) is None
        assert store.metadata(DIGEST) is None
        assert store.put(DIGEST, b"executable", _meta()) is False
        store.record_hit(DIGEST)
        assert store.delete(DIGEST) is False
        assert store.entries() == []
    records = [r for r in caplog.records if r.name == "pymc_aot.cache"]
    assert len(records) == 1, [r.getMessage() for r in records]
    assert "not a directory" in records[0].getMessage() and str(path) in records[0].getMessage()
    assert path.read_text() == "not a cache"


# -- keys -------------------------------------------------------------------------------------
def test_short_user_secret_is_refused_with_a_fix(tmp_path):
    root = tmp_path / "cache"
    _stored(root)
    (root / "secret.key").write_bytes(b"short")
    with pytest.raises(CachePermissionError, match=r"5 bytes.*at least 32.*Delete it"):
        CacheStore(root).get(DIGEST)


@pytest.mark.parametrize("key", [b"", b"x", b"k" * 64])
def test_shared_hmac_key_is_refused_for_the_public_key_route(tmp_path, monkeypatch, key):
    root = tmp_path / "cache"
    _stored(root)
    key_file = tmp_path / "operator.key"
    key_file.write_bytes(key)
    monkeypatch.setenv("PYMC_AOT_CACHE_READONLY", "1")
    monkeypatch.setenv("PYMC_AOT_CACHE_KEY", str(key_file))
    with pytest.raises(CachePermissionError, match=r"PYMC_AOT_CACHE_KEY.*forge.*PYMC_AOT_CACHE_PUBLIC_KEY"):
        CacheStore(root).get(DIGEST)


def test_pickle_never_loaded_by_the_planted_row(tmp_path):
    """The planted pickle would create a file if it were ever loaded."""
    root = tmp_path / "cache"
    _stored(root)
    marker = tmp_path / "unpickled"

    class Touch:
        def __reduce__(self):
            return (Path.touch, (marker,))

    with sqlite3.connect(root / "cache.db") as con:
        con.execute(
            "UPDATE Cache SET mode = 4, filename = NULL, value = ? WHERE key = ?",
            (sqlite3.Binary(pickle.dumps(Touch())), f"meta:{DIGEST}"),
        )
    store = CacheStore(root)
    assert store.get(DIGEST) is None
    store.entries()
    assert not marker.exists()
