"""Turn user samples into the executable's arguments, or say clearly what is wrong."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...aot.identity.fingerprint import ModelFingerprint
from ...aot.identity.key import Signature


class SampleError(ValueError):
    """Samples that do not fit the model: the message names the variable and the mismatch."""


def _as_array(x: Any, label: str) -> Any:
    """``x`` if it is an array (numpy, JAX, ...), else ``np.asarray(x)`` (nested lists); a ragged
    or non-numeric value is refused naming it."""
    if getattr(x, "shape", None) is not None and getattr(x, "dtype", None) is not None:
        return x
    try:
        array = np.asarray(x)
    except (ValueError, TypeError) as exc:
        raise SampleError(f"{label}: expected an array (chains, draws, ...), got {type(x).__name__}: {exc}") from None
    if array.dtype.kind not in "biuf":
        raise SampleError(f"{label}: expected numbers (chains, draws, ...), got {type(x).__name__} of {array.dtype}")
    return array


def _shape_dtype(x: Any) -> tuple[tuple[int, ...], np.dtype]:
    return tuple(int(s) for s in x.shape), np.dtype(x.dtype)


def order_samples(samples: Sequence[Any] | Mapping[str, Any], fp: ModelFingerprint) -> list[Any]:
    """Samples in ``model.value_vars`` order, from a list in that order or a dict by name."""
    names = fp.value_names
    if isinstance(samples, Mapping):
        unknown = [k for k in samples if k not in names]
        missing = [n for n in names if n not in samples]
        if unknown or missing:
            parts = []
            if unknown:
                parts.append(f"unknown name(s) {unknown}")
            if missing:
                parts.append(f"missing value variable(s) {missing}")
            raise SampleError(f"samples: {'; '.join(parts)}; expected exactly {list(names)}")
        return [samples[n] for n in names]
    if isinstance(samples, (str, bytes)) or not isinstance(samples, Sequence):
        raise SampleError(
            f"samples: expected a list in value-variable order or a dict by name, got {type(samples).__name__}"
        )
    if len(samples) != len(names):
        raise SampleError(
            f"samples: expected {len(names)} arrays, one per value variable {list(names)}, got {len(samples)}"
        )
    return list(samples)


def check_samples(
    arrays: list[Any],
    fp: ModelFingerprint,
    static_shapes: Sequence[tuple[int | None, ...]],
) -> tuple[list[Any], Signature]:
    """Check ranks, known dims, dtypes and chains/draws; cast lossless dtypes.

    float32 samples for a float64 variable (and integers that fit) are cast; anything
    that would lose precision, such as float64 samples for a float32 model, is refused.
    """
    if not arrays:
        raise SampleError("samples: the model has no free variables to postprocess")
    return check_arrays(arrays, fp.value_names, fp.value_dtypes, static_shapes, "samples")


def pick_constrained(posterior: Mapping[str, Any], names: Sequence[str]) -> list[Any]:
    """The arrays of the free variables ``names`` from ``posterior`` (other entries are ignored)."""
    if not isinstance(posterior, Mapping):
        raise SampleError(f"posterior: expected a mapping from variable name to array, got {type(posterior).__name__}")
    if not names:
        raise SampleError("posterior: the model has no free variables")
    missing = [n for n in names if n not in posterior]
    if missing:
        raise SampleError(
            f"posterior: missing free variable(s) {missing}; expected one array per free variable "
            f"{list(names)}, got {sorted(map(str, posterior))}"
        )
    return [posterior[n] for n in names]


def check_arrays(
    arrays: Sequence[Any],
    names: Sequence[str],
    dtypes: Sequence[str],
    static_shapes: Sequence[tuple[int | None, ...]],
    what: str,
) -> tuple[list[Any], Signature]:
    """Check each ``(chains, draws, *shape)`` array against its input; ``what`` names them in errors."""
    out: list[Any] = []
    sig = []
    lead: tuple[int, int] | None = None
    lead_name = ""
    for name, expected_dtype, static, x in zip(names, dtypes, static_shapes, arrays, strict=True):
        label = f"{what}[{name!r}]"
        x = _as_array(x, label)
        shape, dtype = _shape_dtype(x)
        want_ndim = 2 + len(static)
        expected_text = f"(chains, draws{''.join(', ' + ('?' if s is None else str(s)) for s in static)})"
        if len(shape) != want_ndim:
            raise SampleError(f"{label}: expected {want_ndim} dimensions {expected_text}, got shape {shape}")
        if any(s is not None and s != got for s, got in zip(static, shape[2:], strict=True)):
            raise SampleError(f"{label}: expected shape {expected_text}, got {shape}")
        if lead is None:
            lead, lead_name = (shape[0], shape[1]), name
        elif shape[:2] != lead:
            raise SampleError(
                f"{label}: chains x draws {shape[0]} x {shape[1]} does not match "
                f"{lead[0]} x {lead[1]} of {lead_name!r}"
            )
        if shape[0] < 1:
            raise SampleError(f"{label}: need at least one chain, got shape {shape}")
        want = np.dtype(expected_dtype)
        if dtype != want:
            if not np.can_cast(dtype, want, casting="safe"):
                raise SampleError(
                    f"{label}: expected dtype {want} (the model's), got {dtype}, which "
                    f"cannot be cast without loss; convert it explicitly with .astype({str(want)!r})"
                )
            x = x.astype(want) if hasattr(x, "astype") else np.asarray(x, dtype=want)
        out.append(x)
        sig.append((name, shape, str(want)))
    return out, tuple(sig)


def check_full_shapes(sig: Signature, expected: Signature, what: str = "samples") -> None:
    """Compare per-draw shapes with the model's (used before compiling, never on a hit)."""
    for (name, got, _), (_, want, _) in zip(sig, expected, strict=True):
        if tuple(got[2:]) != tuple(want[2:]):
            raise SampleError(
                f"{what}[{name!r}]: expected shape (chains, draws, {', '.join(map(str, want[2:]))}), got {tuple(got)}"
            )
