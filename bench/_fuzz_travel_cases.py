"""What the fuzzer does to a cache that travels: signed bundles and a remote tier (issue 25).

A bundle case is ``("bundle", reader, mutations)``: the pristine bundle (operator-signed
entries A and B of the fuzz model) is edited member by member (``Members``) or as raw bytes,
then read by ``import`` (``pymc-aot import``), ``in-place`` (the zip as a read-only store) or
``unpacked`` (its members extracted to a directory, read as a read-only store).

A remote case is ``("remote", (key, failure), mutations)``: the pristine remote (A and B
pushed by the operator) is edited object by object; the worker holds the operator's public
key or one that signed nothing there, and the backend works, raises, or hangs past the remote's timeout.
"""

from __future__ import annotations

import warnings
import zipfile
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

MANIFEST = "manifest.json"
ENTRY_MEMBERS = ("meta.json", "exe")
EXTRA_NAMES = ("evil.txt", "entries/{C}/exe", "entries/{C}/meta.json", "entries/{A}/exe2", "entries/{A}/exe",
               "entries/{A}/meta.json", MANIFEST, "../outside", "/abs/path")
RESIGN = ("all", "manifest", "entry-A", "entry-A-and-manifest")
FAILURES = ("none", "raises", "hangs")
ERRORS = (OSError, PermissionError, TimeoutError, ConnectionError, RuntimeError, ValueError, KeyError, MemoryError)


def _member() -> st.SearchStrategy[tuple[str, str]]:
    return st.tuples(st.sampled_from(["A", "B"]), st.sampled_from(ENTRY_MEMBERS))


def bundle_strategy() -> st.SearchStrategy[tuple[str, str, list[tuple[Any, ...]]]]:
    position = st.floats(0, 1, exclude_max=True)
    member = st.one_of(st.just(("manifest", MANIFEST)), _member())
    mutation = st.one_of(
        st.tuples(st.just("flip"), member, st.lists(position, min_size=1, max_size=3), st.integers(0, 7)),
        st.tuples(st.just("cut"), member, position),
        st.tuples(st.just("raw-flip"), st.lists(position, min_size=1, max_size=3), st.integers(1, 255)),
        st.tuples(st.just("raw-cut"), position),
        st.tuples(st.just("resign"), st.sampled_from(RESIGN)),
        st.tuples(st.just("swap"), st.sampled_from([*ENTRY_MEMBERS, "both"])),
        st.tuples(st.just("extra"), st.sampled_from(EXTRA_NAMES), st.sampled_from(["A-exe", "A-meta", "junk"])),
        st.tuples(st.just("drop"), member),
        st.tuples(st.just("impostor"), st.booleans()),
        st.tuples(st.just("older"),),
    )
    reader = st.sampled_from(["import", "in-place", "unpacked"])
    return st.tuples(st.just("bundle"), reader, st.lists(mutation, min_size=1, max_size=3))


def remote_strategy() -> st.SearchStrategy[tuple[str, tuple[str, str], list[tuple[Any, ...]]]]:
    position = st.floats(0, 1, exclude_max=True)
    mutation = st.one_of(
        st.tuples(st.just("flip"), _member(), st.lists(position, min_size=1, max_size=3), st.integers(0, 7)),
        st.tuples(st.just("cut"), _member(), position),
        st.tuples(st.just("append"), _member(), st.binary(min_size=1, max_size=8)),
        st.tuples(st.just("swap"), st.sampled_from([*ENTRY_MEMBERS, "both"])),
        st.tuples(st.just("foreign"), st.booleans()),
        st.tuples(st.just("impostor"),),
        st.tuples(st.just("delete"), _member()),
        st.tuples(st.just("none"),),
    )
    setting = st.tuples(st.sampled_from(["operator", "operator", "wrong-key"]), st.sampled_from(FAILURES))
    return st.tuples(st.just("remote"), setting, st.lists(mutation, min_size=1, max_size=3))


def _edit(data: bytes, op: str, args: tuple[Any, ...]) -> bytes:
    if op == "flip" and data:
        positions, bit = args
        out = bytearray(data)
        for p in positions:
            out[int(p * len(out))] ^= 1 << bit
        return bytes(out)
    if op == "xor" and data:
        positions, value = args
        out = bytearray(data)
        for p in positions:
            out[int(p * len(out))] ^= value
        return bytes(out)
    if op == "cut":
        return data[: int(args[0] * len(data))]
    if op == "append":
        return data + args[0]
    return data


class Members:
    """A bundle as an ordered list of (name, bytes) members: duplicates and strays allowed."""

    def __init__(self, path: Path, material: dict[str, Any]) -> None:
        self.material = material
        with zipfile.ZipFile(path) as zf:
            self.items = [(info.filename, zf.read(info)) for info in zf.infolist()]
        self.raw_edits: list[tuple[Any, ...]] = []

    def name(self, which: tuple[str, str]) -> str:
        entry, member = which
        return MANIFEST if entry == "manifest" else f"entries/{self.material['digests'][entry]}/{member}"

    def get(self, name: str) -> bytes | None:
        return next((data for n, data in self.items if n == name), None)

    def set(self, name: str, data: bytes) -> None:
        self.items = [(n, data if n == name else d) for n, d in self.items]

    def take(self, other: str, names: list[str]) -> None:
        """Members ``names`` as the bundle ``other`` (of the material) has them."""
        with zipfile.ZipFile(self.material["bundles"][other]) as zf:
            for name in set(names) & set(zf.namelist()):
                self.set(name, zf.read(name))

    def write(self, path: Path) -> None:
        with warnings.catch_warnings(), zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            warnings.simplefilter("ignore")  # "Duplicate name": a duplicate is one of the cases
            for name, data in self.items:
                zf.writestr(zipfile.ZipInfo(name), data)
        data = path.read_bytes()
        for op, *args in self.raw_edits:
            data = _edit(data, "xor" if op == "raw-flip" else "cut", tuple(args))
        path.write_bytes(data)


def _swap_names(digests: dict[str, str], member: str) -> list[tuple[str, str]]:
    members = ENTRY_MEMBERS if member == "both" else (member,)
    return [(f"entries/{digests['A']}/{m}", f"entries/{digests['B']}/{m}") for m in members]


def apply_bundle(members: Members, mutation: tuple[Any, ...]) -> None:
    """Edit one mutation into the bundle's members."""
    op, *args = mutation
    digests = members.material["digests"]
    a_names = [f"entries/{digests['A']}/{m}" for m in ENTRY_MEMBERS]
    if op in ("flip", "cut"):
        name = members.name(args[0])
        data = members.get(name)
        if data is not None:
            members.set(name, _edit(data, op, tuple(args[1:])))
    elif op in ("raw-flip", "raw-cut"):
        members.raw_edits.append(mutation)
    elif op == "resign":
        scope = args[0]
        names = {"all": [n for n, _ in members.items], "manifest": [MANIFEST], "entry-A": a_names[:1],
                 "entry-A-and-manifest": [*a_names, MANIFEST]}[scope]
        members.take("foreign", [n for n in names if members.get(n) is not None])
    elif op == "swap":
        for x, y in _swap_names(digests, args[0]):
            dx, dy = members.get(x), members.get(y)
            if dx is not None and dy is not None:
                members.set(x, dy)
                members.set(y, dx)
    elif op == "extra":
        name = args[0].format(A=digests["A"], C="c3" * 32)
        data = {"A-exe": members.material["exe"]["A"], "A-meta": members.get(a_names[0]) or b"{}",
                "junk": b"\x00junk"}[args[1]]
        members.items.append((name, data))
    elif op == "drop":
        name = members.name(args[0])
        members.items = [(n, d) for n, d in members.items if n != name]
    elif op == "impostor":  # A's executable (and, signed by the foreign key, its envelope) from the impostor
        members.take("impostor", a_names if args[0] else a_names[1:])
    elif op == "older":  # a validly signed older bundle's manifest (A only) over today's members
        members.take("older", [MANIFEST])


def apply_remote(root: Path, material: dict[str, Any], mutation: tuple[Any, ...]) -> None:
    """Edit one mutation into the remote's objects under ``root`` (``entries/<digest>/...``)."""
    op, *args = mutation
    digests = material["digests"]

    def path(entry: str, member: str) -> Path:
        return root / "entries" / digests[entry] / member

    if op in ("flip", "cut", "append"):
        target = path(*args[0])
        if target.exists():
            target.write_bytes(_edit(target.read_bytes(), op, tuple(args[1:])))
    elif op == "swap":
        for member in ENTRY_MEMBERS if args[0] == "both" else (args[0],):
            x, y = path("A", member), path("B", member)
            if x.exists() and y.exists():
                dx, dy = x.read_bytes(), y.read_bytes()
                x.write_bytes(dy)
                y.write_bytes(dx)
    elif op in ("foreign", "impostor"):  # A re-signed by a foreign key (with the impostor's executable)
        source = material["remotes"]["foreign" if op == "foreign" else "impostor"]
        members = ENTRY_MEMBERS if op == "impostor" or args[0] else ("meta.json",)
        for member in members:
            path("A", member).write_bytes((source / "entries" / digests["A"] / member).read_bytes())
    elif op == "delete":
        path(*args[0]).unlink(missing_ok=True)
