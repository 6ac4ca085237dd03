"""Which shared variables are data, and the plain tensor each becomes in a compiled transform.

Data are shared variables holding an array: ``pm.Data`` (a tensor) and ``pymc.dims.Data``
(an ``XTensorSharedVariable``, shared but not a ``TensorVariable``; pymc-marketing declares
its data this way). Their values are runtime arguments of the executable. Random generators
and other shared state are not data.
"""

from __future__ import annotations

from typing import Any

from pytensor.compile.sharedvalue import SharedVariable
from pytensor.tensor.type import TensorType

from .trust import is_a

try:  # PyTensor >= 2.31 (both supported lines have it)
    from pytensor.xtensor.type import XTensorType
except ImportError:  # pragma: no cover - an older PyTensor without named dimensions
    XTensorType = None


def is_data(var: Any) -> bool:
    """Whether ``var`` is a shared variable holding an array (tensor or xtensor)."""
    if not is_a(var, SharedVariable):
        return False
    return isinstance(var.type, TensorType) or (XTensorType is not None and isinstance(var.type, XTensorType))


def as_argument(var: Any) -> tuple[Any, Any]:
    """``(argument, stand_in)`` for data ``var``: a fresh tensor input of its dtype and static
    shape, and what replaces ``var`` in the graph (the input itself, or for an xtensor that input
    with ``var``'s dims)."""
    if isinstance(var.type, TensorType):
        argument = var.type()
        return argument, argument
    from pytensor.xtensor.basic import xtensor_from_tensor

    argument = TensorType(var.type.dtype, shape=var.type.shape)()
    return argument, xtensor_from_tensor(argument, dims=var.type.dims)


def as_constant(var: Any) -> Any:
    """Data ``var``'s current value as a constant of its kind (tensor, or xtensor with its dims)."""
    value = var.get_value(borrow=True)
    if isinstance(var.type, TensorType):
        from pytensor.tensor import constant

        return constant(value, dtype=var.type.dtype)
    from pytensor.xtensor.type import xtensor_constant

    return xtensor_constant(value.astype(var.type.dtype, copy=False), dims=var.type.dims)
