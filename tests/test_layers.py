"""The import graph of pymc_aot's own modules, read from the source: no circles, rooms one way.

Layers: cache <- aot <- runtime (and the CLI in runtime). cache/ imports neither aot/ nor
runtime/ nor jax/pymc; aot/ never imports runtime/. Inside aot/ and runtime/, each subpackage
(a room, see ROOMS) imports only its own room and the rooms below it. Imports inside
functions count (a lazy import is still a dependency); imports under ``if TYPE_CHECKING:``
count for the layers and rooms, and no circle may close even through them.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = {"jax", "jaxlib", "pymc", "pytensor", "numpyro"}
ROOMS = (
    ("pymc_aot.lazy",),
    ("pymc_aot.cache",),
    ("pymc_aot.render", "pymc_aot.plot", "pymc_aot.examples"),  # display helpers over the cache
    ("pymc_aot.aot.compat",),  # PyMC 5 / 6 differences: a leaf
    ("pymc_aot.aot.strategies",),  # how draws are run, the memory budget
    ("pymc_aot.aot.identity",),  # the model hash and the key (the key names the strategy)
    ("pymc_aot.aot.predictive",),  # the posterior predictive's forward graph and per-draw keys
    ("pymc_aot.aot.build",),  # request -> graph -> compiled, stored entry
    ("pymc_aot.aot.choice",),  # resolve, auto and its fits, compare
    ("pymc_aot.aot.sampler",),  # the NUTS sampler as stored programs (init, chunk)
    ("pymc_aot.aot",),  # aot/__init__.py: the lazy facade over its rooms
    ("pymc_aot.runtime.streams",),  # batches of draws through a transform, the Zarr sink
    ("pymc_aot.runtime.transforms",),  # the in-process transform cache, postprocess()
    ("pymc_aot.runtime.predictive",),  # posterior_predictive() and its pm.sample_posterior_predictive seam
    ("pymc_aot.runtime.pymc", "pymc_aot.runtime.sampler"),  # PyMC's seams: enable(), the compiled sampler it runs
    ("pymc_aot.runtime.cli",),  # the pymc-aot command
    ("pymc_aot.runtime",),  # runtime/__init__.py: the lazy facade
    ("pymc_aot", "pymc_aot.__main__"),  # the top facade and ``python -m pymc_aot`` (named exactly)
)
"""Rooms, lowest first: a module imports only its own room and the rooms before it."""


def _modules() -> dict[str, Path]:
    """Module name -> file, from pyproject's packages and package-dir (the layout the wheel installs)."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    package_dir = setuptools["package-dir"]
    found = {}
    for package in setuptools["packages"]:
        mapped = max((p for p in package_dir if package == p or package.startswith(f"{p}.")), key=len)
        folder = Path(package_dir[mapped], *package[len(mapped) :].split(".")[1:])
        for path in sorted((ROOT / folder).glob("*.py")):
            found[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return found


MODULES = _modules()


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, typing_only: bool = False) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement, and whether it only runs for type checkers."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, typing_only
        else:
            inner = typing_only or (isinstance(node, ast.If) and _is_type_checking(node))
            yield from _imports(node, inner)


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    """Absolute names an import statement loads (our modules, and third-party top-level names)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    package = module if MODULES[module].stem == "__init__" else module.rpartition(".")[0]
    if node.level:
        base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
        source = f"{base}.{node.module}" if node.module else base
    else:
        source = node.module or ""
    return {source} | {f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in MODULES}


def _with_packages(name: str, importer: str) -> set[str]:
    """``name`` and the packages above it that importing it runs (those above ``importer`` ran already)."""
    parts = name.split(".")
    above = {".".join(parts[:i]) for i in range(1, len(parts))}
    own = {".".join(importer.split(".")[:i]) for i in range(1, importer.count(".") + 1)}
    return ({name} | above) - own - {importer}


def import_graph(include_typing: bool) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        edges: set[str] = set()
        for node, typing_only in _imports(ast.parse(path.read_text(), str(path))):
            if typing_only and not include_typing:
                continue
            for target in _targets(module, node):
                edges |= _with_packages(target, module)
        graph[module] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle among the graph's own nodes, as a path, or None."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in graph:
                continue
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_graph_is_read():
    graph = import_graph(include_typing=False)
    assert {"pymc_aot.aot.build.request", "pymc_aot.cache.entry", "pymc_aot.runtime.transforms.engine"} <= set(graph)
    assert "pymc_aot.aot.choice.resolve" in graph["pymc_aot.runtime.transforms.transform_cache"]
    assert "pymc_aot.aot.build.compiler" in graph["pymc_aot.aot.build.entries"]  # from . import compiler
    assert "pymc_aot.aot" in graph["pymc_aot.runtime.transforms.transform_cache"]  # the package a submodule import runs


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "x"}, "b": {"c"}, "c": set()}) is None


@pytest.mark.parametrize("include_typing", [False, True], ids=["run-time", "type-checking"])
def test_no_import_circles(include_typing):
    cycle = find_cycle(import_graph(include_typing=include_typing))
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def room_of(module: str) -> int:
    """The rank of ``module``'s room in ROOMS (the longest prefix that names it)."""
    ranks = [
        (len(p), i)
        for i, room in enumerate(ROOMS)
        for p in room
        if module == p or (p != "pymc_aot" and module.startswith(p + "."))
    ]
    if not ranks:
        raise LookupError(f"{module} is in no room of ROOMS (declare a new subpackage there)")
    return max(ranks)[1]


def room_violations(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """Edges from a module to one of our modules in a higher room."""
    ours = set(MODULES)
    return {(m, t) for m, targets in graph.items() for t in targets if t in ours and room_of(t) > room_of(m)}


def test_every_module_has_a_room():
    assert all(room_of(m) >= 0 for m in MODULES)
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    declared = {p for room in ROOMS for p in room}
    assert set(packages) - {"pymc_aot.cache"} <= declared | {"pymc_aot"}, "a package without a room"


def test_rooms_point_one_way():
    wrong = room_violations(import_graph(include_typing=True))
    assert not wrong, "imports into a higher room: " + ", ".join(f"{m} -> {t}" for m, t in sorted(wrong))


def test_an_import_into_a_higher_room_is_caught():
    graph = import_graph(include_typing=True)
    graph["pymc_aot.aot.identity.key"] = graph["pymc_aot.aot.identity.key"] | {"pymc_aot.aot.build.request"}
    graph["pymc_aot.runtime.streams.streaming"] = graph["pymc_aot.runtime.streams.streaming"] | {
        "pymc_aot.runtime.transforms.engine"
    }
    assert room_violations(graph) == {
        ("pymc_aot.aot.identity.key", "pymc_aot.aot.build.request"),
        ("pymc_aot.runtime.streams.streaming", "pymc_aot.runtime.transforms.engine"),
    }
    with pytest.raises(LookupError, match="in no room"):
        room_of("pymc_aot.nowhere")


@pytest.mark.parametrize(
    ("layer", "forbidden"),
    [
        ("pymc_aot.cache", ("pymc_aot.aot", "pymc_aot.runtime", *sorted(HEAVY))),
        ("pymc_aot.aot", ("pymc_aot.runtime",)),
    ],
)
def test_layers_point_one_way(layer, forbidden):
    graph = import_graph(include_typing=True)
    wrong = {
        (module, target)
        for module, targets in graph.items()
        if module == layer or module.startswith(layer + ".")
        for target in targets
        if any(target == f or target.startswith(f + ".") for f in forbidden)
    }
    assert not wrong, f"{layer} must not import {forbidden}: {sorted(wrong)}"
