"""The current tree, kept in session state and shown in the sidebar of every page."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from engine.trees import Tree, read_tree

__all__ = ["SAMPLES_DIR", "DEFAULT_SAMPLE", "current_tree", "set_tree", "undo", "can_undo",
           "render_sidebar", "list_samples"]

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
        st.caption(st.session_state.get("tree_source", ""))
        leaves = int(tree.leaves.size)
        st.markdown(f"{tree.n:,} vertices · {leaves:,} leaves · root `{tree.name(tree.root)}`")
        st.toggle("Presenter mode", key="presenter",
                  help="Larger text, markers and lines everywhere, for a projector at the back of a room.")
    if st.session_state.get("presenter"):
        # the app's text is sized in rem: a larger root size enlarges it all (figures use the style's scale)
        st.html("<style>html { font-size: 20px; }</style>")
