"""InferenceData over both ArviZ lines: 0.x (PyMC 5) and 1.x (PyMC 6, an ``xarray.DataTree``)."""

from __future__ import annotations

from typing import Any


def from_dict(groups: dict[str, Any], **kwargs: Any) -> Any:
    """``az.from_dict``: ArviZ 0.x takes each group as a keyword, ArviZ 1.x one dict of groups."""
    import arviz as az

    if int(az.__version__.split(".")[0]) >= 1:
        return az.from_dict(groups, **kwargs)
    return az.from_dict(**groups, **kwargs)


def group_names(idata: Any) -> set[str]:
    """The group names: ArviZ 0.x's ``groups()``, the children of ArviZ 1.x's DataTree."""
    groups = getattr(idata, "groups", None)
    if callable(groups):
        return set(groups())
    return set(idata.children)
