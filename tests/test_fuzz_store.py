"""Property-based fuzz of the store (a few hundred cases; bench/fuzz_store.py runs 10,000).

Every case mutates a copy of a pristine cache (flipped bytes, truncations, swapped and
replayed rows, foreign signatures, paths outside the root, pickles, junk values) and must
give no wrong entry, no wrong array, no exception, no blocked entry and no file touched
outside the cache. The fuzz itself is checked: with one defence of the store switched
off, it finds the hole.
"""

from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

import diskcache
import pytest
from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import fuzz_store
from bench._fuzz_store_cases import case_strategy
from pymc_aot.cache import disk, permissions, readonly, signing

pytestmark = pytest.mark.slow  # fresh processes / benchmark smoke: `-m slow` runs them

CASES = 300
RUNTIME_EVERY = 30


@pytest.fixture(scope="module")
def template():
    saved = {name: os.environ.pop(name) for name in fuzz_store.ENV_SETTINGS if name in os.environ}
    with fuzz_store.fuzz_directory() as tmp:
        yield fuzz_store.Template(Path(tmp))
    os.environ.update(saved)


_counter = itertools.count()


@settings(max_examples=CASES, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=case_strategy())
def test_mutated_caches_never_give_a_wrong_result(template, case):
    out = fuzz_store.Outcome()
    with fuzz_store.quiet_store():
        fuzz_store.run_case(template, case, out, with_runtime=next(_counter) % RUNTIME_EVERY == 0)
    assert out.clean, out.examples


def _verify_anything(monkeypatch):
    monkeypatch.setattr(signing.HmacSigner, "verify", lambda self, payload, sig: True)
    monkeypatch.setattr(signing.Ed25519Verifier, "verify", lambda self, payload, sig: True)


def _read_anywhere(monkeypatch):
    def anywhere(root, filename):
        if not isinstance(filename, str):
            raise disk.IntegrityError("no filename")
        return os.path.join(root, filename)

    monkeypatch.setattr(readonly, "value_path", anywhere)  # where every value is read (read_value)
    monkeypatch.setattr(permissions, "value_path", anywhere)


def _unpickle(monkeypatch):
    monkeypatch.setattr(disk.NoPickleDisk, "fetch", diskcache.Disk.fetch)


@pytest.mark.parametrize("sabotage", [_verify_anything, _read_anywhere, _unpickle])
def test_the_fuzz_finds_a_defence_switched_off(template, monkeypatch, sabotage):
    sabotage(monkeypatch)
    try:
        out, _ = fuzz_store.fuzz(template, cases=300, runtime_every=0, seed=1)
    except RuntimeError as exc:  # the fuzz stops at the first file touched outside the cache
        assert "outside the cache was touched" in str(exc)
    else:
        assert not out.clean, "the fuzz did not notice"
