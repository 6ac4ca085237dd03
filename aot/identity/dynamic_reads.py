"""Reads that no static read set can show, found in a code object; such code is keyed on its lowered program.

A user function is described by what it reads (``aot.usercode``): names it loads, attributes it
reads, modules it imports. That is exact only when every read is static. The names here mark
reads that are not: names looked up from strings computed at run time (``getattr(mod, name)``,
``globals()[...]``, ``operator.attrgetter``), the process environment (``os.environ``,
``os.getenv``) and a shared variable's current value (``shared.get_value()`` in a ``logp``: the
value is an executable argument, the read bakes it in as a constant).
"""

from __future__ import annotations

import dis
import types

_GLOBAL_OPS = frozenset({"LOAD_GLOBAL", "LOAD_NAME"})
COMPUTED_NAME = "<computed attribute name>"
"""Added to a code object's read names when ``getattr``/``hasattr`` gets a name that is not a constant."""

DYNAMIC_LOOKUPS = frozenset({
    COMPUTED_NAME,
    "eval", "exec", "compile", "globals", "locals", "vars", "__import__", "import_module",  # names from strings
    "__builtins__", "attrgetter", "methodcaller",  # attributes by computed names (module.__dict__: below)
    "environ", "environb", "getenv", "getenvb", "putenv",  # the process environment
    "get_value", "set_value",  # a shared variable's value read outside the graph (it is an argument)
})
"""Names whose use means the code reads something no static read set can show: names looked up
from strings computed at run time, the environment, a shared variable's current value."""
_NAME_LOOKUPS = frozenset({"getattr", "hasattr"})
"""Builtins taking an attribute name: static only when the name is a constant string."""
_SKIPPED = frozenset({"PRECALL", "CACHE", "KW_NAMES", "PUSH_NULL"})


def computed_attribute_name(code: types.CodeType) -> bool:
    """Whether ``getattr``/``hasattr`` is called (or passed on) with a name that is not a constant
    string right before the call: ``getattr(obj, "A")`` and ``getattr(obj, "A", None)`` are static."""
    ins = [i for i in dis.get_instructions(code) if i.opname not in _SKIPPED]
    for n, i in enumerate(ins):
        if i.opname not in _GLOBAL_OPS or i.argval not in _NAME_LOOKUPS:
            continue
        call = next((m for m in range(n + 1, len(ins)) if ins[m].opname.startswith("CALL")), None)
        if call is None or ins[call].arg not in (2, 3):
            return True
        name_at = call - 1 if ins[call].arg == 2 else call - 2
        named = ins[name_at]
        if named.opname != "LOAD_CONST" or not isinstance(named.argval, str) or name_at <= n + 1:
            return True
    return False
