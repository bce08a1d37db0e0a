"""Session state is kept one way (workbench.session): every key is declared once, by an attribute of a
declaration class; no module but workbench/session.py touches ``st.session_state``, and none spells a key
-- no string literal, f-string or string constant as the ``key=`` (or positional key) of an element."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
WORKBENCH = ROOT / "workbench"
#: the one module that reads and writes st.session_state by key (its declarations name the keys)
SESSION = WORKBENCH / "session.py"
#: calls whose key= is no session key, each with why
NOT_SESSION_KEYS = {
    "Job": "a background run's identity in workbench.runner (a cache key, never a widget's)",
    "_start": "... the same identity, given to the runner's start of a job",
}
#: places a key is still spelled, each with why (empty: none)
ALLOWED: dict[tuple[str, int], str] = {}
_SESSION_VERBS = {"get", "pop", "setdefault", "__setitem__", "__getitem__", "__delitem__", "__contains__"}


def _constants(tree: ast.Module) -> dict[str, ast.expr]:
    """A module's names bound at its top level to a string (``_SEAT = "class_seat"``)."""
    out = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        value = getattr(node, "value", None)
        for t in targets:
            if isinstance(t, ast.Name) and value is not None and _literal(value, {}):
                out[t.id] = value
            elif isinstance(t, ast.Tuple) and isinstance(value, ast.Tuple):
                out.update({n.id: v for n, v in zip(t.elts, value.elts, strict=False)
                            if isinstance(n, ast.Name) and _literal(v, {})})
    return out


def _literal(node: ast.expr, names: dict[str, ast.expr]) -> bool:
    """Whether ``node`` spells a key: a string, an f-string, a sum with one, or a name bound to one."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return _literal(node.left, names) or _literal(node.right, names)
    if isinstance(node, ast.Name):
        return node.id in names
    return False


def _all_constants() -> dict[str, dict[str, ast.expr]]:
    out = {}
    for path in WORKBENCH.rglob("*.py"):
        mod = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        out[mod] = _constants(ast.parse(path.read_text(), str(path)))
    return out


def _key_positions() -> dict[str, int]:
    """Where the element key goes among the positional arguments: ``st.form(key)``, and every
    workbench function (or class) with a parameter ``key`` that can be given by position."""
    out = {"form": 0}
    for path in WORKBENCH.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef):
                init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
                names = [a.arg for a in init.args.args[1:]] if init else []
            elif isinstance(node, ast.FunctionDef):
                names = [a.arg for a in node.args.args]
            else:
                continue
            if "key" in names and not node.name.startswith("__"):
                out[node.name] = names.index("key")
    return out


_POSITIONS = _key_positions()


def _is_session_state(node: ast.expr, aliases: set[str]) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "session_state") or (
        isinstance(node, ast.Name) and node.id in aliases)


def spelled_keys(path: Path, constants: dict[str, dict[str, ast.expr]]) -> list[tuple[int, str]]:
    """The places of ``path`` that spell a session key: (line, what)."""
    tree = ast.parse(path.read_text(), str(path))
    names = dict(constants[".".join(path.relative_to(ROOT).with_suffix("").parts)])
    for node in ast.walk(tree):   # a string constant imported from another workbench module
        if isinstance(node, ast.ImportFrom) and node.module in constants:
            for a in node.names:
                if a.name in constants[node.module]:
                    names[a.asname or a.name] = constants[node.module][a.name]
    aliases = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and _is_session_state(node.value, set())
               for t in node.targets if isinstance(t, ast.Name)}
    found = set(_spelled(ast.walk(tree), names, aliases, session=path == SESSION))
    for func in ast.walk(tree):   # a function's local name bound to a built key (``sent = f"{key}__geo"``)
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            local = {t.id: node.value for node in ast.walk(func) if isinstance(node, ast.Assign)
                     and _literal(node.value, {}) for t in node.targets if isinstance(t, ast.Name)}
            if local:
                found.update(_spelled(ast.walk(func), {**names, **local}, aliases, session=path == SESSION))
    return sorted(found)


def _spelled(nodes, names: dict[str, ast.expr], aliases: set[str], *, session: bool):
    for node in nodes:
        if isinstance(node, ast.Call):
            func = node.func
            callee = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            for kw in node.keywords:
                if kw.arg == "key" and callee not in NOT_SESSION_KEYS and _literal(kw.value, names):
                    yield node.lineno, f"key={ast.unparse(kw.value)} of {callee}"
            at = None if callee in NOT_SESSION_KEYS else _POSITIONS.get(callee)
            if at is not None and len(node.args) > at and not any(isinstance(x, ast.Starred) for x in node.args[:at + 1]) \
                    and _literal(node.args[at], names):
                yield node.lineno, f"{callee}(... {ast.unparse(node.args[at])} ...) as a key"
            if session:
                continue
            if isinstance(func, ast.Attribute) and _is_session_state(func.value, aliases):
                if func.attr in _SESSION_VERBS and node.args and _literal(node.args[0], names):
                    yield node.lineno, f"session_state.{func.attr}({ast.unparse(node.args[0])})"
                if func.attr == "update" and node.args and isinstance(node.args[0], ast.Dict) and any(
                        k is not None and _literal(k, names) for k in node.args[0].keys):
                    yield node.lineno, f"session_state.update({ast.unparse(node.args[0])[:40]})"
        elif session:
            continue
        elif isinstance(node, ast.Subscript) and _is_session_state(node.value, aliases) and _literal(node.slice, names):
            yield node.lineno, f"session_state[{ast.unparse(node.slice)}]"
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) and any(
                _is_session_state(c, aliases) for c in node.comparators) and _literal(node.left, names):
            yield node.lineno, f"{ast.unparse(node.left)} in session_state"


def test_no_module_spells_a_session_key():
    constants = _all_constants()
    bad = []
    for path in sorted(WORKBENCH.rglob("*.py")):
        rel = str(path.relative_to(ROOT))
        bad += [f"{rel}:{line}: {what}" for line, what in spelled_keys(path, constants)
                if (rel, line) not in ALLOWED]
    assert not bad, "keys spelled outside their declaration (declare them in a workbench.session class):\n" + \
        "\n".join(bad)


def test_only_the_declarations_touch_session_state():
    """Every read and write of st.session_state goes through workbench.session (its declarations, or
    ElementState for a key a caller holds: a setting's widget, an element's companions)."""
    touching = sorted(str(p.relative_to(ROOT)) for p in WORKBENCH.rglob("*.py") if p != SESSION and any(
        isinstance(n, ast.Attribute) and n.attr == "session_state" for n in ast.walk(ast.parse(p.read_text()))))
    assert not touching, f"st.session_state outside workbench/session.py: {touching}"


def test_the_scan_finds_each_way_of_spelling_a_key(tmp_path, monkeypatch):
    """The scan is no test that cannot fail: each way a key was spelled before is found."""
    src = tmp_path / "workbench" / "page.py"
    src.parent.mkdir()
    src.write_text(
        "import streamlit as st\n"
        "_SEAT = 'class_seat'\n"
        "st.button('Go', key='go')\n"                          # 3
        "st.button('Go', key=f'go_{1}')\n"                     # 4
        "st.toggle('P', key=_SEAT)\n"                          # 5
        "st.session_state['presenter'] = 1\n"                  # 6
        "x = st.session_state.get(_SEAT)\n"                    # 7
        "ss = st.session_state\n"
        "ss.pop('k' + '__error', None)\n"                      # 9
        "y = 'lesson_open' in st.session_state\n"              # 10
        "st.session_state.update({_SEAT: 1})\n"                # 11
        "st.button('Go', key=S.key('go'))\n"
        "v = st.session_state.get(S.key('go'))\n"
        "Job(key='lesson|x')\n"
        "with st.form('setup'):\n"                            # 15
        "    pass\n"
        "tree_view(t, 'bp_tree', page='x')\n"
        "def f(key):\n"
        "    sent = f'{key}__geo'\n"
        "    return st.session_state.get(sent)\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    got = spelled_keys(src, {"workbench.page": _constants(ast.parse(src.read_text()))})
    assert [line for line, _ in got] == [3, 4, 5, 6, 7, 9, 10, 11, 15, 17, 20]


def test_a_key_is_declared_once():
    from workbench.session import PageState, SessionState

    class OneState(SessionState, prefix="test_once"):
        a: int = 0

    with pytest.raises(TypeError, match="'test_once_a' is declared by OneState.a already"):
        class OtherState(SessionState, prefix="test_once"):
            a: int = 0
    # a second declaration of a page's state clashes: with its setting's name, or (once the page has
    # run in this process and declared HedgeState) with HedgeState's keys first
    with pytest.raises(TypeError, match=r"the setting eta of /tree_hedge has this name already"
                                        r"|the session key 'hedge_\w+' is declared by HedgeState\.\w+ already"):
        class HedgeClash(PageState, page="tree_hedge"):
            eta: float = 1.0
    assert OneState.key("a") == "test_once_a"
    # a refused declaration takes no key: the page's own state declares them all afterwards

    class HedgeState(PageState, page="tree_hedge"):
        pass
    assert HedgeState.key("k") == "hedge_k"


def _family_script():
    import streamlit as st

    from workbench.session import ElementState, Family, SessionState

    class FamState(SessionState, prefix="test_fam"):
        soft: Family[float] = 1.0
        flag: bool = False

    s = FamState()
    s.soft[2] = 0.5
    s.flag = True
    e = ElementState("test_fig")
    e.shown = ("a",)
    st.write(f"{s.soft[2]}|{s.soft[3]}|{FamState.key('soft', 2)}|{e.key('shown')}|{e.shown}|{s.pop('flag')}|{s.flag}"
             f"|{s.soft.keep(2, 3)}")


def test_families_and_element_state_read_and_write_their_keys():
    at = AppTest.from_function(_family_script).run()
    assert not at.exception
    assert at.markdown[0].value == "0.5|1.0|test_fam_soft_2|test_fig__shown|('a',)|True|False|None"
    assert at.session_state["test_fam_soft_2"] == 0.5 and at.session_state["test_fig__shown"] == ("a",)
    assert "test_fam_soft_3" not in at.session_state     # keep() writes back only what is set
