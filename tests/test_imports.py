"""Imports go one way and close no cycle: engine <- workbench <- app.py, every import counted
(those inside functions too, which hide a cycle from Python until the function runs)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the modules of the project it imports anywhere in its text (``from P import N``
    counts as an import of ``P.N`` when that is a module, else of ``P``)."""
    files = sorted([*(root / "engine").rglob("*.py"), *(root / "workbench").rglob("*.py"), root / "app.py"])
    modules = {module_name(f, root): f for f in files}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            graph[name] |= {t for t in targets if t in modules and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_back_into_a_cycle():
    assert cycles(import_graph()) == []


def test_the_engine_never_imports_the_workbench_or_the_app():
    bad = [(m, t) for m, targets in import_graph().items() if m.split(".")[0] == "engine"
           for t in targets if t.split(".")[0] in ("workbench", "app")]
    assert bad == []


def test_the_cycle_finder_finds_a_cycle_hidden_in_a_function(tmp_path):
    for pkg in ("engine", "workbench"):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
    (tmp_path / "app.py").write_text("import workbench.a\n")
    (tmp_path / "workbench" / "a.py").write_text("from workbench.b import f\n")
    (tmp_path / "workbench" / "b.py").write_text("def f():\n    from workbench import a\n    return a\n")
    assert cycles(import_graph(tmp_path)) == [["workbench.a", "workbench.b"]]
