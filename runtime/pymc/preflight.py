"""Before ``pm.sample`` samples, with ``auto``: choose (and compile) the strategies, refuse what won't fit;
candidates the choice does not need compile in the background (``aot.choice.auto_first``)."""

from __future__ import annotations

from typing import Any

from .hook_state import STATE


def preflight(model: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int | None:
    """The budget fixed for this sampling call (None unless ``auto`` chooses); raises
    ``MemoryBudgetError`` before any sampling when the postprocessing cannot fit."""
    options = STATE.current()
    if options.strategy != "auto" or kwargs.get("postprocessing_vectorize") is not None:
        return None
    from ...aot.build.request import resolve_device
    from ...aot.identity.spec import posterior_names
    from ...aot.strategies.budget import resolve_budget
    from ..transforms.engine import precompile_counted

    draws = args[0] if args else kwargs.get("draws", 1000)
    var_names = kwargs.get("var_names")
    if var_names is not None:  # PyMC ignores names it does not know; so does the preflight
        var_names = [n for n in posterior_names(model) if n in set(var_names)]
    backend = kwargs.get("postprocessing_backend")
    budget = resolve_budget(options.memory_budget, resolve_device(backend))
    wanted = [False] + ([True] if (kwargs.get("idata_kwargs") or {}).get("log_likelihood") else [])
    request = options.request_options(
        var_names=var_names,
        keep_untransformed=kwargs.get("keep_untransformed", False),
        backend=backend,
        memory_budget=budget,
    )
    shape = {"chains": kwargs.get("chains", 4), "draws": draws, "cache": options.cache_dir}
    for log_likelihood in wanted:
        precompile_counted(model, request.replace(log_likelihood=log_likelihood), defer=True, **shape)
    return budget
