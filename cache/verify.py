"""The checks every read of an entry passes before anything in it is trusted."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from .errors import BAD_VALUE, IntegrityError

FORMAT_VERSION = 1


def check_envelope(raw: Any, digest: str, signer: Any) -> dict[str, Any]:
    """The metadata of the envelope ``raw`` (JSON text), if ``signer`` verifies it for ``digest``.

    IntegrityError for a bad signature, a foreign format or digest, or no executable size and
    digest; ValueError, KeyError or TypeError for JSON that is not an envelope."""
    envelope = json.loads(raw)
    body = envelope["meta"]
    if not isinstance(body, dict):
        raise IntegrityError("metadata is not an object")
    payload = json.dumps(body, sort_keys=True).encode()
    if not signer.verify(payload, envelope["sig"]):
        raise IntegrityError(f"signature does not verify with {signer.description}")
    if body.get("format") != FORMAT_VERSION or body.get("digest") != digest:
        raise IntegrityError("foreign format or digest")
    if not isinstance(body.get("executable_size"), int) or not isinstance(body.get("executable_sha256"), str):
        raise IntegrityError("no executable size or digest")
    return body


def check_executable(executable: Any, metadata: dict[str, Any]) -> bytes:
    """``executable`` if it is the bytes ``metadata`` (already verified) records; else IntegrityError."""
    if not isinstance(executable, bytes):
        raise IntegrityError("executable missing")
    if (
        len(executable) != metadata["executable_size"]
        or hashlib.sha256(executable).hexdigest() != metadata["executable_sha256"]
    ):
        raise IntegrityError("executable digest mismatch")
    return executable


def read_entry(get: Callable[[str], Any], digest: str, signer: Any, reads: int = 4) -> tuple[bytes, dict] | None:
    """The executable and verified metadata stored for ``digest``, read with ``get`` (a key's value or None); None
    if absent. IntegrityError naming the part that fails. Two processes that missed one key may both store it: one
    that replaces the entry between the metadata's read and the executable's is a reason to read again, not a
    broken entry (the metadata read after the executable then differs)."""
    for _ in range(reads):
        try:
            raw = get(f"meta:{digest}")
            if raw is None:
                return None
            meta = check_envelope(raw, digest, signer)
        except BAD_VALUE as exc:
            raise IntegrityError(f"metadata: {exc}") from exc
        try:
            return check_executable(get(f"exe:{digest}"), meta), meta
        except BAD_VALUE as exc:
            if get(f"meta:{digest}") == raw:
                raise IntegrityError(f"executable: {exc}") from exc
    raise IntegrityError(f"executable: replaced during each of {reads} reads")


def verify_rows(rows: Mapping[str, Any], digest: str, signer: Any) -> tuple[dict[str, Any], bytes | None]:
    """The verified metadata in ``rows`` (stored values by key), and the executable if it was read."""
    meta = check_envelope(rows[f"meta:{digest}"], digest, signer)
    exe_key = f"exe:{digest}"
    return meta, check_executable(rows[exe_key], meta) if exe_key in rows else None


def seal(digest: str, executable: bytes, metadata: dict[str, Any], signer: Any) -> str:
    """The signed JSON envelope that ``check_envelope`` accepts for this entry."""
    body = dict(metadata)
    body.update(
        format=FORMAT_VERSION,
        digest=digest,
        executable_size=len(executable),
        executable_sha256=hashlib.sha256(executable).hexdigest(),
    )
    payload = json.dumps(body, sort_keys=True).encode()
    return json.dumps({"meta": body, "sig": signer.sign(payload)}, sort_keys=True)
