"""The import graph of pymc_aot's own modules, read from the source: no circles, layers one way.

Layers: cache <- aot <- runtime (and the CLI in runtime). cache/ imports neither aot/ nor
runtime/ nor jax/pymc; aot/ never imports runtime/. Imports inside functions count (a lazy
import is still a dependency); imports under ``if TYPE_CHECKING:`` count for the layers only.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = {"jax", "jaxlib", "pymc", "pytensor", "numpyro"}


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


def test_no_import_circles():
    cycle = find_cycle(import_graph(include_typing=False))
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


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
