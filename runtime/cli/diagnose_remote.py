"""``doctor``'s facts about a remote tier and a bundle used as the cache (issue 25)."""

from __future__ import annotations

import json
import os
import time
import zipfile
from pathlib import Path

from ...cache.bundle import MANIFEST, BundleError, check_manifest
from ...cache.bundle_db import is_unpacked_bundle
from ...cache.errors import CacheConfigError, CachePermissionError
from ...cache.paths import ENV_PUBLIC_KEY
from ...cache.remote import ENV_REMOTE, remote_from_env
from ...cache.signing import Ed25519Verifier, load_public_key

Facts = tuple[list[tuple[str, str]], list[str]]


def remote_facts() -> Facts | None:
    """The remote tier ``$PYMC_AOT_CACHE_REMOTE`` names: reachable, its public key, its entries."""
    tier = remote_from_env()
    if tier is None:
        return None
    facts, problems = [("url", tier.url)], []
    try:
        facts.append(("public key", tier.verifier.key_id))
    except (CacheConfigError, CachePermissionError) as exc:
        problems.append(str(exc))
    try:
        facts.append(("entries", str(len(tier.digests()))))
        facts.append(("reachable", "yes"))
    except Exception as exc:  # noqa: BLE001 - any backend failure is what doctor reports
        facts.append(("reachable", "no"))
        problems.append(f"{ENV_REMOTE}={tier.url} cannot be listed: {type(exc).__name__}: {exc}")
    return facts, problems


def _manifest_doc(root: Path) -> object:
    if root.is_dir():
        return json.loads((root / MANIFEST).read_text())
    with zipfile.ZipFile(root) as zf:
        return json.loads(zf.read(MANIFEST))


def bundle_facts(root: Path) -> Facts | None:
    """The manifest of the bundle the cache root names (a file, or an unpacked directory)."""
    if not (root.is_file() or is_unpacked_bundle(root)):
        return None
    try:
        doc = _manifest_doc(root)
        body = doc["manifest"]  # type: ignore[index]
        entries = body["entries"]
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as exc:
        return [("bundle", str(root))], [f"{root} is not a readable bundle: {type(exc).__name__}: {exc}"]
    models = sorted({str(e.get("model_name", "")) for e in entries if isinstance(e, dict)} - {""})
    created = body.get("created")
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(created)) if isinstance(created, (int, float)) else "-"
    facts = [
        ("bundle", str(root)), ("format", str(body.get("format"))), ("signed by key", str(body.get("key_id"))),
        ("entries", str(len(entries))), ("models", ", ".join(models) or "-"),
        ("created", when),
    ]  # fmt: skip
    problems = []
    key = os.environ.get(ENV_PUBLIC_KEY)
    if not key:
        problems.append(f"a bundle is read with the operator's public key: set {ENV_PUBLIC_KEY}")
    else:
        try:
            check_manifest(doc, Ed25519Verifier(load_public_key(key, ENV_PUBLIC_KEY)), f"bundle {root}")
            facts.append(("verified", "yes"))
        except (BundleError, CachePermissionError) as exc:
            problems.append(str(exc))
    return facts, problems
