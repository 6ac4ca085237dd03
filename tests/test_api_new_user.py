"""What a new user tripped on in the Python API (issue 24): one-line errors naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

import pymc_aot
from pymc_aot.examples import eight_schools


@pytest.fixture(scope="module")
def schools():
    return eight_schools()


def _draws(chains=2, draws=5, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "mu": rng.normal(size=(chains, draws)),
        "tau_log__": rng.normal(size=(chains, draws)),
        "z": rng.normal(size=(chains, draws, 8)),
    }


def test_nested_lists_are_taken_as_arrays(schools, cache_dir):
    arrays = _draws()
    as_lists = [arrays[n].tolist() for n in ("mu", "tau_log__", "z")]
    got = pymc_aot.postprocess(schools, as_lists, strategy="vmap")
    want = pymc_aot.postprocess(schools, arrays, strategy="vmap")
    for name in want:
        np.testing.assert_array_equal(np.asarray(got[name]), np.asarray(want[name]))


def test_ragged_or_non_numeric_samples_name_the_variable(schools, cache_dir):
    arrays = _draws()
    with pytest.raises(pymc_aot.SampleError, match=r"samples\['z'\]: expected an array"):
        pymc_aot.postprocess(schools, {**arrays, "z": [[1.0, 2.0], [3.0]]}, strategy="vmap")
    with pytest.raises(pymc_aot.SampleError, match=r"samples\['mu'\]: expected numbers"):
        pymc_aot.postprocess(schools, {**arrays, "mu": [["a"] * 5] * 2}, strategy="vmap")


@pytest.mark.parametrize("call", ["precompile", "postprocess", "compare"])
def test_a_model_that_is_not_a_model_is_a_type_error(cache_dir, call):
    args = ("x",) if call != "postprocess" else ("x", _draws())
    with pytest.raises(TypeError, match=r"^model: expected a pm.Model, got str 'x'$"):
        getattr(pymc_aot, call)(*args)


@pytest.mark.parametrize("call", ["precompile", "postprocess"])
def test_strategy_none_is_a_type_error(schools, cache_dir, call):
    args = (schools,) if call == "precompile" else (schools, _draws())
    with pytest.raises(TypeError, match=r"^strategy: expected a name such as 'auto'.*got None$"):
        getattr(pymc_aot, call)(*args, strategy=None)


def _unnamed():
    import pymc as pm

    with pm.Model() as unnamed_model:
        pm.Normal("a", 0, 1)
    return unnamed_model


def test_an_entry_made_from_python_is_named_after_the_callers_variable(cache_dir):
    my_regression = _unnamed()
    entry = pymc_aot.precompile(my_regression, chains=2, draws=5, strategy="vmap")
    assert entry.model_name == "my_regression"


def test_without_a_variable_the_entry_is_named_by_file_and_line(cache_dir):
    entry = pymc_aot.precompile(_unnamed(), chains=2, draws=5, strategy="vmap")
    assert entry.model_name.startswith("test_api_new_user.py:")


def test_candidates_of_a_failed_budget_run_are_not_top_level_rows(cache_dir, capsys):
    from pymc_aot.runtime.cli import main

    model = _unnamed()
    with pytest.raises(pymc_aot.MemoryBudgetError):
        pymc_aot.precompile(model, chains=2, draws=5, memory_budget=1)
    assert main(["inspect", "--cache-dir", str(cache_dir)]) == 0
    out = capsys.readouterr().out
    assert "candidates of auto runs that found nothing fitting" in out
    assert "batched(1)" not in out and "vmap" not in out, out
    assert main(["inspect", "--all", "--cache-dir", str(cache_dir)]) == 0
    assert "candidate" in capsys.readouterr().out


def test_a_discrete_free_variable_is_named_and_still_compiled(cache_dir):
    import pymc as pm

    with pm.Model() as counts:
        rate = pm.HalfNormal("rate", 1)
        pm.Poisson("k", rate)
    with pytest.warns(UserWarning, match=r"discrete free variable\(s\) \['k'\]: NUTS refuses them"):
        entry = pymc_aot.precompile(counts, chains=2, draws=5, strategy="vmap")
    assert entry.stored
    rng = np.random.default_rng(0)
    out = pymc_aot.postprocess(counts, {"rate_log__": rng.normal(size=(2, 5)), "k": rng.integers(0, 5, size=(2, 5))},
                               strategy="vmap")
    assert set(out) == {"rate", "k"}
