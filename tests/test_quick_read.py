"""A hit read through a read-only SQLite connection: no diskcache, the same checks, writes later."""

from __future__ import annotations

import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pymc_aot.cache import CacheStore, readonly
from pymc_aot.cache.signing import SECRET_FILE

DIGEST = "a" * 64
EXE = b"\x00executable bytes"


def _stored(root: Path) -> None:
    store = CacheStore(root)
    assert store.put(DIGEST, EXE, {"key": {"strategy": "vmap"}, "model_name": "m", "created": 1.0})
    store.close()


def _no_diskcache(monkeypatch) -> None:
    def refuse(self):
        raise AssertionError("a hit opened diskcache")

    monkeypatch.setattr(CacheStore, "_open", refuse)


def _value_file(root: Path, key: str) -> Path:
    with sqlite3.connect(root / "cache.db") as con:
        (filename,) = con.execute("SELECT filename FROM Cache WHERE key = ?", (key,)).fetchone()
    return root / filename


def _access_time(root: Path, key: str) -> float:
    with sqlite3.connect(root / "cache.db") as con:
        return con.execute("SELECT access_time FROM Cache WHERE key = ?", (key,)).fetchone()[0]


def test_a_hit_opens_no_diskcache(tmp_path, monkeypatch):
    _stored(tmp_path)
    _no_diskcache(monkeypatch)
    store = CacheStore(tmp_path)
    assert store.metadata(DIGEST)["model_name"] == "m"
    exe, meta = store.get(DIGEST)
    assert exe == EXE and meta["executable_size"] == len(EXE) and store._db is None


def _tamper_meta(root: Path) -> None:
    path = _value_file(root, f"meta:{DIGEST}")
    envelope = json.loads(path.read_text())
    envelope["meta"]["model_name"] = "other"
    path.write_text(json.dumps(envelope))


def _tamper_exe(root: Path) -> None:
    _value_file(root, f"exe:{DIGEST}").write_bytes(b"\x00another executable")


def _foreign_secret(root: Path) -> None:
    (root / SECRET_FILE).write_bytes(b"s" * 64)


def _exe_row_gone(root: Path) -> None:
    with sqlite3.connect(root / "cache.db") as con:
        con.execute("DELETE FROM Cache WHERE key = ?", (f"exe:{DIGEST}",))


@pytest.mark.parametrize("spoil", [_tamper_meta, _tamper_exe, _foreign_secret, _exe_row_gone])
def test_what_the_quick_read_refuses_is_decided_and_dropped_by_diskcache(tmp_path, spoil):
    _stored(tmp_path)
    spoil(tmp_path)
    store = CacheStore(tmp_path)
    assert store.get(DIGEST) is None
    assert store._db is not None, "the careful path read it again"
    assert f"meta:{DIGEST}" not in list(store.db.iterkeys()), "and dropped it"


def test_a_miss_is_decided_by_diskcache(tmp_path):
    _stored(tmp_path)
    store = CacheStore(tmp_path)
    assert store.get("b" * 64) is None and store._db is not None


def test_no_database_yet_creates_nothing_on_a_read(tmp_path):
    root = tmp_path / "fresh"
    root.mkdir(mode=0o700)
    store = CacheStore(root)
    assert store._quick_read(DIGEST, executable=True) is None
    assert list(root.iterdir()) == []


def test_the_hit_record_is_written_later_and_seen_by_the_next_use(tmp_path):
    _stored(tmp_path)
    stamped = _access_time(tmp_path, f"exe:{DIGEST}")
    store = CacheStore(tmp_path)
    assert store.get(DIGEST) is not None
    store.record_hit_later(DIGEST)
    (record,) = store.entries()  # waits for the deferred write
    assert record.hits == 1
    assert _access_time(tmp_path, f"exe:{DIGEST}") > stamped, "the LRU eviction sees the use"
    assert _access_time(tmp_path, f"meta:{DIGEST}") > stamped


@pytest.mark.slow
def test_a_process_that_exits_right_after_a_hit_records_it(tmp_path):
    _stored(tmp_path)
    code = (
        "import sys\nfrom pymc_aot.cache import CacheStore\n"
        f"s = CacheStore(sys.argv[1]); assert s.get({DIGEST!r}) is not None\n"
        "assert 'diskcache' not in sys.modules, 'a hit imported diskcache'\n"
        f"s.record_hit_later({DIGEST!r})"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True)
    (record,) = CacheStore(tmp_path).entries()
    assert record.hits == 1


def test_storage_modes_are_diskcaches():
    import diskcache

    assert (readonly.MODE_RAW, readonly.MODE_BINARY, readonly.MODE_TEXT) == (
        diskcache.core.MODE_RAW,
        diskcache.core.MODE_BINARY,
        diskcache.core.MODE_TEXT,
    )


def test_another_store_of_the_directory_sees_a_queued_hit(tmp_path):
    _stored(tmp_path)
    store = CacheStore(tmp_path)
    assert store.get(DIGEST) is not None
    store.record_hit_later(DIGEST)
    (record,) = CacheStore(tmp_path).entries()  # a second instance waits for the first one's queue
    assert record.hits == 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_reads_and_waits_without_the_parents_connection_or_thread(tmp_path):
    _stored(tmp_path)
    store = CacheStore(tmp_path)
    assert store.get(DIGEST) is not None
    store.record_hit_later(DIGEST)  # queued in the parent, not yet run
    pid = os.fork()
    if pid == 0:  # the child: a hit through a fresh connection, and no wait on the parent's thread
        signal.alarm(20)
        ok = store.get(DIGEST) is not None and [r.hits for r in store.entries()] in ([0], [1])
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    (record,) = store.entries()
    assert record.hits == 1, "the parent's queued record ran once, in the parent"


def test_a_write_never_follows_a_planted_symlinked_directory_outside(tmp_path, caplog, monkeypatch):
    root, outside = tmp_path / "cache", tmp_path / "outside"
    _stored(root)
    outside.mkdir()
    planted = []
    for i in range(256):  # every free first-level name leads outside: any write would land there
        name = root / f"{i:02x}"
        if not name.exists():
            name.symlink_to(outside, target_is_directory=True)
            planted.append(i)
    # diskcache draws a value file's directories from os.urandom(16): without this, a draw that met
    # one of the stored entry's own directories (a few in 256, 16 tries) wrote inside, and warned not
    real_urandom = os.urandom
    monkeypatch.setattr(os, "urandom", lambda n: bytes([planted[0]] * n) if n == 16 else real_urandom(n))
    store = CacheStore(root)
    with caplog.at_level(logging.WARNING, logger="pymc_aot.cache"):
        store.record_hit(DIGEST)  # writes a usage record; warns, and runs uncached, if it cannot
    assert list(outside.iterdir()) == []
    assert "not writable" in caplog.text and "lead outside" in caplog.text
