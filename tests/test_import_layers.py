"""Every module stands above what it uses: no import circles, in Python or in the page.

A circle makes each module of it load half-made (in Python, a name read at import time may
not exist yet; in the browser, a module's top level runs before the one it imports from has
finished), and it blurs which module is the lower one. The Python check reads every import a
module makes, those for type checking and those inside functions too; the page's check reads
each ES module's static imports.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("protocol", "server", "client")
PAGE = ROOT / "server" / "web" / "static" / "js"
JS_IMPORT = re.compile(r'^(?:import|export)\b[^;]*?\bfrom\s+"\./([\w.]+\.js)"', re.M | re.S)


def circles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The graph's strongly connected parts of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(tree: ast.Module, name: str, is_package: bool) -> set[str]:
    """Every module a module imports, wherever: at its top, under TYPE_CHECKING (a circle of
    types is still a circle of ideas) and inside functions."""
    found: set[str] = set()
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            # `from package import module` imports the module
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def python_graph() -> dict[str, set[str]]:
    files = {
        _module_name(path): path for package in PACKAGES for path in (ROOT / package).rglob("*.py")
    }
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = _imports(tree, name, path.name == "__init__.py")
        graph[name] = {module for module in imported if module in files and module != name}
    return graph


def page_graph() -> dict[str, set[str]]:
    return {
        path.name: set(JS_IMPORT.findall(path.read_text(encoding="utf-8")))
        for path in PAGE.glob("*.js")
    }


def test_the_circle_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_page_reads_its_imports() -> None:
    graph = page_graph()
    assert "app.js" in graph and "page.js" in graph["app.js"]


def test_no_python_module_imports_itself_round_a_circle() -> None:
    graph = python_graph()
    assert "protocol.cards" in graph["protocol.plays"]
    assert circles(graph) == []


def test_no_page_module_imports_itself_round_a_circle() -> None:
    assert circles(page_graph()) == []
