"""The replaced-function watcher while another thread imports (issue 26's watcher, issue 22's prefetch).

``pm.sample`` loads the compiled sampler's programs in a thread (``runtime/sampler/prefetch.py``)
while the preflight fingerprints the model, whose first step scans ``sys.modules``. Iterating the
live dict let Python code run between items (a gc collection's callbacks and finalizers: JAX
registers a gc callback), and the other thread's import changed ``sys.modules`` mid-scan:
``RuntimeError: dictionary changed size during iteration``, and the whole ``pm.sample``
postprocessed on PyMC's path with a FallbackWarning (seen in CI as ``test_key_drift``'s
"compiles nothing" with no disk hit; reproduced with the child under load, 1 run in 6-8). Here a
``sys.modules`` that gains a module while it is iterated plays the other thread, deterministically.
"""

from __future__ import annotations

import sys
import types

import pytensor  # noqa: F401 - a watched package, loaded: its modules are scanned

from pymc_aot.aot.identity import replaced_functions as rf


class _ImportedMeanwhile(dict):
    """``sys.modules`` as another thread sees it: a module arrives while it is iterated."""

    def items(self):
        for i, item in enumerate(super().items()):
            if i == 3:
                self["pymc_aot_test_meanwhile"] = types.ModuleType("pymc_aot_test_meanwhile")
            yield item


def test_a_scan_survives_a_module_imported_while_it_runs(monkeypatch):
    monkeypatch.setattr(sys, "modules", _ImportedMeanwhile(sys.modules))
    monkeypatch.setattr(rf, "_seen", [0])  # scan again, as the first fingerprint of a process does
    found = rf.replaced_functions()
    assert isinstance(found, tuple)
    assert all(isinstance(name, str) for name in found)
