"""Compile (or find) a model's sampler programs before ``pm.sample`` runs them."""

from __future__ import annotations

from typing import Any

from ...cache import CacheStore
from ..build.request import match_floatx, value_signature
from ..identity.fingerprint import fingerprint_model
from .key import point_signature, sampler_key
from .resolve import LoadedProgram, fetch_or_compile
from .settings import DEFAULT_CHUNK, SamplerSettings, UnsupportedSettings


def precompile_sampler(
    model: Any,
    sampler: str = "numpyro",
    *,
    chains: int = 4,
    tune: int = 1000,
    target_accept: float = 0.8,
    chain_method: str = "parallel",
    chunk_size: int = DEFAULT_CHUNK,
    nuts_kwargs: dict[str, Any] | None = None,
    cache: CacheStore | str | None = None,
    model_name: str = "",
) -> dict[str, LoadedProgram]:
    """The ``logp``, ``init`` and ``chunk`` programs ``pm.sample(nuts_sampler=sampler, ...)`` inside
    ``enable(chunk_size=...)`` will run, compiled and stored now if missing.
    ``draws`` does not matter: it only sets how often the host calls ``chunk``."""
    import jax
    import pymc.sampling.jax  # noqa: F401 - sets x64 from floatX, as pm.sample's import does

    match_floatx()
    settings = SamplerSettings.make(
        sampler,
        nuts_kwargs,
        chains=chains,
        tune=tune,
        target_accept=target_accept,
        chain_method=chain_method,
        chunk=chunk_size,
    )
    fp = fingerprint_model(model)
    if not fp.exact:
        raise UnsupportedSettings("the model holds code pymc-aot cannot describe: " + "; ".join(fp.reasons)[:200])
    point = point_signature(value_signature(model, fp, 1, 1))
    device = jax.devices()[0]
    logp_settings = SamplerSettings("numpyro", 1, 0, 0.8)
    keys = [sampler_key(fp, logp_settings, point, device, "logp")]
    keys += [sampler_key(fp, settings, point, device, p) for p in ("init", "chunk")]
    store = cache if isinstance(cache, CacheStore) else CacheStore(cache)
    return fetch_or_compile(model, fp, keys, store, device, model_name)
