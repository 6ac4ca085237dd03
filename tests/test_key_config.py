"""What reaches the build without showing in the model graph, keyed or not (issue 26): a Scan's
own ``mode``, ``PYTENSOR_FLAGS`` rewrite settings, ``XLA_FLAGS`` beyond the ISA cap, and a
``pm.Data`` value read with ``get_value()`` in a ``logp`` after ``pm.set_data`` in one process.
Where the numbers of both sides may coincide, the key itself must differ."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
from reference import assert_same, pymc_log_likelihood, pymc_posterior

from pymc_aot import aot, runtime

OBS = np.linspace(-1.0, 1.0, 5)


def _scan_model(mode) -> pm.Model:
    with pm.Model() as m:
        x = pm.Normal("x", 0.0, 1.0, shape=3)
        out, _ = pytensor.scan(lambda x_t, acc: acc + pt.exp(pt.log(x_t**2 + 1.0)), sequences=[x],
                               outputs_info=[pt.zeros(())], mode=mode)
        pm.Deterministic("acc", out[-1])
    return m


def _key(model: pm.Model) -> str:
    return aot.precompile(model, chains=2, draws=5, strategy="vmap").digest


def test_scan_mode_is_part_of_the_key(cache_dir):
    fast_run = _key(_scan_model(pytensor.compile.mode.get_mode("FAST_RUN").excluding("local_exp_log")))
    excluding = _key(_scan_model(pytensor.compile.mode.get_mode("FAST_RUN")))
    assert fast_run != excluding


def _plain_model() -> pm.Model:
    with pm.Model() as m:
        x = pm.Normal("x", 0.0, 1.0, shape=3)
        pm.Deterministic("e", pt.exp(pt.log(x**2 + 1.0)))
    return m


_DIGEST = """
import sys
sys.path.insert(0, {tests!r})
from test_key_config import _key, _plain_model
print("DIGEST", _key(_plain_model()))
"""


def _digest_in_a_fresh_process(tmp_path, flags: str) -> str:
    env = {**os.environ, "PYMC_AOT_CACHE_DIR": str(tmp_path / "cache"), "PYTENSOR_FLAGS": flags}
    code = _DIGEST.format(tests=str(Path(__file__).parent))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return next(line.split()[1] for line in out.stdout.splitlines() if line.startswith("DIGEST"))


def test_pytensor_flags_optimizer_excluding_is_part_of_the_key(tmp_path):
    # a process-wide setting PyTensor fixes at import: only a fresh process can differ in it
    plain = _digest_in_a_fresh_process(tmp_path, "")
    assert _digest_in_a_fresh_process(tmp_path, "optimizer_excluding=local_exp_log") != plain
    assert _digest_in_a_fresh_process(tmp_path, "") == plain  # and nothing else drifted


def test_xla_fast_math_is_part_of_the_key(cache_dir, monkeypatch):
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    before = _key(_plain_model())
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_enable_fast_math=true")
    assert _key(_plain_model()) != before
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=1")  # not a numerics flag
    assert _key(_plain_model()) == before


def test_set_data_then_get_value_in_a_logp_gives_the_new_numbers(cache_dir):
    with pm.Model() as model:
        scale = pm.Data("scale", 1.0)
        mu = pm.Normal("mu", 0.0, 1.0)

        def logp(value, mu):
            return -0.5 * ((value - mu) / float(scale.get_value())) ** 2

        pm.CustomDist("y", mu, logp=logp, observed=OBS)
    samples = [np.random.default_rng(3).normal(size=(2, 5))]
    for value in (1.0, 3.0, 1.0):
        pm.set_data({"scale": value}, model=model)
        ll = runtime.log_likelihood(model, samples, strategy="vmap")
        assert_same(dict(ll), pymc_log_likelihood(model, samples))
        assert_same(dict(runtime.postprocess(model, samples, strategy="vmap")), pymc_posterior(model, samples))


def test_jax_settings_that_change_numbers_are_part_of_the_key(cache_dir):
    import jax

    from pymc_aot.aot.identity.key import compile_config

    before = _key(_plain_model())
    plain_config = compile_config()
    assert "jax=" not in plain_config  # JAX's defaults add nothing: keys made before stay valid
    for name, value in (("jax_default_matmul_precision", "bfloat16"), ("jax_threefry_partitionable", False),
                        ("jax_default_prng_impl", "rbg")):
        old = getattr(jax.config, name)
        jax.config.update(name, value)
        try:
            assert f"{name}={value}" in compile_config()
            assert _key(_plain_model()) != before, name
        finally:
            jax.config.update(name, old)
    assert compile_config() == plain_config and _key(_plain_model()) == before


def test_the_sampler_key_names_the_compile_config():
    import jax

    from pymc_aot.aot.sampler.key import sampler_key
    from pymc_aot.aot.sampler.settings import SamplerSettings

    fp = aot.fingerprint_model(_plain_model())
    settings = SamplerSettings(sampler="numpyro", chains=2, tune=10, target_accept=0.8, chunk=10)
    digest = sampler_key(fp, settings, (("x", (3,), "float64"),), jax.devices()[0]).digest
    jax.config.update("jax_threefry_partitionable", False)
    try:  # the sampler draws its random numbers inside the program
        assert sampler_key(fp, settings, (("x", (3,), "float64"),), jax.devices()[0]).digest != digest
    finally:
        jax.config.update("jax_threefry_partitionable", True)
