"""``strategy="batched"``, ``"streamed"`` or ``"sharded"`` without a batch size: B is sized as
``auto`` sizes that candidate (from the same ``batched(1)`` probe), the numbers are PyMC's
(``_postprocess_samples``, ``_get_log_likelihood``), and ``inspect`` shows the B chosen."""

from __future__ import annotations

import pytest
from reference import assert_same, pymc_log_likelihood, pymc_posterior
from zoo import ZOO, draws_for

from pymc_aot import aot, runtime
from pymc_aot.aot.build.request import make_request, value_signature
from pymc_aot.aot.choice.auto import WORKING_SET
from pymc_aot.aot.choice.shard_fit import shard_batch
from pymc_aot.aot.choice.sized import batch_sizes
from pymc_aot.aot.choice.stream_fit import stream_batch
from pymc_aot.runtime.cli import main

CHAINS, DRAWS = 2, 30


@pytest.fixture(scope="module")
def model():
    return ZOO["shapes_and_bounds"]()


def _probe(model, cache, **options):
    return aot.precompile(model, chains=CHAINS, draws=DRAWS, strategy="batched(1)", cache=cache, **options).metadata


def _budget(model, strategy, memory_budget, **options) -> int:
    fp = aot.fingerprint_model(model)
    values = value_signature(model, fp, CHAINS, DRAWS)
    return make_request(model, values, strategy=strategy, memory_budget=memory_budget, **options).budget


def _expected(strategy: str, model, probe, memory_budget, **options) -> int:
    """The B ``auto`` would give this strategy's candidate."""
    budget, n, m = _budget(model, strategy, memory_budget, **options), CHAINS * DRAWS, probe.memory
    if strategy == "batched":
        return batch_sizes(n, m.argument + m.output - m.alias, m.temp, budget, WORKING_SET)[1]
    if strategy == "streamed":
        return stream_batch(CHAINS, DRAWS, probe, budget)
    return shard_batch(n // 2, 2, probe, budget)


def _check_choice(entry, strategy: str, expected: int) -> int:
    """The first B tried is ``auto``'s; it is kept if it fits, else a smaller one is."""
    auto = entry.metadata.auto
    assert auto is not None and entry.key.strategy == strategy and entry.key.batch_size is None
    tried = {c.strategy: c for c in auto.candidates}
    first = tried[f"{strategy}({expected})"]
    chosen = int(auto.chosen.removeprefix(f"{strategy}(").removesuffix(")"))
    assert entry.strategy == f"{strategy}:{strategy}({chosen})"
    assert chosen == expected if first.fits else chosen < expected
    return chosen


@pytest.mark.parametrize("strategy", ["batched", "streamed", "sharded"])
@pytest.mark.parametrize("tight", [False, True], ids=["default-budget", "tight-budget"])
def test_b_is_sized_as_auto_sizes_it_and_the_numbers_are_pymcs(model, strategy, tight, tmp_path):
    devices = {"devices": 2} if strategy == "sharded" else {}
    probe = _probe(model, tmp_path)
    m = probe.memory
    budget = m.argument + m.output - m.alias + 7 * max(m.temp, 1) if tight else None
    entry = aot.precompile(
        model, chains=CHAINS, draws=DRAWS, strategy=strategy, memory_budget=budget, cache=tmp_path, **devices
    )
    expected = _expected(strategy, model, probe, budget, **devices)
    if tight and strategy == "batched":
        assert expected < CHAINS * DRAWS  # the budget is what limits B
    _check_choice(entry, strategy, expected)
    samples = draws_for(model, chains=CHAINS, draws=DRAWS)
    got = runtime.postprocess(model, samples, strategy=strategy, memory_budget=budget, cache=tmp_path, **devices)
    assert_same(got, pymc_posterior(model, samples))
    if strategy == "sharded":
        assert len(next(iter(got.values())).sharding.device_set) == 2


def test_log_likelihood_without_b_is_pymcs(model, tmp_path):
    samples = draws_for(model, chains=CHAINS, draws=DRAWS, seed=1)
    got = runtime.postprocess(model, samples, strategy="batched", log_likelihood=True, cache=tmp_path)
    assert_same(got, pymc_log_likelihood(model, samples))


def test_a_second_request_reuses_the_choice(model, tmp_path):
    first = aot.precompile(model, chains=CHAINS, draws=DRAWS, strategy="streamed", cache=tmp_path)
    again = aot.precompile(model, chains=CHAINS, draws=DRAWS, strategy="streamed", cache=tmp_path)
    assert again.cached and again.digest == first.digest and again.strategy == first.strategy
    sized = aot.precompile(model, chains=CHAINS, draws=DRAWS, strategy=first.metadata.chosen, cache=tmp_path)
    assert sized.digest != first.digest  # streamed(B) asked for is its own entry (the candidate)


def test_inspect_shows_the_b_chosen(model, tmp_path, capsys):
    entry = aot.precompile(model, chains=CHAINS, draws=DRAWS, strategy="batched", cache=tmp_path)
    assert main(["inspect", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"batched:{entry.metadata.chosen}" in out


def test_devices_with_batched_or_streamed_without_b_is_refused(model, tmp_path):
    samples = draws_for(model, chains=CHAINS, draws=DRAWS)
    for strategy in ("batched", "streamed"):
        with pytest.raises(ValueError, match=rf"devices=2 with strategy '{strategy}' needs a batch size"):
            runtime.postprocess(model, samples, strategy=strategy, devices=2, cache=tmp_path)
