"""Fuzz of bundles and the remote tier: flipped, cut or inserted bytes anywhere never get a
changed entry accepted. Either everything is refused, or exactly the operator's entries come in."""

from __future__ import annotations

import itertools
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pymc_aot.cache import CacheStore, generate_keypair
from pymc_aot.cache.bundle import BundleError
from pymc_aot.cache.remote import RemoteTier
from pymc_aot.cache.signing import Ed25519Signer, load_private_key
from pymc_aot.cache.transfer import export_bundle, import_bundle

ENTRIES = {f"{i:02x}" + "0" * 62: bytes([i]) * (50 + i) for i in range(1, 4)}
_count = itertools.count()


@pytest.fixture(scope="module")
def material():
    base = Path(tempfile.mkdtemp(prefix="pymc-aot-bundle-fuzz-"))
    private, public = generate_keypair(base / "keys")
    store = CacheStore(base / "operator")
    for digest, exe in ENTRIES.items():
        store.put(digest, exe, {"key": {}, "model_name": "m", "created": 1.0})
    export_bundle(store, base / "pristine.pmaot", private)
    tier = RemoteTier(f"file://{base / 'remote'}")
    signer = Ed25519Signer(load_private_key(private))
    for digest, exe in ENTRIES.items():
        tier.push(digest, exe, {"key": {}, "model_name": "m", "created": 1.0}, signer)
    yield base, public
    shutil.rmtree(base, ignore_errors=True)


edits = st.lists(
    st.tuples(st.sampled_from(["flip", "cut", "insert"]), st.floats(0, 1, exclude_max=True), st.integers(1, 255)),
    min_size=1, max_size=3,
)


def _mutate(data: bytes, mutations) -> bytes:
    for op, where, value in mutations:
        if not data:
            break
        i = int(where * len(data))
        if op == "flip":
            data = data[:i] + bytes([data[i] ^ value]) + data[i + 1 :]
        elif op == "cut":
            data = data[:i]
        else:
            data = data[:i] + bytes([value]) + data[i:]
    return data or b"\0"


@settings(max_examples=150, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutations=edits)
def test_a_mutated_bundle_imports_nothing_or_the_operators_entries(material, mutations):
    base, public = material
    case = base / f"case-{next(_count)}"
    case.mkdir()
    bundle = case / "b.pmaot"
    bundle.write_bytes(_mutate((base / "pristine.pmaot").read_bytes(), mutations))
    worker = CacheStore(case / "worker")
    try:
        import_bundle(worker, bundle, public)
    except BundleError:
        assert worker.entries() == []
    else:
        assert {d: worker.get(d)[0] for d in ENTRIES} == ENTRIES
        assert sorted(r.digest for r in worker.entries()) == sorted(ENTRIES)
    shutil.rmtree(case)


@settings(max_examples=100, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(member=st.sampled_from(["exe", "meta.json"]), digest=st.sampled_from(sorted(ENTRIES)), mutations=edits)
def test_a_mutated_remote_object_is_never_accepted_changed(material, member, digest, mutations):
    base, public = material
    case = base / f"case-{next(_count)}"
    shutil.copytree(base / "remote", case / "remote")
    path = case / "remote" / "entries" / digest / member
    path.write_bytes(_mutate(path.read_bytes(), mutations))
    found = RemoteTier(f"file://{case / 'remote'}", public).fetch(digest)
    assert found is None or found[0] == ENTRIES[digest]
    shutil.rmtree(case)
