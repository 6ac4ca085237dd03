"""The store's holes from issue 26, one test each: every one of these failed before its fix.

A shared cache swapped in a folder others can write; SQLite led outside the cache by a
symlink; another program's database; a FIFO as a value file; a relative XDG_CACHE_HOME; a
size limit that is not a size."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
import threading
from pathlib import Path

import diskcache
import pytest

from pymc_aot.cache import CacheConfigError, CachePermissionError, CacheStore, default_cache_dir, generate_keypair

DIGEST = "b" * 64
needs_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")


def _meta():
    return {"key": {"strategy": "vmap"}, "model_name": "m", "created": 1.0}


def _operator_cache(folder: Path, name: str) -> tuple[Path, Path]:
    """A shared cache ``folder/name`` with one entry and its public key ``folder/name.pem``."""
    private, public = generate_keypair(folder.parent / f"keys-{name}")
    root = folder / name
    assert CacheStore(root, signing_key=private).put(DIGEST, name.encode(), _meta())
    key = folder / f"{name}.pem"
    key.write_bytes(public.read_bytes())
    return root, key


def _worker(root: Path, key: Path) -> CacheStore:
    return CacheStore(root, read_only=True, public_key=key)


# -- a shared cache in a folder others can write ---------------------------------------------
def test_swapped_shared_cache_in_a_world_writable_folder_is_refused(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    root, key = _operator_cache(folder, "cache")
    assert _worker(root, key).get(DIGEST)[0] == b"cache"
    forged_root, forged_key = _operator_cache(folder, "forged")  # another key, another cache
    os.chmod(folder, 0o777)  # anyone may rename entries in it
    os.rename(forged_root, root.with_name("tmp")), os.rename(root, root.with_name("old"))
    os.rename(root.with_name("tmp"), root), os.replace(forged_key, key)
    with pytest.raises(CachePermissionError, match=rf"{folder}.*without the sticky bit \(mode 777\)"):
        _worker(root, key).get(DIGEST)


def test_shared_cache_in_a_world_writable_folder_is_refused_even_with_a_safe_key(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    root, key = _operator_cache(folder, "cache")
    safe_key = tmp_path / "safe.pem"
    safe_key.write_bytes(key.read_bytes())
    os.chmod(folder, 0o777)
    with pytest.raises(CachePermissionError, match=rf"the shared cache {root}: the folder {folder} .*sticky"):
        _worker(root, safe_key).get(DIGEST)


def test_public_key_in_a_group_writable_folder_is_refused(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    root, key = _operator_cache(folder, "cache")
    keys = tmp_path / "keys"
    keys.mkdir()
    moved = keys / "public.pem"
    moved.write_bytes(key.read_bytes())
    os.chmod(keys, 0o770)
    with pytest.raises(CachePermissionError, match=rf"public key {moved}: the folder {keys} .*group- or world-writable"):
        _worker(root, moved)


def test_sticky_world_writable_folder_is_accepted(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    root, key = _operator_cache(folder, "cache")
    os.chmod(folder, 0o1777)  # like /tmp: others cannot rename what they do not own
    assert _worker(root, key).get(DIGEST)[0] == b"cache"


@needs_root
def test_folder_owned_by_another_user_is_refused(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    root, key = _operator_cache(folder, "cache")
    os.chown(folder, 12345, 12345)  # neither root, the reader, nor the cache's owner
    with pytest.raises(CachePermissionError, match=rf"the folder {folder} above it belongs to uid 12345"):
        _worker(root, key).get(DIGEST)


@needs_root
def test_folder_owned_by_the_operator_is_accepted(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    root, key = _operator_cache(folder, "cache")
    for path in (folder, key, root, *root.rglob("*")):
        os.chown(path, 12345, 12345)  # the operator owns the folder, the cache and the key
    assert _worker(root, key).get(DIGEST)[0] == b"cache"


# -- symlinks that would lead SQLite outside -------------------------------------------------
def test_dangling_database_symlink_is_refused_and_nothing_written_outside(tmp_path):
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    outside = tmp_path / "outside.db"
    (root / "cache.db").symlink_to(outside)
    with pytest.raises(CachePermissionError, match=r"cache\.db: it is a symbolic link .*outside\.db"):
        CacheStore(root).put(DIGEST, b"x", _meta())
    assert not outside.exists()


@pytest.mark.parametrize("name", ["cache.db-wal", "cache.db-journal"])
def test_dangling_journal_symlink_is_refused(tmp_path, name):
    root = tmp_path / "cache"
    CacheStore(root).put(DIGEST, b"x", _meta())
    outside = tmp_path / "outside"
    for leftover in ("cache.db-wal", "cache.db-shm"):
        (root / leftover).unlink(missing_ok=True)
    (root / name).symlink_to(outside)
    with pytest.raises(CachePermissionError, match=rf"{name}: it is a symbolic link"):
        CacheStore(root).put("c" * 64, b"y", _meta())
    assert not outside.exists()


def test_symlinked_root_is_refused_and_nothing_written_where_it_points(tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    link = tmp_path / "cache"
    link.symlink_to(target)
    with pytest.raises(CachePermissionError, match=rf"{link}: it is a symbolic link .*elsewhere"):
        CacheStore(link).put(DIGEST, b"x", _meta())
    assert list(target.iterdir()) == []


# -- another program's database ----------------------------------------------------------------
def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("kind", ["sqlite", "diskcache", "columns"])
def test_foreign_database_is_refused_and_left_untouched(tmp_path, kind):
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    db = root / "cache.db"
    if kind == "diskcache":  # another program's diskcache: same tables, rows pymc-aot never writes
        other = diskcache.Cache(str(root))
        other.set("session", {"user": 1})
        other.close()
    else:
        with sqlite3.connect(db) as con:
            table = "users(name TEXT)" if kind == "sqlite" else "Cache(key TEXT, value BLOB)"
            con.execute(f"CREATE TABLE {table}")
        con.close()
    for extra in ("cache.db-wal", "cache.db-shm"):
        (root / extra).unlink(missing_ok=True)
    os.chmod(db, 0o600)
    before = _digest(db)
    store = CacheStore(root)
    with pytest.raises(CachePermissionError, match=rf"{db}: it is not a pymc-aot cache"):
        store.put(DIGEST, b"x", _meta())
    with pytest.raises(CachePermissionError, match="not a pymc-aot cache"):
        store.get(DIGEST)
    assert _digest(db) == before


def test_our_own_database_is_not_foreign(tmp_path):
    root = tmp_path / "cache"
    _operator = CacheStore(root)
    assert _operator.put(DIGEST, b"x", _meta())
    _operator.close()
    with sqlite3.connect(root / "cache.db") as con:  # a cache from before the store's mark
        con.execute("DELETE FROM Settings WHERE key = 'pymc_aot_store'")
    con.close()
    again = CacheStore(root)
    assert again.get(DIGEST)[0] == b"x" and [r.digest for r in again.entries()] == [DIGEST]


# -- a FIFO as a value file ------------------------------------------------------------------
def _in_thread(fn, seconds: float = 60.0):
    result: list = []
    thread = threading.Thread(target=lambda: result.append(fn()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "reading the entry blocked"
    return result[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("read_only", [False, True])
def test_fifo_value_file_is_dropped_not_waited_on(tmp_path, read_only):
    private, public = generate_keypair(tmp_path / "keys")
    root = tmp_path / "cache"
    writer = CacheStore(root, signing_key=private)
    assert writer.put(DIGEST, b"executable", _meta())
    writer.close()
    with sqlite3.connect(root / "cache.db") as con:
        (filename,) = con.execute("SELECT filename FROM Cache WHERE key = ?", (f"exe:{DIGEST}",)).fetchone()
    con.close()
    value = root / filename
    value.unlink()
    os.mkfifo(value, 0o600)
    store = CacheStore(root, read_only=True, public_key=public) if read_only else CacheStore(root, signing_key=private)
    assert _in_thread(lambda: store.get(DIGEST)) is None
    if not read_only:
        assert not value.exists(), "the broken entry is dropped"
        assert store.put(DIGEST, b"executable", _meta()) and store.get(DIGEST)[0] == b"executable"


# -- where the cache lives, how big it may grow ----------------------------------------------
@pytest.mark.parametrize("value", ["relative/cache", "./x", "~"])
def test_relative_xdg_cache_home_is_ignored(monkeypatch, tmp_path, value):
    monkeypatch.delenv("PYMC_AOT_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", value)
    monkeypatch.chdir(tmp_path)
    assert default_cache_dir() == tmp_path / ".cache" / "pymc-aot"
    assert default_cache_dir().is_absolute()


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_macos_and_windows_ask_platformdirs(monkeypatch, tmp_path, platform):
    platformdirs = pytest.importorskip("platformdirs")
    monkeypatch.delenv("PYMC_AOT_CACHE_DIR", raising=False)
    monkeypatch.setattr(sys, "platform", platform)
    asked = []
    monkeypatch.setattr(platformdirs, "user_cache_dir", lambda *a, **k: asked.append((a, k)) or str(tmp_path / "pd"))
    assert default_cache_dir() == tmp_path / "pd"
    assert asked == [(("pymc-aot",), {"appauthor": False})]


def test_size_limit_that_is_not_a_size_names_the_variable(monkeypatch, tmp_path, capsys):
    from pymc_aot.runtime.cli import main

    monkeypatch.setenv("PYMC_AOT_CACHE_SIZE_LIMIT", "lots")
    monkeypatch.setenv("PYMC_AOT_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(CacheConfigError, match=r"PYMC_AOT_CACHE_SIZE_LIMIT: expected a size .*got 'lots'"):
        CacheStore()
    assert main(["inspect"]) == 1
    err = capsys.readouterr().err
    assert "internal error" not in err and "PYMC_AOT_CACHE_SIZE_LIMIT" in err and "'lots'" in err
    assert len(err.strip().splitlines()) == 1
