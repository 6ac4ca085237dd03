"""Fuzz the cache store: mutated entries and database rows never give a wrong result.

    python bench/fuzz_store.py [--cases 10000] [--runtime-every 100] [--seed 0]
                               [--bundle-cases 2000] [--remote-cases 2000]

Each case copies a pristine cache (two real entries of a small model, one stored twice so
an old version exists), edits its rows and value files as an attacker with write access
would (flipped bytes, truncations, swapped and replayed rows, foreign signatures, paths
outside the root, pickles; see ``_fuzz_store_cases``), then uses it through the store and,
every Nth case, through the runtime end to end. Half the cases are a private cache
(per-user HMAC), half a shared one (Ed25519, read by a worker holding the public key).

Counted: wrong entries (the store returned bytes or metadata never stored under that
digest by its signer), wrong arrays (runtime results that differ from stock PyMC), crashes
(any exception: a clean miss and rebuild is the only allowed outcome), not rebuilt (a
writable store that cannot store and return the entry again afterwards), and outside files
touched (any change beside the case's cache, or the planted pickle loaded).

Then a cache that travels (``_fuzz_travel``): signed bundles (tampered or dropped members,
re-signed with a foreign key, swapped entries, truncated zips, extra members, an older
manifest; imported, read in place or unpacked) and a remote tier (tampered, swapped or
foreign-signed objects, a worker holding the wrong public key, a backend that raises or
hangs). Counted: forged or tampered entries accepted, wrong arrays, crashes.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bench._fuzz_store_cases import Rows, apply, case_strategy  # noqa: E402
from bench._fuzz_store_template import Template, snapshot  # noqa: E402
from bench._fuzz_travel import Tally, TravelMaterial, TravelOutcome, run_travel_case, travel_report  # noqa: E402
from bench._fuzz_travel_cases import bundle_strategy, remote_strategy  # noqa: E402

ENV_SETTINGS = (
    "PYMC_AOT_CACHE_READONLY", "PYMC_AOT_CACHE_KEY", "PYMC_AOT_CACHE_SIGNING_KEY", "PYMC_AOT_CACHE_PUBLIC_KEY",
)


@dataclass
class Outcome(Tally):
    """What the cases did, summed (``refused``: cases where the store refused entry A or B, the
    mutation took effect)."""

    wrong_entries: int = 0
    not_rebuilt: int = 0
    outside_touched: int = 0

    def failures(self) -> tuple[int, ...]:
        return (self.wrong_entries, *super().failures(), self.not_rebuilt, self.outside_touched)


def _check_store(t: Template, config: str, root: Path, out: Outcome, case: Any) -> None:
    store = t.open_store(config, root)
    misses = 0
    for name, digest in t.digests.items():
        found = store.get(digest)
        misses += found is None and name != "C"
        if found is not None and not t.is_allowed(config, digest, found[1], found[0]):
            out.wrong_entries += 1
            out.note("wrong entry", case, found[1].get("model_name", ""))
        meta = store.metadata(digest)
        if meta is not None and not t.is_allowed(config, digest, meta):
            out.wrong_entries += 1
            out.note("wrong metadata", case)
        store.record_hit(digest)
    out.refused += misses > 0
    for record in store.entries():
        if not t.is_allowed(config, record.digest, record.metadata):
            out.wrong_entries += 1
            out.note("wrong listing", case)
    store.find("")
    store.volume()
    if config == "private":  # the entry can be stored and read again: nothing blocks it
        a = t.digests["A"]
        store.put(a, t.exe["A"], dict(t.meta["A"], created=2.0))
        found = store.get(a)
        if found is None or found[0] != t.exe["A"]:
            out.not_rebuilt += 1
            out.note("not rebuilt", case)
    store.close()


def _check_runtime(t: Template, config: str, root: Path, out: Outcome, case: Any) -> None:
    import numpy as np

    from pymc_aot import runtime

    out.runtime_cases += 1
    for _ in range(2):  # the first run may drop and rebuild; the second reads what it left
        runtime.clear_memo()
        store = t.open_store(config, root)
        got = runtime.postprocess(t.model, [s.copy() for s in t.samples], strategy="vmap", cache=store)
        store.close()
        same = list(got) == list(t.expected) and all(
            np.asarray(got[k]).shape == v.shape and np.allclose(np.asarray(got[k]), v, rtol=1e-10, atol=1e-10)
            for k, v in t.expected.items()
        )
        if not same:
            out.wrong_arrays += 1
            out.note("wrong arrays", case)


def _mutated_copy(t: Template, config: str, mutations: list[tuple[Any, ...]]) -> Path:
    root = t.base / "cases" / "case"
    shutil.rmtree(root.parent, ignore_errors=True)
    shutil.copytree(t.material[config]["root"], root, symlinks=True)
    rows = Rows(root, t.material[config])
    for mutation in mutations:
        apply(rows, mutation)
    rows.close()
    return root


def run_case(t: Template, case: tuple[str, list[tuple[Any, ...]]], out: Outcome, *, with_runtime: bool) -> None:
    """Mutate a copy of the pristine cache, use it, and count what went wrong.

    The runtime and the store are each given their own copy: what the runtime rebuilds is
    legitimately new, and would not be in the store check's list of what was stored."""
    config, mutations = case
    out.cases += 1
    for check in [_check_runtime, _check_store] if with_runtime else [_check_store]:
        root = _mutated_copy(t, config, mutations)
        try:
            check(t, config, root, out, case)
        except Exception as exc:  # noqa: BLE001 - a crash is what is being counted
            out.crashes += 1
            out.note("crash", case, f"{type(exc).__name__}: {exc}")
        if snapshot(t.base) != t.pristine or (t.base / "sentinel" / "unpickled").exists():
            out.outside_touched += 1
            out.note("outside touched", case)
            raise RuntimeError(f"a file outside the cache was touched by {case!r}; later cases would mean nothing")
    shutil.rmtree(t.base / "cases", ignore_errors=True)


def fuzz(template: Template, cases: int, runtime_every: int, seed: int) -> tuple[Outcome, float]:
    """Run ``cases`` hypothesis-generated cases; returns the outcome and the seconds taken."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    out = Outcome()

    @hypothesis_seed(seed)
    @settings(max_examples=cases, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case_strategy())
    def one(case: tuple[str, list[tuple[Any, ...]]]) -> None:
        run_case(template, case, out, with_runtime=runtime_every > 0 and out.cases % runtime_every == 0)

    t0 = time.perf_counter()
    with quiet_store():
        one()
    return out, time.perf_counter() - t0


def fuzz_travel(material: TravelMaterial, kind: str, cases: int, runtime_every: int, seed: int) -> tuple[
    TravelOutcome, float
]:
    """``cases`` bundle (``kind="bundle"``) or remote cases; the outcome and the seconds taken."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    out = TravelOutcome()

    @hypothesis_seed(seed)
    @settings(max_examples=cases, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(bundle_strategy() if kind == "bundle" else remote_strategy())
    def one(case: tuple[Any, ...]) -> None:
        run_travel_case(material, case, out, runtime_every > 0 and out.cases % runtime_every == 0)

    t0 = time.perf_counter()
    with quiet_store():
        one()
    return out, time.perf_counter() - t0


@contextlib.contextmanager
def quiet_store() -> Iterator[None]:
    """Silence the store's warnings (thousands of expected "dropped" lines) while fuzzing."""
    loggers = [logging.getLogger(name) for name in ("pymc_aot", "pymc_aot.cache")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


def fuzz_directory() -> tempfile.TemporaryDirectory[str]:
    """A scratch directory, in memory where there is /dev/shm (no fsync, fast deletes)."""
    memory = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    return tempfile.TemporaryDirectory(prefix="pymc-aot-fuzz-", dir=memory)


def report(out: Outcome, seconds: float) -> str:
    lines = [
        f"cases                   {out.cases:,} ({out.runtime_cases} through the runtime end to end)",
        f"entry refused           {out.refused:,} cases (A or B dropped or missed after the mutation)",
        f"wrong arrays            {out.wrong_arrays}",
        f"wrong entries (store)   {out.wrong_entries}",
        f"crashes                 {out.crashes}",
        f"not rebuilt             {out.not_rebuilt}",
        f"outside files touched   {out.outside_touched}",
        f"time                    {seconds:.1f} s ({1000 * seconds / max(out.cases, 1):.1f} ms a case)",
    ]
    return "\n".join(lines + [f"  {e}" for e in out.examples])


def main(argv: list[str] | None = None) -> bool:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--runtime-every", type=int, default=100, help="every Nth case also runs the runtime")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bundle-cases", type=int, default=2000)
    parser.add_argument("--remote-cases", type=int, default=2000)
    args = parser.parse_args(argv)
    for name in ENV_SETTINGS:
        os.environ.pop(name, None)
    with fuzz_directory() as tmp:
        template = Template(Path(tmp))
        out, seconds = fuzz(template, args.cases, args.runtime_every, args.seed)
        travel = TravelMaterial(template)
        bundles = fuzz_travel(travel, "bundle", args.bundle_cases, args.runtime_every, args.seed)
        remotes = fuzz_travel(travel, "remote", args.remote_cases, args.runtime_every, args.seed)
    print(f"python bench/fuzz_store.py --cases {args.cases} --runtime-every {args.runtime_every} --seed {args.seed} "
          f"--bundle-cases {args.bundle_cases} --remote-cases {args.remote_cases}")
    print(report(out, seconds))
    print(travel_report("bundle", *bundles))
    print(travel_report("remote", *remotes))
    return out.clean and bundles[0].clean and remotes[0].clean


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
