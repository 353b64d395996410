"""The modules of app/ import each other as a tree: no cycles, counting imports inside functions too.

The graph is read from the source with ``ast``: every ``import`` and ``from ... import`` of an app
module, at module level or inside a function (relative ones resolved), is an edge; importing a
module also runs its packages' ``__init__``, so those are edges too, except a module's own parent
packages (already being imported when it runs). Imports under ``if TYPE_CHECKING:`` never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parent.parent / "app"

# Imports of app modules inside functions outside the core, and why each is not at the top of its module.
FUNCTION_LEVEL = {
    # the factory loads Flask and the web layer when it runs, so that importing any app module (the core,
    # the command line, the evaluation workers) does not
    ("app", "create_app"),
}


def modules(root: Path = APP) -> dict[str, Path]:
    """Every module under ``root`` by its dotted name (a package by its own name)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _imports(tree: ast.AST, scope: str = "") -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
    """Every import statement that runs, with the function it is in ("" at module level)."""
    for node in ast.iter_child_nodes(tree):
        if _is_type_checking(node):
            yield from (pair for child in node.orelse for pair in _imports(ast.Module([child], []), scope))
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, scope
        inner = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not scope else scope
        yield from _imports(node, inner)


def _targets(node: ast.Import | ast.ImportFrom, package: str, known: dict[str, Path]) -> Iterator[str]:
    """The app modules an import statement imports (with the packages that hold them)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        names = [source] + [f"{source}.{alias.name}" for alias in node.names]
    for name in names:
        parts = name.split(".")
        for i in range(1, len(parts) + 1):  # the module and each package above it
            if ".".join(parts[:i]) in known:
                yield ".".join(parts[:i])


def import_graph(root: Path = APP) -> tuple[dict[str, set[str]], list[tuple[str, str, str]]]:
    """The graph {module: modules it imports}, and the imports of app modules inside functions
    as (module, function, imported module)."""
    known = modules(root)
    graph: dict[str, set[str]] = {name: set() for name in known}
    in_functions = []
    for name, path in known.items():
        package = _package_of(name, path)
        own_packages = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        for node, scope in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            for target in _targets(node, package, known):
                if target == name or target in own_packages:
                    continue
                graph[name].add(target)
                if scope:
                    in_functions.append((name, scope, target))
    return graph, in_functions


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The modules that import each other in a circle: each strongly connected component of more than one
    module, sorted (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for start in sorted(graph):
        if start not in index:
            visit(start)
    return sorted(found)


def test_app_modules_import_each_other_without_a_cycle():
    graph, _ = import_graph()
    circles = cycles(graph)
    assert not circles, "import cycles among: " + "; ".join(", ".join(circle) for circle in circles)


def test_imports_inside_functions_outside_the_core_are_only_the_known_ones():
    _, in_functions = import_graph()
    found = {(module, function) for module, function, _ in in_functions if not module.startswith("app.vap")}
    unexpected = sorted(found - FUNCTION_LEVEL)
    assert not unexpected, f"imports of app modules inside functions: {unexpected}"


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "app" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "app"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # an import inside a function counts
        ({"__init__.py": "", "a.py": "from . import b\n", "b.py": "def f():\n    from .a import x\n"},
         [["app.a", "app.b"]]),
        # relative imports from a package, and the package's own __init__ reached through a submodule
        ({"__init__.py": "", "p/__init__.py": "from .q import y\n", "p/q.py": "from app import c\n",
          "c.py": "import app.p.q\n"},
         [["app.c", "app.p", "app.p.q"]]),
        # a module importing its own parent package is not a cycle; TYPE_CHECKING imports never run
        ({"__init__.py": "from . import a\n", "a.py": "from app import b\nfrom typing import TYPE_CHECKING\n"
          "if TYPE_CHECKING:\n    from . import c\n", "b.py": "", "c.py": "from . import a\n"},
         []),
    ],
)
def test_the_graph_finds_cycles(tmp_path, files, expected):
    graph, _ = import_graph(_write(tmp_path, files))
    assert cycles(graph) == expected
