"""What the store fuzzer mutates: hypothesis strategies and how each mutation is applied.

A case is ``(config, mutations)``: ``config`` is ``"private"`` (per-user HMAC secret,
writable) or ``"shared"`` (signed with an Ed25519 key, read by a worker holding only the
public key); each mutation is a tuple ``(op, ...)`` edited into a copy of a pristine cache
the way an attacker with write access to the database and its files would.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import pickle
import re
import sqlite3
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

THIRD_DIGEST = "c3" * 32  # a digest nothing was stored under
KINDS = ("meta", "exe", "use")
ROWS = [(kind, entry) for kind in KINDS for entry in ("A", "B")]
MODE_PICKLE = 4

OUTSIDE_TARGETS = (
    "abs-precious", "rel-precious", "abs-outside-meta", "abs-outside-exe", "sentinel-dir", "database", "secret",
    "wal", "dotdot-pattern", "symlink-pattern", "symlinked-dir", "missing-pattern", "dir-pattern", "empty",
    "none", "root",
)
FOREIGN_SOURCES = ("other-secret", "other-ed25519", "public-key-as-hmac")
JSON_EDITS = (
    "sig-flip", "sig-removed", "sig-int", "sig-upper", "meta-list", "digest-B", "extra-field", "sha-of-B",
    "size-plus-one", "format-2", "envelope-list", "deep-nesting", "duplicate-meta", "not-utf8",
)
USAGE_JUNK = (b'{"hits": "x"}', b"[]", b'{"hits": 1e999}', b"null", b'{"last_used": "yesterday"}', b"\xff\xfe",
              b"[" * 100_000, b'{"hits": -5, "last_used": -1}')


class Touch:
    """Unpickling this creates ``path``: proof that a planted pickle was loaded."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.path,))


def case_strategy() -> st.SearchStrategy[tuple[str, list[tuple[Any, ...]]]]:
    rows = st.sampled_from(ROWS)
    entry = st.sampled_from(["A", "B"])
    position = st.floats(0, 1, exclude_max=True)
    sql_value = st.one_of(st.integers(-(2**63), 2**63 - 1), st.floats(), st.text(max_size=12),
                          st.binary(max_size=12), st.none())
    mutation = st.one_of(
        st.tuples(st.just("flip"), rows, st.lists(position, min_size=1, max_size=4), st.integers(0, 7)),
        st.tuples(st.just("truncate"), rows, position),
        st.tuples(st.just("swap"), st.sampled_from(KINDS)),
        st.tuples(st.just("copy"), rows, rows),
        st.tuples(st.just("plant"), rows, st.sampled_from(["A", "B", "impostor"])),
        st.tuples(st.just("replay"), st.sampled_from([*KINDS, "all"])),
        st.tuples(st.just("foreign"), st.sampled_from(FOREIGN_SOURCES), st.sampled_from(["B", "impostor"]),
                  st.booleans()),
        st.tuples(st.just("outside"), rows, st.sampled_from(OUTSIDE_TARGETS)),
        st.tuples(st.just("pickle"), rows, st.booleans()),
        st.tuples(st.just("mode"), rows, st.integers(-1, 6)),
        st.tuples(st.just("junk"), rows, sql_value),
        st.tuples(st.just("delete"), rows),
        st.tuples(st.just("rekey"), rows, st.sampled_from(["A", "B", "C"]), st.booleans()),
        st.tuples(st.just("clone"), rows, st.sampled_from(["A", "B", "C"])),
        st.tuples(st.just("json"), entry, st.sampled_from(JSON_EDITS)),
        st.tuples(st.just("usage"), entry, st.sampled_from(USAGE_JUNK)),
    )
    return st.tuples(st.sampled_from(["private", "shared"]), st.lists(mutation, min_size=1, max_size=3))


class Rows:
    """One case's Cache table and value files, edited from outside the store."""

    def __init__(self, root: Path, material: dict[str, Any]) -> None:
        self.root = root
        self.material = material  # what the template recorded: old versions, foreign rows, sentinel paths
        self.con = sqlite3.connect(root / "cache.db", isolation_level=None)

    def close(self) -> None:
        self.con.close()

    def key(self, row: tuple[str, str]) -> str:
        return f"{row[0]}:{self.material['digests'][row[1]]}"

    def fetch(self, row: tuple[str, str]) -> tuple[Any, ...] | None:
        return self.con.execute("SELECT mode, filename, value FROM Cache WHERE key = ? AND raw = 1",
                                (self.key(row),)).fetchone()

    def _file(self, row: tuple[str, str]) -> Path | None:
        """The row's own value file (content edits never reach the database, keys or the sentinel)."""
        found = self.fetch(row)
        value_file = re.compile(r"[0-9a-f]{2}/[0-9a-f]{2}/\w+\.val")
        if found is None or not isinstance(found[1], str) or not value_file.fullmatch(found[1]):
            return None
        path = self.root / found[1]
        inside = os.path.realpath(path).startswith(os.path.realpath(self.root) + os.sep)
        return path if inside and path.is_file() and not path.is_symlink() else None

    def read(self, row: tuple[str, str]) -> bytes | None:
        path = self._file(row)
        if path is not None:
            return path.read_bytes()
        found = self.fetch(row)
        value = None if found is None else found[2]
        return value.encode() if isinstance(value, str) else value if isinstance(value, bytes) else None

    def write(self, row: tuple[str, str], data: bytes) -> None:
        path = self._file(row)
        if path is not None:
            path.write_bytes(data)
        else:
            self.update(row, value=sqlite3.Binary(data))

    def update(self, row: tuple[str, str], **columns: Any) -> None:
        sets = ", ".join(f"{name} = ?" for name in columns)
        self.con.execute(f"UPDATE Cache SET {sets} WHERE key = ? AND raw = 1", (*columns.values(), self.key(row)))


def _flip(rows: Rows, row: tuple[str, str], positions: list[float], bit: int) -> None:
    data = rows.read(row)
    if data:
        flipped = bytearray(data)
        for p in positions:
            flipped[int(p * len(flipped))] ^= 1 << bit
        rows.write(row, bytes(flipped))


def _truncate(rows: Rows, row: tuple[str, str], fraction: float) -> None:
    data = rows.read(row)
    if data is not None:
        rows.write(row, data[: int(fraction * len(data))])


def _swap(rows: Rows, kind: str) -> None:
    a, b = rows.fetch((kind, "A")), rows.fetch((kind, "B"))
    if a is not None and b is not None:
        rows.update((kind, "A"), mode=b[0], filename=b[1], value=b[2])
        rows.update((kind, "B"), mode=a[0], filename=a[1], value=a[2])


def _replay(rows: Rows, kind: str) -> None:
    """Put back the first version of entry A's rows (its content before it was re-stored)."""
    for k in KINDS if kind == "all" else (kind,):
        rows.write((k, "A"), rows.material["history"][k])


def _foreign(rows: Rows, source: str, claimed: str, with_executable: bool) -> None:
    """Entry A re-signed by someone else, claiming another executable (B's, or an impostor
    model's with A's very signature), planted with it or not."""
    rows.write(("meta", "A"), rows.material["foreign"][source][claimed])
    if with_executable:
        rows.write(("exe", "A"), rows.material["exe"][claimed])


def _outside_target(rows: Rows, target: str) -> str | None:
    sentinel: Path = rows.material["sentinel"]
    hexname = hashlib.sha256(target.encode()).hexdigest()[:28]
    if target == "symlink-pattern":
        link = rows.root / "5e" / "5e" / f"{hexname}.val"
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.is_symlink():
            link.symlink_to(rows.material["outside_meta"])
        return os.path.join("5e", "5e", f"{hexname}.val")
    if target == "symlinked-dir":  # <free name> -> a directory outside holding 6f/000...0.val
        name = next(f"{i:02x}" for i in range(256) if not os.path.lexists(rows.root / f"{i:02x}"))
        (rows.root / name).symlink_to(rows.material["outside_dir"])
        return os.path.join(name, "6f", "0" * 28 + ".val")
    if target == "dir-pattern":
        (rows.root / "7b" / "7b" / f"{hexname}.val").mkdir(parents=True, exist_ok=True)
        return os.path.join("7b", "7b", f"{hexname}.val")
    return {
        "abs-precious": str(sentinel / "precious.txt"),
        "rel-precious": os.path.join("..", "..", "sentinel", "precious.txt"),
        "abs-outside-meta": str(rows.material["outside_meta"]),
        "abs-outside-exe": str(sentinel / "outside-exe.val"),
        "sentinel-dir": str(sentinel),
        "database": "cache.db",
        "secret": "secret.key",
        "wal": "cache.db-wal",
        "dotdot-pattern": os.path.join("ab", "..", "..", "..", "sentinel", "precious.txt"),
        "missing-pattern": os.path.join("7a", "7a", f"{hexname}.val"),
        "empty": "",
        "none": None,
        "root": str(rows.root),
    }[target]


def _pickle(rows: Rows, row: tuple[str, str], inline: bool) -> None:
    payload = pickle.dumps(Touch(rows.material["sentinel"] / "unpickled"))
    if inline:
        rows.update(row, mode=MODE_PICKLE, filename=None, value=sqlite3.Binary(payload))
    else:
        rows.write(row, payload)
        rows.update(row, mode=MODE_PICKLE)


def _rekey(rows: Rows, row: tuple[str, str], target: str, raw: bool) -> None:
    rows.con.execute("UPDATE OR REPLACE Cache SET key = ?, raw = ? WHERE key = ? AND raw = 1",
                     (rows.key((row[0], target)), int(raw), rows.key(row)))


def _clone(rows: Rows, row: tuple[str, str], target: str) -> None:
    columns = "store_time, expire_time, access_time, access_count, tag, size, mode, filename, value"
    rows.con.execute(
        f"INSERT OR REPLACE INTO Cache (key, raw, {columns}) "
        f"SELECT ?, 1, {columns} FROM Cache WHERE key = ? AND raw = 1",
        (rows.key((row[0], target)), rows.key(row)),
    )


def _json_edit(rows: Rows, entry: str, edit: str) -> None:
    data = rows.read(("meta", entry))
    try:
        envelope = json.loads(data or b"")
        body = envelope["meta"]
    except (ValueError, TypeError, KeyError, RecursionError):
        return
    if not isinstance(body, dict):
        return
    sig = str(envelope.get("sig", ""))
    raw: bytes | None = None
    if edit == "sig-flip" and sig:
        envelope["sig"] = sig[:-1] + ("0" if sig[-1] != "0" else "1")
    elif edit == "sig-removed":
        envelope.pop("sig", None)
    elif edit == "sig-int":
        envelope["sig"] = 12345
    elif edit == "sig-upper":
        envelope["sig"] = sig.upper()
    elif edit == "meta-list":
        envelope["meta"] = list(body.items())
    elif edit in ("digest-B", "extra-field", "sha-of-B", "size-plus-one", "format-2"):
        body.update({
            "digest-B": {"digest": rows.material["digests"]["B"]},
            "extra-field": {"output_names": ["evil"]},
            "sha-of-B": {"executable_sha256": hashlib.sha256(rows.material["exe"]["B"]).hexdigest()},
            "size-plus-one": {"executable_size": int(body.get("executable_size", 0)) + 1},
            "format-2": {"format": 2},
        }[edit])
    elif edit == "envelope-list":
        raw = json.dumps([envelope]).encode()
    elif edit == "deep-nesting":
        raw = b"[" * 200_000 + b"]" * 200_000
    elif edit == "duplicate-meta":  # JSON keeps the last of two keys: a forged body after the signed one
        forged = dict(body, output_names=["evil"])
        raw = (json.dumps(envelope)[:-1] + ', "meta": ' + json.dumps(forged) + "}").encode()
    elif edit == "not-utf8":
        raw = (data or b"") + b"\xff\xfe"
    rows.write(("meta", entry), raw if raw is not None else json.dumps(envelope, sort_keys=True).encode())


def _copy(rows: Rows, source: tuple[str, str], target: tuple[str, str]) -> None:
    data = rows.read(source)
    if data is not None:
        rows.write(target, data)


def _set(column: str, value: Any = None) -> Any:
    return lambda rows, row, *given: rows.update(row, **{column: given[0] if given else value})


_OPS = {
    "flip": _flip,
    "truncate": _truncate,
    "swap": _swap,
    "copy": _copy,
    "plant": lambda rows, row, which: rows.write(row, rows.material["exe"][which]),  # an executable, unsigned
    "replay": _replay,
    "foreign": _foreign,
    "outside": lambda rows, row, target: rows.update(row, filename=_outside_target(rows, target)),
    "pickle": _pickle,
    "mode": _set("mode"),
    "junk": lambda rows, row, value: rows.update(row, mode=1, filename=None, value=value),
    "delete": lambda rows, row: rows.con.execute("DELETE FROM Cache WHERE key = ? AND raw = 1", (rows.key(row),)),
    "rekey": _rekey,
    "clone": _clone,
    "json": _json_edit,
    "usage": lambda rows, entry, data: rows.write(("use", entry), data),
}


def apply(rows: Rows, mutation: tuple[Any, ...]) -> None:
    """Edit one mutation into the case's database and files."""
    op, *args = mutation
    _OPS[op](rows, *args)


def hmac_envelope(body: dict[str, Any], key: bytes) -> bytes:
    payload = json.dumps(body, sort_keys=True).encode()
    signature = hmac.new(key, payload, hashlib.sha256).hexdigest()
    return json.dumps({"meta": body, "sig": signature}, sort_keys=True).encode()
