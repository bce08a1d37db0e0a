"""The current tree, kept in session state and shown in the sidebar of every page."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from engine.trees import Tree, read_tree

from workbench.text import md

__all__ = ["SAMPLES_DIR", "DEFAULT_SAMPLE", "current_tree", "set_tree", "undo", "can_undo",
           "render_sidebar", "list_samples", "classroom_mode", "is_lecturer", "session_owner",
           "CLASSROOM_ENV", "LECTURER_ENV"]

#: ``1`` turns on classroom mode: each browser session sees and deletes only its own runs
CLASSROOM_ENV = "TREE_WORKBENCH_CLASSROOM"
#: the lecturer's secret: opening the app with ``?lecturer=SECRET`` shows every run (classroom mode)
LECTURER_ENV = "TREE_WORKBENCH_LECTURER_TOKEN"

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "sample_trees"
DEFAULT_SAMPLE = "lecture_5_vertices.csv"
_UNDO_DEPTH = 50


@st.cache_data(show_spinner=False)
def _load_sample(name: str) -> Tree:
    return read_tree(SAMPLES_DIR / name)


def list_samples() -> list[str]:
    return sorted(p.name for p in SAMPLES_DIR.iterdir() if p.is_file() and not p.name.startswith("."))


def current_tree() -> Tree:
    """The tree every page works on (the default sample until the user picks another)."""
    if "tree" not in st.session_state:
        st.session_state["tree"] = _load_sample(DEFAULT_SAMPLE)
        st.session_state["tree_source"] = f"sample {DEFAULT_SAMPLE}"
        st.session_state["tree_undo"] = []
    return st.session_state["tree"]


def set_tree(tree: Tree, source: str, *, undoable: bool = True) -> None:
    """Make ``tree`` the current tree; the previous one goes on the undo stack."""
    old = current_tree()
    stack = st.session_state.setdefault("tree_undo", [])
    if undoable:
        stack.append((old, st.session_state.get("tree_source", "")))
        del stack[:-_UNDO_DEPTH]
    st.session_state["tree"] = tree
    st.session_state["tree_source"] = source
    st.session_state["tree_version"] = st.session_state.get("tree_version", 0) + 1


def can_undo() -> bool:
    return bool(st.session_state.get("tree_undo"))


def undo() -> None:
    stack = st.session_state.get("tree_undo") or []
    if stack:
        tree, source = stack.pop()
        st.session_state["tree"] = tree
        st.session_state["tree_source"] = source
        st.session_state["tree_version"] = st.session_state.get("tree_version", 0) + 1


def render_sidebar() -> None:
    tree = current_tree()
    with st.sidebar:
        st.markdown("**Current tree**")
        st.caption(md(st.session_state.get("tree_source", "")))  # file and vertex names are data: escaped
        leaves = int(tree.leaves.size)
        st.markdown(f"{tree.n:,} vertices · {leaves:,} leaves · root **{md(tree.name(tree.root))}**")
        st.toggle("Presenter mode", key="presenter",
                  help="Larger text, markers and lines everywhere, for a projector at the back of a room.")
    if st.session_state.get("presenter"):
        # the app's text is sized in rem: a larger root size enlarges it all (figures use the style's scale)
        st.html("<style>html { font-size: 20px; }</style>")


def classroom_mode() -> bool:
    """Whether the server runs in classroom mode (``TREE_WORKBENCH_CLASSROOM=1``)."""
    import os

    return os.environ.get(CLASSROOM_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def is_lecturer() -> bool:
    """Whether this session is the lecturer's: it opened the app once with ``?lecturer=SECRET``,
    ``SECRET`` being ``$TREE_WORKBENCH_LECTURER_TOKEN`` (compared in constant time; then removed
    from the address bar so that it is not projected)."""
    import hmac
    import os

    if st.session_state.get("lecturer"):
        return True
    secret = os.environ.get(LECTURER_ENV, "")
    given = st.query_params.get("lecturer")
    if given is not None:
        del st.query_params["lecturer"]
        if secret and hmac.compare_digest(str(given), secret):
            st.session_state["lecturer"] = True
            return True
    return False


def session_owner() -> str | None:
    """The owner of this session's runs: ``None`` outside classroom mode and for the lecturer
    (every run), else a random token kept in the session and in the address (``?session=``), so a
    reload keeps a student's runs."""
    import secrets

    if not classroom_mode() or is_lecturer():
        return None
    tok = st.session_state.get("run_owner") or st.query_params.get("session")
    if not tok or not isinstance(tok, str) or not 16 <= len(tok) <= 64 or not tok.replace("-", "").replace("_", "").isalnum():
        tok = secrets.token_urlsafe(18)
    st.session_state["run_owner"] = tok
    if st.query_params.get("session") != tok:
        st.query_params["session"] = tok
    return tok
