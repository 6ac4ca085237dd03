"""The fuzzer's fixed material: a small model compiled once, pristine caches, what an attacker brings."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

from bench._fuzz_store_cases import THIRD_DIGEST, Rows, hmac_envelope


def _canonical(meta: dict[str, Any]) -> str:
    return json.dumps(meta, sort_keys=True)


def snapshot(base: Path) -> dict[str, tuple[Any, ...]]:
    """Every path under ``base`` but the case being fuzzed: mode, size, mtime and content."""
    seen = {}
    for dirpath, dirnames, filenames in os.walk(base):
        if Path(dirpath) == base:
            dirnames[:] = [d for d in dirnames if d != "cases"]
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            info = os.lstat(path)
            content = hashlib.sha256(path.read_bytes()).hexdigest() if stat.S_ISREG(info.st_mode) else None
            seen[str(path.relative_to(base))] = (info.st_mode, info.st_size, info.st_mtime_ns, content)
    return seen


def impostor() -> Any:
    """The fuzz model's twin: same variables and shapes, sigma on an interval instead of a log scale."""
    import pymc as pm
    from zoo import _rng

    with pm.Model(name="scalars") as m:
        mu = pm.Normal("mu", 0, 1)
        sigma = pm.Uniform("sigma", 0, 10)
        pm.Normal("y", mu, sigma, observed=_rng().normal(size=20))
    return m


class Template:
    """A small model compiled once, pristine caches of both kinds, and what an attacker brings."""

    def __init__(self, base: Path) -> None:
        from reference import pymc_posterior
        from zoo import draws_for, scalars

        from pymc_aot import aot
        from pymc_aot.cache import CacheStore, generate_keypair

        self.base = base
        self.model = scalars()
        scratch = CacheStore(base / "scratch")
        entries = {name: aot.precompile(self.model, chains=2, draws=draws, strategy="vmap", cache=scratch)
                   for name, draws in (("A", 5), ("B", 6))}
        self.digests = {"A": entries["A"].digest, "B": entries["B"].digest, "C": THIRD_DIGEST}
        # an impostor: another model with A's variables, shapes and signature, computing other numbers
        entries["impostor"] = aot.precompile(impostor(), chains=2, draws=5, strategy="vmap", cache=scratch)
        self.exe = {name: scratch.get(e.digest)[0] for name, e in entries.items()}
        self.meta = {name: scratch.get(e.digest)[1] for name, e in entries.items()}
        scratch.close()
        shutil.rmtree(base / "scratch")
        self.samples = draws_for(self.model, chains=2, draws=5)
        self.expected = pymc_posterior(self.model, self.samples)
        self.private_key, self.public_key = generate_keypair(base / "keys")
        self.foreign_key, _ = generate_keypair(base / "foreign-keys")
        sentinel = base / "sentinel"
        sentinel.mkdir()
        (sentinel / "precious.txt").write_text("outside the cache: never read, never deleted")
        (sentinel / "outside-exe.val").write_bytes(self.exe["A"])
        self.allowed: dict[str, dict[str, set[Any]]] = {}
        self.material = {config: self._fill(config, CacheStore) for config in ("private", "shared")}
        self.pristine = snapshot(base)

    def _fill(self, config: str, store_class: Any) -> dict[str, Any]:
        """The pristine cache of one kind, and the rows an attacker would plant in it."""
        from cryptography.hazmat.primitives import serialization

        from pymc_aot.cache.signing import load_private_key

        root = self.base / f"template-{config}"
        store = store_class(root) if config == "private" else store_class(root, signing_key=self.private_key)
        a, b = self.digests["A"], self.digests["B"]
        store.put(a, self.exe["A"], dict(self.meta["A"], created=1.0, note="first version"))
        rows = Rows(root, {"digests": self.digests})
        history = {kind: rows.read((kind, "A")) for kind in ("meta", "exe", "use")}
        rows.close()
        store.put(a, self.exe["A"], dict(self.meta["A"], created=2.0))
        store.put(b, self.exe["B"], self.meta["B"])
        bodies = {a: [json.loads(history["meta"])["meta"], store.metadata(a)], b: [store.metadata(b)]}
        self.allowed[config] = {
            "meta": {d: {_canonical(m) for m in ms} for d, ms in bodies.items()},
            "exe": {a: {self.exe["A"]}, b: {self.exe["B"]}},
        }
        store.close()
        operator = load_private_key(self.private_key)
        public_raw = operator.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        foreign = load_private_key(self.foreign_key)

        def signed(body: dict[str, Any], key: Any) -> bytes:
            payload = json.dumps(body, sort_keys=True).encode()
            return json.dumps({"meta": body, "sig": key.sign(payload).hex()}, sort_keys=True).encode()

        own_secret = (root / "secret.key").read_bytes() if config == "private" else None
        outside = dict(bodies[a][1], model_name="OUTSIDE")  # validly signed, never stored: must never come back
        outside_meta = hmac_envelope(outside, own_secret) if own_secret else signed(outside, operator)
        outside_dir = self.base / "sentinel" / f"dir-{config}"
        (outside_dir / "6f").mkdir(parents=True)
        (outside_dir / "6f" / ("0" * 28 + ".val")).write_bytes(outside_meta)
        (self.base / "sentinel" / f"outside-meta-{config}.val").write_bytes(outside_meta)
        claims = {name: dict(self.meta[name], digest=a) for name in ("B", "impostor")}  # A claiming another exe
        return {
            "root": root,
            "digests": self.digests,
            "exe": self.exe,
            "history": history,
            "sentinel": self.base / "sentinel",
            "outside_meta": self.base / "sentinel" / f"outside-meta-{config}.val",
            "outside_dir": outside_dir,
            "foreign": {
                "other-secret": {n: hmac_envelope(c, os.urandom(32)) for n, c in claims.items()},
                "other-ed25519": {n: signed(c, foreign) for n, c in claims.items()},
                "public-key-as-hmac": {n: hmac_envelope(c, public_raw) for n, c in claims.items()},
            },
        }

    def open_store(self, config: str, root: Path) -> Any:
        from pymc_aot.cache import CacheStore

        return CacheStore(root) if config == "private" else CacheStore(root, read_only=True, public_key=self.public_key)

    def is_allowed(self, config: str, digest: str, meta: dict[str, Any], exe: bytes | None = None) -> bool:
        allowed = self.allowed[config]
        ok = _canonical(meta) in allowed["meta"].get(digest, set())
        return ok and (exe is None or exe in allowed["exe"].get(digest, set()))
