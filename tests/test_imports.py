"""Imports go one way and close no cycle: engine <- workbench.declarations <- the rest of workbench
<- app.py, every import counted (those inside functions too, which hide a cycle from Python until the
function runs). The engine's subpackages close no cycle among themselves either, and the engine
names nothing of the app: no widget kind, widget label, tooltip, icon, session state or page script."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
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


#: The layers, lowest first: a module imports from its own layer and the layers below only.
LAYERS = ("engine", "workbench.declarations", "workbench", "app")


def layer(module: str) -> int:
    """The index in :data:`LAYERS` of ``module``'s layer (the most specific prefix that names it)."""
    names = [name for name in LAYERS if module == name or module.startswith(name + ".")]
    return LAYERS.index(max(names, key=len))


def against_the_order(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """The imports ``(module, target)`` of a higher layer by a lower one."""
    return sorted((m, t) for m, targets in graph.items() for t in targets if layer(t) > layer(m))


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph of the engine folded into its subpackages (``engine.trees.spec`` ->
    ``engine.trees``; a top-level module such as ``engine.errors`` stays itself), without self-loops."""
    def fold(m: str) -> str:
        return ".".join(m.split(".")[:2])

    out: dict[str, set[str]] = {}
    for m, targets in graph.items():
        if m.split(".")[0] == "engine" and m != "engine":
            out.setdefault(fold(m), set()).update(
                fold(t) for t in targets if t.split(".")[0] == "engine" and t != "engine" and fold(t) != fold(m))
    for targets in list(out.values()):
        for t in targets:
            out.setdefault(t, set())
    return out


def test_imports_follow_the_layer_order():
    assert against_the_order(import_graph()) == []


def test_the_engine_subpackages_close_no_cycle():
    """Counting function-local imports: ``engine.trees`` below ``engine.cover``, ``engine.networks``
    below ``engine.inference``, and so on; each pair one way only."""
    assert cycles(package_graph(import_graph())) == []


def test_the_declarations_load_no_ui():
    """Importing every module of the app's declarations (as the lesson checker does) loads neither
    Streamlit nor Plotly nor any other module of ``workbench``."""
    code = ("import importlib, pkgutil, sys, workbench.declarations as d\n"
            "for m in pkgutil.walk_packages(d.__path__, 'workbench.declarations.'):\n"
            "    importlib.import_module(m.name)\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly') or\n"
            "       (m.startswith('workbench.') and not m.startswith('workbench.declarations'))]\n"
            "assert not bad, bad\n"
            "assert 'workbench.declarations.page_table' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


#: What the engine must not name (the app's words), each with a pattern over its source text.
APP_WORDS = {
    "a widget kind": r"\b(SLIDER|SELECT_SLIDER|CHECKBOX|TOGGLE|RADIO|TABS)\b"
                     r"|[\"'](slider|select_slider|radio|toggle|checkbox|tabs|selectbox|number_input)[\"']",
    "a widget's label": r"\blabel=[\"']",
    "a tooltip": r"\btooltip=",
    "a Material icon": r":material/",
    "session state": r"session[_ -]state|\bst\.(session_state|query_params|error|cache_data|cache_resource)\b",
    "a page script": r"workbench/pages",
    "a module of the app": r"\bworkbench\.[a-z_]",
    "a widget": r"\bwidgets?\b",
    # a page of the app (a memory page, "4 KB pages", "a page boundary", or an HTML page is not one)
    "a page": r"(?<!KB )(?<!huge )(?<!HTML )\bpages?\b(?! boundary)",
}


def app_words(root: Path = ROOT) -> list[str]:
    """``file:line: what`` for every line of ``engine/`` that names something of the app."""
    found = []
    for path in sorted((root / "engine").rglob("*.py")):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for what, pattern in APP_WORDS.items():
                if re.search(pattern, line, re.IGNORECASE if what in ("a widget", "a page") else 0):
                    found.append(f"{path.relative_to(root).as_posix()}:{i}: {what}: {line.strip()[:80]}")
    return found


def test_the_engine_names_nothing_of_the_app():
    assert app_words() == []


def test_the_word_finder_finds_what_the_app_declares(tmp_path):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "x.py").write_text(
        'Setting("eta", label="Learning rate", widget=SLIDER, tooltip="η")\n'
        'ICON = ":material/park:"  # the Tree Studio page\n'
        'a = 4096  # 4 KB pages, a page boundary, an HTML page\n')
    got = [line.split(": ")[1] for line in app_words(tmp_path)]
    assert got == ["a widget kind", "a widget's label", "a tooltip", "a widget", "a Material icon", "a page"]


def test_the_cycle_finder_finds_a_cycle_hidden_in_a_function(tmp_path):
    for pkg in ("engine", "workbench"):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
    (tmp_path / "app.py").write_text("import workbench.a\n")
    (tmp_path / "workbench" / "a.py").write_text("from workbench.b import f\n")
    (tmp_path / "workbench" / "b.py").write_text("def f():\n    from workbench import a\n    return a\n")
    assert cycles(import_graph(tmp_path)) == [["workbench.a", "workbench.b"]]


def test_the_order_check_finds_a_declaration_importing_a_page_inside_a_function(tmp_path):
    for pkg in ("engine", "workbench", "workbench/declarations"):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
    (tmp_path / "app.py").write_text("import workbench.widgets\n")
    (tmp_path / "workbench" / "widgets.py").write_text("from workbench.declarations import table\n")
    (tmp_path / "workbench" / "declarations" / "table.py").write_text(
        "import engine\n\ndef f():\n    from workbench import widgets\n    return widgets\n")
    graph = import_graph(tmp_path)
    assert against_the_order(graph) == [("workbench.declarations.table", "workbench.widgets")]
    assert cycles(graph) == [["workbench.declarations.table", "workbench.widgets"]]


def test_the_package_cycle_finder_finds_two_subpackages_importing_each_other(tmp_path):
    for pkg in ("engine", "engine/trees", "engine/cover", "workbench"):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
    (tmp_path / "app.py").write_text("")
    (tmp_path / "engine" / "cover" / "rounds.py").write_text("from engine.trees.model import Tree\n")
    (tmp_path / "engine" / "trees" / "model.py").write_text("Tree = object\n")
    (tmp_path / "engine" / "trees" / "spec.py").write_text("def f():\n    from engine.cover import rounds\n")
    graph = import_graph(tmp_path)
    assert cycles(graph) == []                                  # no module cycle ...
    assert cycles(package_graph(graph)) == [["engine.cover", "engine.trees"]]   # ... but a package one
