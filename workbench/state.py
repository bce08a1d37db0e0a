"""The current tree, kept in session state and shown in the sidebar of every page.

Every new session starts from the class tree: the tree named by ``TREE_WORKBENCH_TREE`` when the
server was started with it (a tree file, or a generator spec such as
``{"generate": "random", "n": 1000, "seed": 0}``), else the lecture's 5-vertex sample. Sample and
class trees are read once per server and shared (trees are immutable).

A link's ``?tree=`` (a sample, a generator spec, ``figure1`` or a Newick text, see
:func:`workbench.declarations.tree_text.tree_from_link`) makes its tree the current one
(:func:`workbench.address_bar.tree_from_query`, before every page). The current tree keeps the text that
brings it back (:func:`tree_link`): the link's own spec, the sample or generator it came from, else
its Newick text, or nothing when it is too large for a link.
"""

from __future__ import annotations

import json
import os

import streamlit as st

from engine.errors import EngineError
from engine.networks import network_sample_names
from engine.trees import Tree
from engine.trees.samples import read_sample, sample_names
from engine.trees.spec import tree_from_spec
from workbench.declarations.tree_text import tree_from_link, tree_to_link

from workbench.figures.style import current, page_css
from workbench.session import AppState, SessionState
from workbench.text import md

__all__ = ["DEFAULT_SAMPLE", "CLASS_TREE_ENV", "current_tree", "set_tree", "undo", "can_undo",
           "render_sidebar", "list_samples", "network_samples", "load_sample", "class_tree", "link_tree", "tree_link", "tree_source",
           "tree_version", "PRESENTER", "TreeState", "sample_link"]

DEFAULT_SAMPLE = "lecture_5_vertices.csv"
CLASS_TREE_ENV = "TREE_WORKBENCH_TREE"
_UNDO_DEPTH = 50


class TreeState(SessionState, prefix=""):
    """The current tree (its keys are set by tests and read by outside scripts by these names)."""

    tree: Tree | None = None          # the tree every page works on
    tree_source: str = ""             # where it comes from, in a few words
    tree_link: str | None = None      # the ?tree= text that brings it back ("" = none fits; None: not worked out)
    tree_undo: list | None = None     # (tree, source, link) of the trees before it, the last one last
    tree_version: int = 0             # how many times the current tree has changed


T = TreeState()
#: the sidebar's presenter toggle (larger text, markers and lines)
PRESENTER = AppState.key("presenter")


def sample_link(name: str) -> str:
    """The ``?tree=`` text of a sample: its name without extensions."""
    return name.split(".", 1)[0]


def list_samples() -> list[str]:
    return sample_names()


@st.cache_resource(ttl=10, show_spinner=False)
def network_samples() -> list[str]:
    """The sample networks' names without extensions (the pages' "network" choice), read from
    their folder at most every 10 s: listing it on every run was 5 % of a class's page runs."""
    return [n.rsplit(".", 1)[0] for n in network_sample_names()]


@st.cache_resource(show_spinner=False)
def load_sample(name: str) -> Tree:
    """The sample tree ``name`` (``engine.trees.samples.read_sample``), read once per server and
    shared by every session (trees are immutable)."""
    return read_sample(name)


@st.cache_resource(show_spinner=False)
def _class_tree(spec: str) -> Tree:
    return tree_from_spec(json.loads(spec) if spec.lstrip().startswith("{") else spec)


def class_tree() -> tuple[Tree, str]:
    """The tree every new session starts from, and where it comes from."""
    spec = os.environ.get(CLASS_TREE_ENV, "").strip()
    if spec:
        try:
            return _class_tree(spec), f"class tree ({CLASS_TREE_ENV})"
        except (EngineError, ValueError, OSError) as exc:
            st.warning(f"{CLASS_TREE_ENV} is not usable ({exc}); starting from the lecture tree.")
    return load_sample(DEFAULT_SAMPLE), f"sample {DEFAULT_SAMPLE}"


def current_tree() -> Tree:
    """The tree every page works on (the class tree until the user picks another)."""
    if not T.has("tree"):
        tree, source = class_tree()
        T.tree, T.tree_source = tree, source
        T.tree_link = sample_link(DEFAULT_SAMPLE) if source.startswith("sample ") else None
        T.tree_undo = []
    return T.tree


def set_tree(tree: Tree, source: str, *, undoable: bool = True, link: str | None = None) -> None:
    """Make ``tree`` the current tree; the previous one goes on the undo stack. ``link`` is the
    ``?tree=`` text that brings it back (a sample name or a generator spec); without it the link
    carries the tree's Newick text when it is small enough."""
    old = current_tree()
    stack = T.setdefault("tree_undo", [])
    if undoable:
        stack.append((old, tree_source(), T.tree_link))
        del stack[:-_UNDO_DEPTH]
    _make_current(tree, source, link)


def _make_current(tree: Tree, source: str, link: str | None) -> None:
    T.tree, T.tree_source, T.tree_link = tree, source, link
    T.tree_version = tree_version() + 1


def can_undo() -> bool:
    return bool(T.tree_undo)


def undo() -> None:
    stack = T.tree_undo or []
    if stack:
        _make_current(*stack.pop())


_LINKS: dict[str, str] = {}   # a tree's content key -> its ``?tree=`` text ("": too large for a link)


def tree_link() -> str | None:
    """The ``?tree=`` text of the current tree, or None when it is too large for a link; written
    once per tree in this process (trees do not change): each student's first page wrote the
    class's 1,000-vertex tree as Newick again (3 % of the server's time on 30 students opening
    Online Marginals, py-spy --gil, 2 December 2026)."""
    tree = current_tree()
    got = T.tree_link
    if got is None:
        got = _LINKS.get(tree.content_key)
        if got is None:
            got = tree_to_link(tree) or ""
            if len(_LINKS) > 64:
                _LINKS.clear()
            _LINKS[tree.content_key] = got
        T.tree_link = got
    return got or None


@st.cache_resource(max_entries=32, show_spinner=False)
def link_tree(text: str) -> Tree:
    """The tree of a link's ``?tree=`` text, read once per server (trees are immutable)."""
    return tree_from_link(text)


def tree_source() -> str:
    """Where the current tree comes from, in a few words (a sample, a file, a link, ...)."""
    return T.tree_source


def tree_version() -> int:
    """How many times this session's current tree has changed (a page's caches follow it)."""
    return T.tree_version


def render_sidebar() -> None:
    tree = current_tree()
    with st.sidebar:
        # one element, not three (every page's first draw and every full rerun): the file and vertex
        # names are data, escaped
        leaves = int(tree.leaves.size)
        st.markdown(f"**Current tree**  \n:small[{md(tree_source())}]  \n"
                    f"{tree.n:,} vertices · {leaves:,} leaves · root **{md(tree.name(tree.root))}**")
        st.toggle("Presenter mode", key=PRESENTER,
                  help="Larger text, markers and lines everywhere, for a projector at the back of a room.")
    # WCAG AA contrast where Streamlit's own colours fall short (captions, dark primary buttons)
    st.html(f"<style>{page_css(current())}</style>")
    if AppState().presenter:
        # the app's text is sized in rem: a larger root size enlarges it all (figures use the style's scale)
        # ... except the metrics' big numbers, already 36 px: larger, "-5.191" in a row of six reads "-5.1…"
        st.html("<style>html { font-size: 20px; } [data-testid='stMetricValue'], dl.wb-stats dd:not(.wb-note) "
                "{ font-size: 1.8rem; }</style>")
