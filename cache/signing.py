"""How entries are signed: a per-user HMAC secret, or an operator's Ed25519 key pair.

A private cache signs with a random secret kept (mode 0600) in its root. A shared cache is
signed with the operator's Ed25519 private key and verified by workers holding only the
public key, so a worker can read the cache but never forge an entry. ``cryptography`` is
only imported for Ed25519.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path
from typing import Any, ClassVar, Protocol

from .ancestors import check_ancestors
from .errors import CachePermissionError
from .paths import ENV_PUBLIC_KEY, ENV_READ_ONLY, ENV_SHARED_HMAC_KEY, ENV_SIGNING_KEY
from .permissions import check_key_file

SECRET_FILE = "secret.key"
SECRET_BYTES = 32
PRIVATE_KEY_FILE = "cache-signing-key.pem"
PUBLIC_KEY_FILE = "cache-public-key.pem"
KEYGEN_COMMAND = "python -m pymc_aot.cache keygen DIR"
# DER SubjectPublicKeyInfo of an Ed25519 key: this prefix, then the 32 key bytes (RFC 8410)
_ED25519_SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")
_PEM_BODY = re.compile(rb"-----BEGIN PUBLIC KEY-----(.*?)-----END PUBLIC KEY-----", re.S)

KeySource = str | bytes | os.PathLike[str] | Any  # a file, PEM text, or a cryptography key object


class EntrySigner(Protocol):
    """Signs and verifies an entry's metadata payload."""

    description: str

    def sign(self, payload: bytes) -> str: ...

    def verify(self, payload: bytes, signature: object) -> bool: ...


class HmacSigner:
    """HMAC-SHA256 with this user's secret: for a private cache."""

    description: ClassVar[str] = "this user's cache secret (HMAC-SHA256)"

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def sign(self, payload: bytes) -> str:
        return hmac.new(self._secret, payload, hashlib.sha256).hexdigest()

    def verify(self, payload: bytes, signature: object) -> bool:
        return isinstance(signature, str) and hmac.compare_digest(signature, self.sign(payload))


class Ed25519Verifier:
    """Checks Ed25519 signatures with the operator's public key; cannot sign."""

    def __init__(self, public_key: Any) -> None:
        self._public = public_key
        self.key_id = key_id(public_key)
        self.description = f"the operator's public key {self.key_id} (Ed25519)"

    def sign(self, payload: bytes) -> str:
        raise CachePermissionError("this cache is opened with a public key only; it cannot sign entries")

    def verify(self, payload: bytes, signature: object) -> bool:
        from cryptography.exceptions import InvalidSignature

        if not isinstance(signature, str):
            return False
        try:
            self._public.verify(bytes.fromhex(signature), payload)
        except (ValueError, InvalidSignature):
            return False
        return True


class Ed25519Signer(Ed25519Verifier):
    """Signs with the operator's Ed25519 private key (and verifies with its public half)."""

    def __init__(self, private_key: Any) -> None:
        super().__init__(private_key.public_key())
        self._private = private_key
        self.description = f"the operator's signing key {self.key_id} (Ed25519)"

    def sign(self, payload: bytes) -> str:
        return self._private.sign(payload).hex()


def key_id(public_key: Any) -> str:
    """A short fingerprint of an Ed25519 public key (16 hex digits of its SHA-256)."""
    from cryptography.hazmat.primitives import serialization

    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def load_user_secret(directory: Path) -> bytes:
    """The per-user HMAC secret in ``directory``, created (mode 0600, 32 random bytes) if absent."""
    path = directory / SECRET_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_bytes(SECRET_BYTES))
    check_key_file(path, private=True)
    data = path.read_bytes()
    if len(data) < SECRET_BYTES:
        raise CachePermissionError(
            f"pymc-aot refuses the cache key {path}: it is {len(data)} bytes, a key needs at least {SECRET_BYTES}. "
            f"Delete it (`rm {path}`) and pymc-aot makes a fresh one; entries signed with the old key are rebuilt."
        )
    return data


def _key_bytes(source: KeySource, name: str, *, private: bool) -> tuple[bytes, str]:
    """PEM bytes from PEM text or a key file (checked), and how to name it in errors."""
    if isinstance(source, bytes):
        return source, name
    if isinstance(source, str) and source.lstrip().startswith("-----BEGIN"):
        return source.encode(), name
    if isinstance(source, (str, os.PathLike)):
        path = Path(source).expanduser()
        try:
            check_key_file(path, private=private)
            check_ancestors(path, f"the {'private' if private else 'public'} key")
            return path.read_bytes(), f"{name} ({path})"
        except CachePermissionError as exc:
            raise CachePermissionError(f"{name}: {exc}") from None
        except OSError as exc:
            raise CachePermissionError(f"{name}: cannot read the key file {path} ({exc.strerror or exc})") from exc
    kind = "private" if private else "public"
    raise CachePermissionError(
        f"{name}: expected an Ed25519 {kind} key (PEM text or a file), got {type(source).__name__}"
    )


def load_private_key(source: KeySource, name: str = "signing_key") -> Any:
    """An Ed25519 private key from PEM text, a PEM file (yours, mode 600) or a key object."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    if isinstance(source, ed25519.Ed25519PrivateKey):
        return source
    data, origin = _key_bytes(source, name, private=True)
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise CachePermissionError(
            f"{origin}: expected an unencrypted PEM Ed25519 private key ({exc}); "
            f"make a key pair with `{KEYGEN_COMMAND}`"
        ) from exc
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        raise CachePermissionError(f"{origin}: expected an Ed25519 private key, got a {type(key).__name__}")
    return key


def load_public_key(source: KeySource, name: str = "public_key") -> Any:
    """An Ed25519 public key from PEM text, a PEM file (not writable by others) or a key object."""
    from cryptography.hazmat.primitives.asymmetric import ed25519

    if isinstance(source, ed25519.Ed25519PublicKey):
        return source
    data, origin = _key_bytes(source, name, private=False)
    match = _PEM_BODY.search(data)
    try:
        der = base64.b64decode(match.group(1), validate=False) if match else b""
    except ValueError:
        der = b""
    if len(der) != len(_ED25519_SPKI_PREFIX) + 32 or not der.startswith(_ED25519_SPKI_PREFIX):
        raise CachePermissionError(
            f"{origin}: expected a PEM Ed25519 public key (-----BEGIN PUBLIC KEY----- ...), as `{KEYGEN_COMMAND}` "
            "writes; got something else"
        )
    return ed25519.Ed25519PublicKey.from_public_bytes(der[len(_ED25519_SPKI_PREFIX) :])


def generate_keypair(directory: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write a new Ed25519 pair into ``directory``: the private key (mode 600) and the public key.

    Returns ``(private_key_file, public_key_file)``; never overwrites an existing key."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    directory = Path(directory).expanduser()
    private_file, public_file = directory / PRIVATE_KEY_FILE, directory / PUBLIC_KEY_FILE
    for path in (private_file, public_file):
        if path.exists():
            raise FileExistsError(f"{path} already exists; pymc-aot never overwrites a key (move it away first)")
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = ed25519.Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    for path, data, mode in ((private_file, private_pem, 0o600), (public_file, public_pem, 0o644)):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    return private_file, public_file


SHARED_HMAC_KEY_REFUSED = (
    f"pymc-aot no longer accepts {ENV_SHARED_HMAC_KEY}: a shared HMAC key lets anyone who can read it forge "
    f"cache entries. Sign a shared cache with an Ed25519 key pair instead: the operator runs `{KEYGEN_COMMAND}` and "
    f"fills the cache with {ENV_SIGNING_KEY}=DIR/{PRIVATE_KEY_FILE}; workers set {ENV_READ_ONLY}=1 and "
    f"{ENV_PUBLIC_KEY}=DIR/{PUBLIC_KEY_FILE}. Unset {ENV_SHARED_HMAC_KEY}."
)


def resolve_signer(*, read_only: bool, signing_key: KeySource | None, public_key: KeySource | None) -> Any:
    """The Ed25519 signer or verifier the arguments (else the environment) ask for.

    None means a private cache signed with the per-user secret (loaded when the store opens)."""
    if os.environ.get(ENV_SHARED_HMAC_KEY):
        raise CachePermissionError(SHARED_HMAC_KEY_REFUSED)
    signing_name, public_name = "signing_key", "public_key"
    if signing_key is None and os.environ.get(ENV_SIGNING_KEY):
        signing_key, signing_name = os.environ[ENV_SIGNING_KEY], ENV_SIGNING_KEY
    if public_key is None and os.environ.get(ENV_PUBLIC_KEY):
        public_key, public_name = os.environ[ENV_PUBLIC_KEY], ENV_PUBLIC_KEY
    verifier = Ed25519Verifier(load_public_key(public_key, public_name)) if public_key is not None else None
    if signing_key is not None:
        signer = Ed25519Signer(load_private_key(signing_key, signing_name))
        if verifier is not None and verifier.key_id != signer.key_id:
            raise CachePermissionError(
                f"{signing_name} (key {signer.key_id}) and {public_name} (key {verifier.key_id}) are not one pair"
            )
        return signer
    if verifier is not None and not read_only:
        raise CachePermissionError(
            f"{public_name} verifies a shared cache that this process only reads: also set {ENV_READ_ONLY}=1 "
            f"(read_only=True). The operator who fills it sets {ENV_SIGNING_KEY} instead."
        )
    if verifier is None and read_only:
        raise CachePermissionError(
            f"a read-only shared cache is verified with its operator's public key: set {ENV_PUBLIC_KEY}=<public key "
            f"file> (or public_key=...). The operator makes the key pair with `{KEYGEN_COMMAND}`."
        )
    return verifier


def how_signed(store: Any) -> str:
    """What signs (or verifies) ``store``'s entries, for ``stats`` and ``doctor``."""
    signer = store._signer
    if isinstance(signer, Ed25519Signer):
        return f"shared cache, signed with the operator's key {signer.key_id} (Ed25519)"
    if isinstance(signer, Ed25519Verifier):
        return f"shared cache, read-only, verified with the operator's public key {signer.key_id} (Ed25519)"
    return "private cache, signed with this user's secret (HMAC-SHA256)"
