"""Where PyMC 5 / PyTensor 2 and PyMC 6 / PyTensor 3 differ, and nowhere else.

Each name says what differs, which release changed it, and how; the rest of the code uses
these names instead of checking versions. Checked as identical on both lines (no shim
needed): ``jax.experimental.serialize_executable`` (``serialize`` and
``deserialize_and_load(..., backend=, execution_devices=)``), ``Compiled.memory_analysis()``
and ``cost_analysis()`` (jax 0.10 and 0.12), ``pytensor.graph.traversal`` (pytensor 2.38 and
3.x), and the seams of ``pymc.sampling.jax`` that ``runtime.pymc.pymc_hooks`` replaces.
"""

from __future__ import annotations

from typing import Any

from pytensor.graph.fg import FunctionGraph

try:  # PyTensor 3.0: ops keep their inner graph as an immutable, globally interned
    # FrozenFunctionGraph, which is not a FunctionGraph subclass.
    from pytensor.graph.fg import FrozenFunctionGraph
except ImportError:  # PyTensor 2.x: inner graphs are plain FunctionGraphs
    INNER_GRAPH_TYPES: tuple[type, ...] = (FunctionGraph,)
else:
    INNER_GRAPH_TYPES = (FunctionGraph, FrozenFunctionGraph)

# PyTensor 3.0's OpFromGraph (PyMC's SymbolicRandomVariable, AR, ...) fills these attributes
# on first use (connection_pattern, infer_shape, __eq__). They describe gradients and shapes,
# never the forward result; describing them would make a model's fingerprint depend on what
# was done with the model before. The lop/rop caches of PyTensor 2.x are listed as well.
LAZY_OP_ATTRIBUTES = frozenset(
    {
        "_connection_pattern",
        "_inner_shape_template",
        "_inner_shape_frozen",
        "_frozen_lop",
        "_frozen_rop",
        "_lop_op_cache",
        "_rop_op_cache",
    }
)


def is_inner_graph(obj: Any) -> bool:
    """Whether ``obj`` is an op's inner graph (a FunctionGraph, or PyTensor 3's frozen one)."""
    mro = type(obj).__mro__  # by the MRO: isinstance against ABCs is slow on new types
    return any(t in mro for t in INNER_GRAPH_TYPES)


def pymc_major() -> int:
    """PyMC's major version (5 or 6)."""
    import pymc

    return int(str(pymc.__version__).split(".")[0])


def freezes_trace_variables() -> bool:
    """Whether ``pm.sample_posterior_predictive`` keeps every random variable the trace holds
    unless ``sample_vars`` names it (PyMC 6, PR 8209: volatility stops at trace variables, and
    an output held by the trace is copied from it). PyMC 5.x draws afresh any variable in
    ``var_names`` and any that depends on changed data or on a variable drawn afresh."""
    return pymc_major() >= 6


def sampler_options(options: dict[str, Any]) -> dict[str, Any]:
    """``pm.sample`` keywords carrying ``options`` to the JAX sampler driver
    (``keep_untransformed``, ``chain_method``, ``postprocessing_backend``, ...).

    PyMC 6.0 refuses them as top-level keywords and deprecates ``nuts_sampler_kwargs``:
    they go in ``nuts={...}``, from which ``sample_jax_nuts``'s own options are lifted.
    PyMC 5.x takes them in ``nuts_sampler_kwargs`` (its ``nuts=`` reaches only PyMC's NUTS).
    """
    return {"nuts": dict(options)} if pymc_major() >= 6 else {"nuts_sampler_kwargs": dict(options)}


def inference_groups(idata: Any) -> dict[str, Any]:
    """The groups of a ``pm.sample`` result as ``{name: xarray.Dataset}``.

    ArviZ 1.0 (PyMC 6) returns an ``xarray.DataTree``: ``groups`` is a tuple of paths and the
    root is a group too. ArviZ 0.x (PyMC 5) returns ``InferenceData``, whose ``groups()`` is a
    method listing names.
    """
    groups = getattr(idata, "groups", None)
    if callable(groups):  # ArviZ 0.x InferenceData
        return {name: idata[name] for name in groups()}
    return {name: child.to_dataset() for name, child in idata.children.items()}


def replace_group(idata: Any, name: str, dataset: Any) -> None:
    """Put ``dataset`` in place of ``idata``'s group ``name``: an attribute of ArviZ 0.x's
    ``InferenceData``, a child node of ArviZ 1.0's ``xarray.DataTree`` (PyMC 6)."""
    if callable(getattr(idata, "groups", None)):  # ArviZ 0.x InferenceData
        setattr(idata, name, dataset)
    else:
        idata[name] = dataset


def constant_coords(trace_coords: dict[str, Any], model: Any) -> set[str]:
    """The dims whose coordinates are as inference saw them (``trace_coords``): those a
    posterior predictive keeps as given rather than drawn afresh.

    PyMC 5.x names this ``pymc.sampling.forward.get_constant_coords``. PyMC 6.x dropped it: its
    ``_build_constant_data`` keeps a dim's shared length as trace-time data when the labels
    match the model's (or, for a dim declared by length only, when the length does); that rule
    is applied here.
    """
    try:
        from pymc.sampling.forward import get_constant_coords
    except ImportError:  # PyMC 6
        pass
    else:
        return set(get_constant_coords(trace_coords, model))
    import numpy as np
    from pytensor.compile.sharedvalue import SharedVariable

    found = set()
    for dim, coord in trace_coords.items():
        length = model.dim_lengths.get(dim)
        if not isinstance(length, SharedVariable):
            continue
        current = model.coords.get(dim)
        if current is None:
            same = int(length.get_value()) == len(coord)
        else:
            same = len(current) == len(coord) and bool(np.all(np.asarray(current) == np.asarray(coord)))
        if same:
            found.add(dim)
    return found


def extend_inference(idata: Any, other: Any) -> None:
    """Add ``other``'s groups to ``idata`` as ``sample_posterior_predictive(extend_inferencedata=True)``
    does: ArviZ 0.x's ``InferenceData.extend`` (PyMC 5); ``DataTree.update`` (PyMC 6), warning
    first, as PyMC 6 does, when a group other than observed/constant data is overwritten."""
    if callable(getattr(idata, "extend", None)):  # ArviZ 0.x InferenceData
        idata.extend(other)
        return
    import warnings

    conflicting = (set(idata.children) & set(other.children)) - {"observed_data", "constant_data"}
    if conflicting:
        warnings.warn(
            f"groups {conflicting} already exist in the DataTree and will be overwritten. "
            "To avoid this, set extend_inferencedata=False.",
            UserWarning,
            stacklevel=3,
        )
    idata.update(other)
