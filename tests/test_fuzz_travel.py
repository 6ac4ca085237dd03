"""Property-based fuzz of a cache that travels (a few hundred cases; bench/fuzz_store.py runs
thousands): mutated bundles (imported, read in place, unpacked) and remotes (tampered,
foreign-signed, the wrong public key, a backend that raises or hangs) never give a forged
entry, a wrong array or an exception. The fuzz itself is checked: with signatures or the
executable's digest not checked, it finds the hole."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("fsspec")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import fuzz_store
from pymc_aot.cache import bundle, remote, signing, verify

pytestmark = pytest.mark.slow  # compiles the fuzz model's entries; hundreds of cases

CASES = 150
RUNTIME_EVERY = 30


@pytest.fixture(scope="module")
def material():
    saved = {name: os.environ.pop(name) for name in fuzz_store.ENV_SETTINGS if name in os.environ}
    with fuzz_store.fuzz_directory() as tmp:
        yield fuzz_store.TravelMaterial(fuzz_store.Template(Path(tmp)))
    os.environ.update(saved)


@pytest.mark.parametrize("kind", ["bundle", "remote"])
def test_mutated_bundles_and_remotes_never_give_a_forged_entry(material, kind):
    out, _ = fuzz_store.fuzz_travel(material, kind, CASES, RUNTIME_EVERY, seed=3)
    assert out.clean, out.examples
    assert out.refused > CASES // 2, "most mutations take effect"


def _verify_anything(monkeypatch):
    monkeypatch.setattr(signing.Ed25519Verifier, "verify", lambda self, payload, sig: True)


def _any_executable(monkeypatch):
    def anything(executable, metadata):
        if not isinstance(executable, bytes):
            raise verify.IntegrityError("executable missing")
        return executable

    # the store reads through verify.read_entry, which looks check_executable up in verify
    for module in (verify, bundle, remote):
        monkeypatch.setattr(module, "check_executable", anything)


@pytest.mark.parametrize("kind", ["bundle", "remote"])
@pytest.mark.parametrize("sabotage", [_verify_anything, _any_executable])
def test_the_fuzz_finds_a_defence_switched_off(material, monkeypatch, kind, sabotage):
    sabotage(monkeypatch)
    out, _ = fuzz_store.fuzz_travel(material, kind, CASES, 0, seed=3)
    assert out.accepted > 0, "the fuzz did not notice"
