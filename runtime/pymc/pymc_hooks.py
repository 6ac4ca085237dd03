"""Transparent reuse inside ``pm.sample(nuts_sampler="numpyro"|"blackjax")``: enable, disable.

``enable`` replaces the seams of ``pymc.sampling.jax`` with those of
``runtime/pymc/pymc_jax_seams.py`` (and ``pm.compute_log_likelihood`` / ``compute_deterministics``
with ``runtime/pymc/pymc_compute_hooks.py``); ``disable`` puts every original object back.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from ..predictive import hook as predictive_hook
from ..transforms.fallback import warn_fallback
from . import pymc_compute_hooks
from .hook_state import STATE, Options
from .pymc_jax_seams import REPLACEMENTS, SEAMS, seams_present

if TYPE_CHECKING:  # pragma: no cover
    from ...aot.strategies.sharding import DeviceRequest

__all__ = ["Options", "disable", "enable", "enabled", "is_enabled"]


def is_enabled() -> bool:
    """Whether pymc-aot is hooked into PyMC."""
    return STATE.options is not None


def _point_jax_cache(directory: Path) -> None:
    import jax
    from jax.experimental.compilation_cache import compilation_cache

    before = jax.config.jax_compilation_cache_dir
    if before and Path(before) != directory:
        warnings.warn(
            f"pymc-aot: enable(jax_cache=True) points JAX's compilation cache to {directory} instead of your "
            f"jax_compilation_cache_dir {before}; disable() puts yours back (or leave jax_cache=False)",
            stacklevel=3,
        )
    STATE.jax_config = {"jax_compilation_cache_dir": before}
    jax.config.update("jax_compilation_cache_dir", str(directory))
    compilation_cache.reset_cache()


def _restore_jax_cache() -> None:
    if not STATE.jax_config:
        return
    import jax
    from jax.experimental.compilation_cache import compilation_cache

    for name, value in STATE.jax_config.items():
        jax.config.update(name, value)
    compilation_cache.reset_cache()
    STATE.jax_config = {}


def _checked_options(
    cache_dir: str | None,
    strategy: str,
    batch_size: int | None,
    memory_budget: int | float | str | None,
    jax_cache: bool,
    out: str | os.PathLike[str] | None,
    devices: DeviceRequest = None,
    sampler: bool = True,
    checkpoint: str | os.PathLike[str] | None = None,
    chunk_size: int = 100,
) -> Options:
    """``enable``'s arguments, validated now rather than in the middle of sampling."""
    from ...aot.build.request import check_devices_apply, resolve_device, unsized
    from ...aot.strategies.budget import resolve_budget
    from ...aot.strategies.sharding import ensure_host_devices, requested_devices
    from ...aot.strategies.strategies import get_strategy

    chosen = None if unsized(strategy, batch_size) else get_strategy(strategy, batch_size)  # unsized: B chosen
    ensure_host_devices(None)  # the host devices PyMC's import asks for, if JAX has not started
    if devices is not None:  # the checks postprocess makes, made before sampling
        check_devices_apply(chosen, devices)
        requested_devices(devices, resolve_device(None).platform)
    if memory_budget is not None:
        resolve_budget(memory_budget, resolve_device(None))
    if out is not None:
        from ..streams.zarr_store import check_target

        out = str(check_target(out))
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size: expected a positive integer, got {chunk_size!r}")
    if checkpoint is not None and not sampler:
        raise ValueError("checkpoint: a resumable run needs the compiled sampler; drop sampler=False")
    checkpoint = None if checkpoint is None else os.fspath(checkpoint)
    return Options(
        cache_dir, strategy, batch_size, memory_budget, jax_cache, out, devices, sampler, checkpoint, chunk_size
    )


def _patch_pymc() -> bool:
    """Replace PyMC's seams (once); False, with one warning, if this PyMC lacks them."""
    import pymc.sampling.jax as pymc_jax

    if STATE.options is not None:
        return True
    found = {name: getattr(pymc_jax, name, None) for name in SEAMS}
    # one of ours left in place after disable() (put back by whoever saved it) stands for PyMC's function
    found = {name: STATE.originals[name] if fn is REPLACEMENTS[name] else fn for name, fn in found.items()}
    if not seams_present(SimpleNamespace(**found)):
        if not STATE.warned:
            STATE.warned = True
            warn_fallback(
                "pymc-aot: this PyMC version does not have the postprocessing functions pymc-aot hooks "
                "into; PyMC's behaviour is left unchanged",
                3,
            )
        return False
    STATE.originals = found
    for name, replacement in REPLACEMENTS.items():
        setattr(pymc_jax, name, replacement)
    return True


def enable(
    *,
    cache_dir: str | None = None,
    strategy: str = "auto",
    batch_size: int | None = None,
    memory_budget: int | float | str | None = None,
    jax_cache: bool = False,
    out: str | os.PathLike[str] | None = None,
    devices: DeviceRequest = None,
    sampler: bool = True,
    checkpoint: str | os.PathLike[str] | None = None,
    chunk_size: int = 100,
) -> bool:
    """Hook pymc-aot into PyMC's JAX samplers; returns False if PyMC's seams are missing.

    ``strategy`` / ``batch_size`` apply when the user does not pass
    ``postprocessing_vectorize`` (PyMC's "vmap" and "scan" map to ours of the same name).
    With ``strategy="auto"`` (the default) the strategies are chosen and compiled before
    sampling starts, against ``memory_budget``; if nothing fits, ``pm.sample`` raises
    ``MemoryBudgetError`` at once instead of failing at "Transforming variables".
    ``jax_cache=True`` also points JAX's persistent compilation cache into the pymc-aot
    cache root, so the samplers' own compiles are reused across processes. ``out``: a Zarr
    store; the posterior (and log-likelihood) are streamed into it and the InferenceData's
    groups read from it lazily (see ``runtime/pymc/sample_out.py``). ``devices``: with
    ``strategy="sharded(B)"`` or ``"streamed(B)"`` (or ``auto``, which may shard on accelerators), a device count or
    a list of devices, checked here; it reaches ``pm.compute_log_likelihood`` /
    ``compute_deterministics`` too. In ``pm.sample`` the devices the samples already live on
    win: chains that ``chain_method="parallel"`` left one per device are split over those
    devices, not moved to the ones asked for; ``devices`` applies when they live on one device
    (a streamed batch is always split over the devices asked for).
    ``sampler`` (on by default) runs the NUTS sampler itself from the store (``runtime/sampler``):
    compiled once per model, shapes and settings, in chunks of ``chunk_size`` steps with a progress
    bar; ``sampler=False`` leaves sampling to PyMC (only postprocessing is cached). ``checkpoint``
    (a directory) makes the run resumable after a crash.
    Enabling twice only updates the options.
    """
    from ...cache import CacheStore

    options = _checked_options(
        cache_dir, strategy, batch_size, memory_budget, jax_cache, out, devices, sampler, checkpoint, chunk_size
    )
    # checked like the cache root, before anything is patched; None in a read-only shared cache
    jax_dir = CacheStore(cache_dir).private_subdirectory("jax-compilation-cache") if jax_cache else None
    if not _patch_pymc():
        return False
    _restore_jax_cache()
    if jax_dir is not None:
        _point_jax_cache(jax_dir)
    STATE.options = options
    from ..sampler import seams

    if options.sampler:
        seams.install()
    else:
        seams.uninstall()
    pymc_compute_hooks.enable(options)  # pm.compute_log_likelihood / compute_deterministics
    predictive_hook.enable(options)  # pm.sample_posterior_predictive
    return True


def disable() -> None:
    """Put PyMC back exactly as it was; harmless if not enabled."""
    if STATE.options is None:
        return
    import pymc.sampling.jax as pymc_jax

    pymc_compute_hooks.disable()
    predictive_hook.disable()
    from ..sampler import seams

    seams.uninstall()
    for name, original in STATE.originals.items():
        setattr(pymc_jax, name, original)
    _restore_jax_cache()  # STATE.originals kept: a replacement left in place after this calls them
    STATE.options = None


@contextlib.contextmanager
def enabled(**options: Any) -> Iterator[None]:
    """``with runtime.enabled(cache_dir=...):`` -- enable inside the block, restore after."""
    was = STATE.options
    enable(**options)
    try:
        yield
    finally:
        if was is None:
            disable()
        else:
            enable(**vars(was))
