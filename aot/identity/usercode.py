"""Deep descriptions of user code: functions, code objects, classes and the modules they read.

A user function is what its code does with what it reads: its code objects (bytecode,
constants including nested code, names), the current values of the globals it reads and of
the module attributes it reads from them (recursively: another user function is described
the same way), its closure, ``__defaults__``, ``__kwdefaults__`` and ``__dict__``. A user
class is every attribute and method it defines, and its bases up to versioned ones.

Versioned functions (code shipped in a package whose version is in the key) are named, and
what is bound to them (closure, defaults) is still described: PyMC's ``CustomDist`` wraps the
user's ``logp`` in a closure of a PyMC function.
"""

from __future__ import annotations

import builtins
import dis
import functools
import hashlib
import sys
import types
from typing import TYPE_CHECKING, Any, NamedTuple

from .dynamic_reads import COMPUTED_NAME, DYNAMIC_LOOKUPS, computed_attribute_name
from .trust import is_versioned_class, is_versioned_function, is_versioned_module

if TYPE_CHECKING:
    from .describer import Describes as Describer  # the protocol: describe imports this module

_GLOBAL_OPS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL", "DELETE_GLOBAL"})
_ATTR_OPS = frozenset({"LOAD_ATTR", "LOAD_METHOD", "LOAD_SUPER_ATTR", "IMPORT_FROM", "STORE_ATTR"})
_CLASS_NOISE = frozenset({"__dict__", "__weakref__", "__module__", "__qualname__", "__doc__", "__firstlineno__"})


class CodeReads(NamedTuple):  # immutable and hashable as a frozen dataclass, and ~6x cheaper to define
    """Names a code object (and the code nested in it) reads as globals, attributes and imports.

    String constants that are identifiers count as both (``getattr(helper, "UPPER")``,
    ``globals()["SCALE"]``); names built at run time cannot be seen, see ``_DYNAMIC_LOOKUPS``."""

    globals: frozenset[str]
    attrs: frozenset[str]
    imports: frozenset[str]


@functools.lru_cache(maxsize=4096)
def code_reads(code: types.CodeType) -> CodeReads:
    names: set[str] = set()
    attrs: set[str] = set()
    imports: set[str] = set()
    for ins in dis.get_instructions(code):
        if ins.opname in _GLOBAL_OPS:
            names.add(str(ins.argval))
        elif ins.opname in _ATTR_OPS:
            attrs.add(str(ins.argval))
        elif ins.opname == "IMPORT_NAME":
            imports.add(str(ins.argval))
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            inner = code_reads(const)
            names |= inner.globals
            attrs |= inner.attrs
            imports |= inner.imports
        elif isinstance(const, str) and const.isidentifier():
            names.add(const)
            attrs.add(const)
    # "import a.b" reads attribute b of a; "from a import b" is IMPORT_FROM above
    attrs |= {part for name in imports for part in name.split(".")[1:]}
    if computed_attribute_name(code):
        names.add(COMPUTED_NAME)
    return CodeReads(frozenset(names), frozenset(attrs), frozenset(imports))


def _constant(const: Any) -> Any:
    if isinstance(const, types.CodeType):
        return describe_code(const)
    if isinstance(const, (tuple, frozenset)):
        items = tuple(_constant(c) for c in const)
        return (type(const).__name__, items if isinstance(const, tuple) else tuple(sorted(map(repr, items))))
    return (type(const).__name__, repr(const))


@functools.lru_cache(maxsize=4096)
def describe_code(code: types.CodeType) -> tuple[Any, ...]:
    """Everything in a code object that decides what it does (not its file, lines or name)."""
    return (
        "code",
        hashlib.sha256(code.co_code).hexdigest()[:32],
        code.co_argcount,
        code.co_posonlyargcount,
        code.co_kwonlyargcount,
        code.co_flags,
        code.co_varnames,
        code.co_names,
        code.co_freevars,
        code.co_cellvars,
        hashlib.sha256(getattr(code, "co_exceptiontable", b"")).hexdigest()[:16],
        tuple(_constant(c) for c in code.co_consts),
    )


def describe_callable(d: Describer, fn: Any) -> Any:
    if isinstance(fn, functools.partial):
        return ("partial", d.describe(fn.func), d.describe(fn.args), d.describe(fn.keywords), _fn_dict(d, fn))
    if isinstance(fn, types.MethodType):
        return ("method", d.describe(fn.__self__), d.describe(fn.__func__))
    return describe_function(d, fn)


def _fn_dict(d: Describer, fn: Any) -> Any:
    attrs = getattr(fn, "__dict__", None)
    return d.describe(dict(attrs)) if attrs else ()


def _bound(d: Describer, fn: types.FunctionType) -> tuple[Any, ...]:
    """Closure, defaults and attributes; a module among them is what ``fn``'s code reads of it."""

    def value(label: str, obj: Any) -> Any:
        if isinstance(obj, types.ModuleType):  # the code is disassembled only for a module
            return describe_module(d, obj, code_reads(fn.__code__).attrs)
        return d.labelled(label, obj)

    closure = tuple(
        (name, value(f"closure variable {name!r}", _cell(cell)))
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=True)
    )
    defaults = tuple(value("a default", v) for v in fn.__defaults__ or ())
    kwdefaults = tuple((k, value(f"default of {k!r}", v)) for k, v in sorted((fn.__kwdefaults__ or {}).items()))
    return (closure, defaults, kwdefaults, _fn_dict(d, fn))


_EMPTY_CELL = ("empty-cell",)


def _cell(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:
        return _EMPTY_CELL


def describe_function(d: Describer, fn: types.FunctionType) -> Any:
    if is_versioned_function(fn):
        return ("vfunction", fn.__module__, fn.__qualname__, _bound(d, fn))
    where = f"{fn.__qualname__} ({fn.__code__.co_filename}:{fn.__code__.co_firstlineno})"
    d.state.path.append(where)
    try:
        reads = code_reads(fn.__code__)
        return ("function", fn.__qualname__, describe_code(fn.__code__), _globals(d, fn, reads), _bound(d, fn))
    finally:
        d.state.path.pop()


def _globals(d: Describer, fn: types.FunctionType, reads: CodeReads) -> tuple[Any, ...]:
    dynamic = sorted(DYNAMIC_LOOKUPS & (reads.globals | reads.attrs))
    if dynamic:
        return (d.unsure(fn, f"looks names up at run time ({', '.join(dynamic)})"),)
    out = []
    namespace = fn.__globals__
    fn_builtins = getattr(fn, "__builtins__", builtins.__dict__)
    if isinstance(fn_builtins, types.ModuleType):
        fn_builtins = vars(fn_builtins)
    for name in sorted(reads.globals):
        if name in namespace:
            out.append((name, _global_value(d, name, namespace[name], reads.attrs)))
        elif name in fn_builtins:
            # by value: a name injected into builtins is as much an input as a global
            out.append((name, d.labelled(f"builtin {name!r}", fn_builtins[name])))
        else:
            out.append((name, ("unbound",)))
    for module in sorted(reads.imports):
        top = module.partition(".")[0]
        found = sys.modules.get(top)
        if found is None:
            out.append((module, d.unsure(module, f"imports {module!r}, which is not imported yet")))
        else:
            out.append((module, describe_module(d, found, reads.attrs)))
    return tuple(out)


def _versioned_singletons() -> dict[int, str]:
    """Module-level objects of versioned packages that user code reads attributes of, by identity."""
    import pytensor

    return {id(pytensor.config): "pytensor.config"}


def _global_value(d: Describer, name: str, value: Any, attrs: frozenset[str]) -> Any:
    d.state.path.append(f"global {name!r}")
    try:
        if isinstance(value, types.ModuleType):
            return describe_module(d, value, attrs)
        singleton = _versioned_singletons().get(id(value))
        if singleton is not None:
            return ("singleton", singleton, _plain_attributes(value, attrs))
        return d.describe(value)
    finally:
        d.state.path.pop()


def describe_module(d: Describer, module: types.ModuleType, attrs: frozenset[str]) -> Any:
    """A module as far as code reading ``attrs`` of it can see: those attributes' current values."""
    memo = d.module_views
    key = (id(module), attrs)
    if key in memo:
        return memo[key]
    memo[key] = ("cycle-module", module.__name__)
    namespace = vars(module)
    versioned = is_versioned_module(module.__name__)
    if not versioned and "__getattr__" in namespace:
        out = d.unsure(module, f"module {module.__name__} computes its attributes (__getattr__)")
    elif "__dict__" in attrs:  # module.__dict__[name]: which names is not static
        out = d.unsure(module, f"reads module {module.__name__} through its __dict__")
    else:
        out = ("module", module.__name__, tuple(
            (a, _attribute(d, module, a, namespace[a], attrs, versioned)) for a in sorted(attrs) if a in namespace
        ))
    memo[key] = out
    return out


def _attribute(d: Describer, module: Any, name: str, value: Any, attrs: frozenset[str], versioned: bool) -> Any:
    if isinstance(value, types.ModuleType):
        return describe_module(d, value, attrs)
    if versioned and not isinstance(value, type) and is_versioned_class(type(value)) and hasattr(value, "__dict__"):
        # a versioned module's singleton (pytensor.config, numpy's global RandomState): its
        # code is versioned; only the attributes user code reads from it are its input
        return ("singleton", type(value).__qualname__, _plain_attributes(value, attrs))
    d.state.path.append(f"{module.__name__}.{name}")
    try:
        return d.describe(value)
    finally:
        d.state.path.pop()


def _plain_attributes(obj: Any, attrs: frozenset[str]) -> tuple[Any, ...]:
    out = []
    for name in sorted(attrs):
        try:
            value = getattr(obj, name)
        except Exception:  # noqa: BLE001 - a missing or failing attribute is not read
            continue
        if isinstance(value, (type(None), bool, int, float, complex, str, bytes)):
            out.append((name, type(value).__name__, value))
    return tuple(out)


def describe_class(d: Describer, cls: type) -> Any:
    if is_versioned_class(cls):
        return ("class", cls.__module__, cls.__qualname__)
    d.state.path.append(f"class {cls.__qualname__}")
    try:
        meta = type(cls)
        body = tuple(
            (name, _class_attribute(d, value))
            for name, value in sorted(vars(cls).items())
            if name not in _CLASS_NOISE and not (name == "_abc_impl" and type(value).__module__ == "_abc")
        )
        return (
            "uclass",
            cls.__qualname__,
            tuple(d.describe(b) for b in cls.__bases__),
            d.describe(meta) if meta is not type else (),
            body,
        )
    finally:
        d.state.path.pop()


def _class_attribute(d: Describer, value: Any) -> Any:
    if isinstance(value, types.MemberDescriptorType):
        return ("slot", value.__name__)
    if isinstance(value, types.GetSetDescriptorType):
        return ("getset", value.__name__)
    return d.describe(value)
