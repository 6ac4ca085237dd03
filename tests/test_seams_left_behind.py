"""A replacement of ``pymc.sampling.jax``'s functions left in place after ``disable()``.

Something that saved one while pymc-aot was enabled and puts it back later (a test's
``monkeypatch`` undone at teardown, a ``mock.patch``) leaves pymc-aot's function in PyMC after
``disable()``. It must then be PyMC's own function: it once kept running the compiled sampler in
every later ``pm.sample`` of the process, ``enable(sampler=False)`` included, so a later
``chain_method="parallel"`` run got its draws on one device and a ``sharded`` postprocessing the
default mesh (the xdist-order failure of ``test_sharded``'s parallel-chains test).
"""

from __future__ import annotations

import functools

import pymc.sampling.jax as pymc_jax
import pytest

from pymc_aot import runtime
from pymc_aot.runtime.sampler import session

STAND_INS = ("_sample_numpyro_nuts", "get_jaxified_logp", "sample_jax_nuts", "_get_log_likelihood")


def _stand_in(name: str, calls: list[str], module=pymc_jax):
    """Records its calls and returns its name; PyMC's signature, so enable() accepts it."""

    @functools.wraps(getattr(module, name))
    def stand_in(*_a, **_k):
        calls.append(name)
        return name

    return stand_in


@pytest.fixture
def pymcs(monkeypatch):
    """PyMC's functions replaced by stand-ins that record their calls (before enable(), so
    enable() takes them as PyMC's), and the compiled sampler made to record instead of sampling."""
    calls: list[str] = []
    for name in STAND_INS:
        monkeypatch.setattr(pymc_jax, name, _stand_in(name, calls))
    monkeypatch.setattr(session, "run_compiled", lambda *a, **k: calls.append("compiled") or "compiled")
    return calls


def _left_behind(cache_dir, monkeypatch) -> dict:
    """enable(), a save of pymc-aot's replacements, disable(), and the save put back."""
    assert runtime.enable(cache_dir=str(cache_dir))
    saved = {name: getattr(pymc_jax, name) for name in STAND_INS}
    runtime.disable()
    assert all(getattr(pymc_jax, name) is not fn for name, fn in saved.items()), "disable() put PyMC's back"
    for name, fn in saved.items():
        monkeypatch.setattr(pymc_jax, name, fn)
    return saved


def test_a_replacement_left_after_disable_is_pymcs_own(pymcs, cache_dir, monkeypatch):
    _left_behind(cache_dir, monkeypatch)
    assert pymc_jax._sample_numpyro_nuts(model=None, chains=4) == "_sample_numpyro_nuts"
    assert pymc_jax.get_jaxified_logp(None, negative_logp=False) == "get_jaxified_logp"
    assert pymc_jax.sample_jax_nuts(10, nuts_sampler="numpyro") == "sample_jax_nuts"
    assert pymc_jax._get_log_likelihood(None, [], None, "vmap") == "_get_log_likelihood"
    assert "compiled" not in pymcs
    assert runtime.enable(cache_dir=str(cache_dir), sampler=False)  # sampling is PyMC's: the seam left too
    try:
        assert pymc_jax._sample_numpyro_nuts(model=None, chains=4) == "_sample_numpyro_nuts"
    finally:
        runtime.disable()
    assert pymcs.count("compiled") == 0, pymcs


def test_enable_takes_pymcs_function_from_behind_one_left_in_place(pymcs, cache_dir, monkeypatch):
    saved = _left_behind(cache_dir, monkeypatch)
    assert runtime.enable(cache_dir=str(cache_dir))  # PyMC's seams recognised behind ours
    try:
        assert pymc_jax._sample_numpyro_nuts(model=None, chains=4) == "compiled"  # enabled: the compiled sampler
    finally:
        runtime.disable()
    for name, fn in saved.items():
        assert getattr(pymc_jax, name) is not fn, f"disable() put pymc-aot's {name} back instead of PyMC's"
    assert pymc_jax._sample_numpyro_nuts(model=None) == "_sample_numpyro_nuts"


def test_the_step_and_start_point_hooks_left_behind_are_pymcs_own(cache_dir, monkeypatch):
    """The same for the two hooks the warm first draw adds: ``assign_step_methods`` (in
    ``pymc.sampling.mcmc``) and the jittered initial points; and enable() sees through them."""
    import pymc.sampling.mcmc as mcmc

    calls: list[str] = []
    places = ((mcmc, "assign_step_methods"), (pymc_jax, "_get_batched_jittered_initial_points"))
    for module, name in places:
        monkeypatch.setattr(module, name, _stand_in(name, calls, module))
    assert runtime.enable(cache_dir=str(cache_dir))
    saved = [(module, name, getattr(module, name)) for module, name in places]
    runtime.disable()
    for module, name, fn in saved:
        assert getattr(module, name) is not fn, f"disable() left pymc-aot's {name} in place"
        monkeypatch.setattr(module, name, fn)
    assert mcmc.assign_step_methods(None, None, ["NUTS"]) == "assign_step_methods"
    kwargs = {"model": None, "chains": 2, "initvals": None, "random_seed": 1}
    assert pymc_jax._get_batched_jittered_initial_points(**kwargs) == "_get_batched_jittered_initial_points"
    assert calls == ["assign_step_methods", "_get_batched_jittered_initial_points"]
    assert runtime.enable(cache_dir=str(cache_dir))
    try:
        for module, name, _fn in saved:
            behind = getattr(module, name).__wrapped__
            assert getattr(behind, "_pymc_aot_seam", None) is None, f"enable() wrapped pymc-aot's left-behind {name}"
    finally:
        runtime.disable()
    for module, name, _fn in saved:
        assert getattr(getattr(module, name), "_pymc_aot_seam", None) is None, f"disable() left a hook: {name}"
