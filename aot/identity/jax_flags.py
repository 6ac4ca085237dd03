"""JAX settings besides x64 that reach a compiled program, for the key's ``compile_config``.

Each changes what is traced, lowered or compiled: the precision of matrix products
(``jax_default_matmul_precision``), the random bits a program draws (the PRNG implementation,
``jax_threefry_partitionable``, the seed offset: the predictive and sampler kinds draw
inside the executable), the sharding partitioner and XLA's effort and memory settings.
Settings that only raise or warn (``jax_numpy_rank_promotion``, ``jax_numpy_dtype_promotion``,
``jax_debug_nans``) compute the same numbers when the program runs, and are left out.

Only settings that differ from JAX's default are named, so a process with JAX's defaults
keeps the keys it had before these were keyed.
"""

from __future__ import annotations

DEFAULTS: dict[str, str] = {
    "jax_default_matmul_precision": "None",
    "jax_default_prng_impl": "threefry2x32",
    "jax_threefry_partitionable": "True",
    "jax_random_seed_offset": "0",
    "jax_enable_custom_prng": "False",
    "jax_use_shardy_partitioner": "True",
    "jax_exec_time_optimization_effort": "0.0",
    "jax_memory_fitting_effort": "0.0",
    "jax_optimization_level": "UNKNOWN",
    "jax_memory_fitting_level": "O2",
    "jax_compiler_enable_remat_pass": "True",
    "jax_default_dtype_bits": "None",
}
"""The settings keyed, and JAX's default of each (as ``str`` of its value; jax 0.10 to 0.12)."""

_MISSING = object()


def jax_flags() -> str:
    """``name=value`` for every setting in ``DEFAULTS`` that is not at its default, sorted; "" if none."""
    import jax

    changed = []
    for name, default in DEFAULTS.items():
        value = getattr(jax.config, name, _MISSING)
        if value is not _MISSING and str(value) != default:
            changed.append(f"{name}={value!s}")
    return ",".join(changed)
