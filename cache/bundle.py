"""Signed bundles: chosen entries of a store as one file that travels (issue 25).

A bundle is a zip file: ``manifest.json`` and, per entry, ``entries/<digest>/meta.json`` (the
entry's envelope, signed with the operator's Ed25519 key exactly as a shared cache signs it,
``verify.seal``) and ``entries/<digest>/exe`` (the executable bytes the envelope records by
size and SHA-256). The manifest lists every entry with the SHA-256 of its two members and is
signed too, so an entry can be neither changed, added nor removed.

``read_bundle`` checks everything before it returns anything: the format, the signer, the
manifest's signature, the members (no more, no fewer), every entry's envelope and executable.
One failure refuses the whole bundle with a ``BundleError`` naming the entry and why.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import IntegrityError
from .signing import Ed25519Signer, Ed25519Verifier, KeySource, load_private_key, load_public_key
from .verify import FORMAT_VERSION, check_envelope, check_executable, seal

BUNDLE_KIND = "pymc-aot-bundle"
BUNDLE_FORMAT = 1
MANIFEST = "manifest.json"
UNREADABLE = (KeyError, zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, OSError)
"""What reading a member of a damaged zip file raises (a missing member, a bad CRC or stream)."""


class BundleError(IntegrityError):
    """A bundle that is refused as a whole: one line naming the bundle (and entry) and why."""


@dataclass(frozen=True)
class BundleEntry:
    """One verified entry of a bundle."""

    digest: str
    executable: bytes
    metadata: dict[str, Any]


def _members(digest: str) -> tuple[str, str]:
    return f"entries/{digest}/meta.json", f"entries/{digest}/exe"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _canonical(body: dict[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True).encode()


def write_bundle(
    path: str | os.PathLike[str], entries: Iterable[tuple[str, bytes, dict[str, Any]]], signing_key: KeySource
) -> dict[str, Any]:
    """Write ``entries`` (digest, executable, metadata) to the bundle ``path``, each signed with
    the operator's Ed25519 ``signing_key``; returns the manifest. Written whole, then renamed."""
    signer = Ed25519Signer(load_private_key(signing_key, "signing key"))
    path = Path(path)
    listed = []
    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.")
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for digest, executable, metadata in entries:
                envelope = seal(digest, executable, metadata, signer).encode()
                meta_name, exe_name = _members(digest)
                zf.writestr(meta_name, envelope)
                zf.writestr(exe_name, executable)
                listed.append({
                    "digest": digest, "model_name": metadata.get("model_name", ""),
                    "meta_sha256": _sha(envelope), "exe_sha256": _sha(executable), "exe_size": len(executable),
                })  # fmt: skip
            body = {
                "kind": BUNDLE_KIND, "format": BUNDLE_FORMAT, "entry_format": FORMAT_VERSION,
                "key_id": signer.key_id, "created": time.time(), "entries": listed,
            }  # fmt: skip
            zf.writestr(MANIFEST, json.dumps({"manifest": body, "sig": signer.sign(_canonical(body))}, sort_keys=True))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return body


def check_manifest(doc: Any, verifier: Ed25519Verifier, where: str) -> dict[str, Any]:
    """The manifest body of the parsed ``manifest.json`` ``doc``, if its format is ours and
    ``verifier`` verifies its signature; else BundleError."""
    try:
        body, sig = doc["manifest"], doc["sig"]
        kind, fmt = body["kind"], body["format"]
    except (KeyError, TypeError) as exc:
        raise BundleError(f"{where}: no readable manifest ({type(exc).__name__}: {exc})") from None
    if kind != BUNDLE_KIND or fmt != BUNDLE_FORMAT or body.get("entry_format") != FORMAT_VERSION:
        raise BundleError(
            f"{where}: foreign version ({kind!r} format {fmt!r}, entries format {body.get('entry_format')!r}); "
            f"this pymc-aot reads {BUNDLE_KIND!r} format {BUNDLE_FORMAT}, entries format {FORMAT_VERSION}"
        )
    if body.get("key_id") != verifier.key_id:
        raise BundleError(
            f"{where}: signed with key {body.get('key_id')!r}, not with the public key {verifier.key_id} given"
        )
    if not verifier.verify(_canonical(body), sig):
        raise BundleError(f"{where}: the manifest's signature does not verify with the public key {verifier.key_id}")
    if not isinstance(body.get("entries"), list):
        raise BundleError(f"{where}: the manifest lists no entries")
    return body


def _manifest(zf: zipfile.ZipFile, verifier: Ed25519Verifier, where: str) -> dict[str, Any]:
    try:
        doc = json.loads(zf.read(MANIFEST))
    except (*UNREADABLE, ValueError) as exc:
        raise BundleError(f"{where}: no readable manifest ({type(exc).__name__}: {exc})") from None
    return check_manifest(doc, verifier, where)


def _entry(zf: zipfile.ZipFile, listed: Any, verifier: Ed25519Verifier, where: str) -> BundleEntry:
    digest = listed.get("digest") if isinstance(listed, dict) else None
    if not isinstance(digest, str) or not digest:
        raise BundleError(f"{where}: a manifest entry without a digest")
    meta_name, exe_name = _members(digest)
    try:
        envelope, executable = zf.read(meta_name), zf.read(exe_name)
    except UNREADABLE as exc:
        raise BundleError(f"{where}: entry {digest[:12]} is missing or truncated ({exc})") from None
    if _sha(envelope) != listed.get("meta_sha256") or _sha(executable) != listed.get("exe_sha256"):
        raise BundleError(f"{where}: entry {digest[:12]} was changed after it was signed (digest mismatch)")
    try:
        metadata = check_envelope(envelope, digest, verifier)
        check_executable(executable, metadata)
    except (IntegrityError, KeyError, TypeError, ValueError) as exc:
        raise BundleError(f"{where}: entry {digest[:12]} failed verification ({exc})") from None
    return BundleEntry(digest, executable, metadata)


def read_bundle(path: str | os.PathLike[str], public_key: KeySource) -> tuple[dict[str, Any], list[BundleEntry]]:
    """The manifest and every entry of the bundle ``path``, all verified with ``public_key``;
    BundleError (nothing returned) if anything fails."""
    verifier = Ed25519Verifier(load_public_key(public_key, "public key"))
    where = f"bundle {path}"
    try:
        with zipfile.ZipFile(path) as zf:
            body = _manifest(zf, verifier, where)
            entries = [_entry(zf, listed, verifier, where) for listed in body["entries"]]
            expected = {MANIFEST, *(name for e in entries for name in _members(e.digest))}
            extra = sorted(set(zf.namelist()) - expected)
    except FileNotFoundError:
        raise BundleError(f"{where}: no such file") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, ValueError) as exc:
        raise BundleError(f"{where}: not a bundle, or truncated ({exc})") from None
    if extra:
        raise BundleError(f"{where}: members the signed manifest does not list ({', '.join(extra[:3])})")
    if len({e.digest for e in entries}) != len(entries):
        raise BundleError(f"{where}: the manifest lists an entry twice")
    return body, entries
