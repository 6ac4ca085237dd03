"""The shapes of a model's value variables without compiling its initial point.

``model.initial_point()`` compiles a PyTensor function with the C linker (its first use in a
process imports setuptools and builds C thunks: seconds on a loaded machine) only to read
shapes. Here the shape graphs alone -- of each free RV, through its transform's ``forward``
where it has one -- run on PyTensor's Python linker after shape inference, which mostly
reduces them to constants. Anything unexpected falls back to the initial point.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def value_shapes(model: Any) -> list[tuple[int, ...]]:
    """``(shape of each value variable)`` in ``model.free_RVs`` order."""
    try:
        return _from_shape_graphs(model)
    except Exception:  # noqa: BLE001 - an unusual transform or RV: the slow, sure way
        point = model.initial_point()
        return [tuple(np.shape(point[model.rvs_to_values[rv].name])) for rv in model.free_RVs]


def _from_shape_graphs(model: Any) -> list[tuple[int, ...]]:
    import pytensor
    from pytensor.compile.mode import Mode

    shapes = []
    for rv in model.free_RVs:
        transform = model.rvs_to_transforms.get(rv)
        value = rv if transform is None else transform.forward(rv, *rv.owner.inputs)
        shapes.append(value.shape)
    fn = pytensor.function([], shapes, mode=Mode(linker="py", optimizer="fast_run"), on_unused_input="ignore")
    return [tuple(int(s) for s in shape) for shape in fn()]
