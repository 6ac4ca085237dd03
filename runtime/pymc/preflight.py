"""Before ``pm.sample`` samples, with ``auto``: choose (and compile) the strategies, refuse what won't fit;
candidates the choice does not need compile in the background (``aot.choice.auto_first``).

The preflight runs on a thread of its own (:class:`Preflight`). The call waits for it only until
its last transform is lowered: XLA's compile of that transform releases the GIL, so it runs
beside PyMC's initial points and the compiled sampler's lowering instead of before them. The
verdict is waited for before the first draw (:func:`settle_active`, from the compiled sampler's
seams), or at once where nothing else would sample after it (PyMC's own sampler, ``out=``).
"""

from __future__ import annotations

import contextvars
import threading
from typing import Any

from .hook_state import ACTIVE, STATE


def preflight(model: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int | None:
    """The budget fixed for this sampling call (None unless ``auto`` chooses); raises
    ``MemoryBudgetError`` before any sampling when the postprocessing cannot fit."""
    options = STATE.current()
    if options.strategy != "auto" or kwargs.get("postprocessing_vectorize") is not None:
        return None
    from ...aot.build.request import AFTER_LOWERING, resolve_device
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
    lowered = AFTER_LOWERING.get()
    for i, log_likelihood in enumerate(wanted):  # the call goes on at the last one's lowering: no PyTensor after it
        token = AFTER_LOWERING.set(lowered if i == len(wanted) - 1 else None)
        try:
            precompile_counted(model, request.replace(log_likelihood=log_likelihood), defer=True, **shape)
        finally:
            AFTER_LOWERING.reset(token)
    return budget


class Preflight:
    """:func:`preflight` for one ``pm.sample`` call, on its own thread (in a copy of the call's
    context: the call's one fingerprint walk). ``gate`` (``runtime.sampler.prefetch.Gate``, or None):
    opened for the compiled sampler's lowering once, when the last transform is lowered
    (:func:`preflight` hooks that one only) or the preflight ends; and with the verdict at its end."""

    def __init__(self, call: tuple[Any, tuple[Any, ...], dict[str, Any]], gate: Any = None) -> None:
        self._call, self._gate = call, gate
        self._lowered, self._done, self._lock = threading.Event(), threading.Event(), threading.Lock()
        self._lowering_said = False
        self._budget: int | None = None
        self._error: BaseException | None = None
        self._warned = False

    def start(self) -> None:
        """Run it on a thread (here if none can be had); return once its last transform is lowered."""
        context = contextvars.copy_context()
        thread = threading.Thread(target=context.run, args=(self._run,), name="pymc-aot-preflight", daemon=False)
        try:
            thread.start()
        except RuntimeError:  # no thread to be had: here, whole
            context.run(self._run)
        self._lowered.wait()

    def _run(self) -> None:
        from ...aot.build.request import AFTER_LOWERING

        AFTER_LOWERING.set(self._on_lowered)  # this thread's context only
        try:
            self._budget = preflight(*self._call)  # looked up when called (tests, the bench replace it)
        except BaseException as exc:  # noqa: BLE001 - handed to the call by settle()
            self._error = exc
        finally:
            from ...aot.strategies.budget import MemoryBudgetError

            try:
                self._on_lowered()
                if self._gate is not None:
                    self._gate.open(go=not isinstance(self._error, MemoryBudgetError))
            finally:
                self._done.set()

    def _on_lowered(self) -> None:
        with self._lock:
            if self._lowering_said:
                return
            self._lowering_said = True
        try:
            if self._gate is not None:
                self._gate.lower()  # the compiled sampler's lowering may start
        finally:
            self._lowered.set()  # and the call goes on

    def settle(self) -> None:
        """Wait for the verdict: ``MemoryBudgetError`` if the call is refused; any other failure is
        one warning, and the call's postprocessing runs PyMC's own path (:attr:`failed`)."""
        self._done.wait()
        from ...aot.strategies.budget import MemoryBudgetError

        if isinstance(self._error, MemoryBudgetError):
            raise self._error
        if self._error is not None and not self._warned:
            from ..transforms.fallback import warn_cached_failed

            self._warned = True
            warn_cached_failed("postprocessing", self._error)

    def join(self) -> None:
        """Wait for the thread's end, whatever the verdict (the call is over)."""
        self._done.wait()

    @property
    def budget(self) -> int | None:
        self.settle()
        return self._budget

    @property
    def failed(self) -> bool:
        self.settle()
        return self._error is not None


def begin(model: Any, args: tuple[Any, ...], kwargs: dict[str, Any], gate: Any = None) -> Preflight:
    """Start the call's preflight; return once its last transform is lowered (or it ended).
    ``gate`` (``runtime.sampler.prefetch.Gate``): opened for the compiled sampler's lowering then,
    and for its compile with the verdict."""
    run = Preflight((model, args, kwargs), gate)
    try:
        run.start()
    except BaseException:
        if gate is not None:  # never leave the prefetch thread waiting
            gate.open(go=False)
        raise
    return run


def settle_active() -> None:
    """Before the first draw: the running call's verdict (``MemoryBudgetError`` if refused)."""
    active = ACTIVE.get()
    if active is not None and active.preflight is not None:
        active.preflight.settle()
