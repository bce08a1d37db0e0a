"""The tree view: one drawing of a tree for every page, readable from 5 to 10^6 vertices.

The engine chooses what a view can show (:class:`engine.trees.lod.TreeDrawing`: the vertices that
can be told apart, the edges between them, and every subtree too small to resolve as one collapsed
mark with its vertex count); this module colours those marks with what the page shows and sends
them to a canvas in the browser (a Streamlit v2 component, ``workbench/assets/treeview.js``). A
wheel, a drag, a box (shift-drag) or a key moves the view at once in the browser and asks the
server for the new view's marks; only the fragment around the view runs again. A click on a vertex
picks it; a click on a collapsed mark zooms into it; "Fit" shows the whole tree again; the search
box suggests names as you type, over up to 10^6 names, and zooms to the one picked, drawing its
path to the root.

Colours: a vertex takes its value on the page's colour scale; a collapsed mark shades from the
smallest value inside it to the largest, through the mean (so a single vertex with evidence deep
inside still shows), and carries a dot when a ringed vertex (evidence) is inside. New values
recolour the same marks: the drawing is not built again.

A page calls :func:`tree_view` (inside a fragment, so that a change of view reruns only that) and
keeps its selection with :func:`workbench.components.selected_vertex`, as before.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import streamlit as st

from engine.trees import Tree
from engine.trees.lod import DEFAULT_BUDGET, DEFAULT_MARKER, LAYOUTS, Marks, TreeDrawing, Viewport
from workbench import address_bar, treeview_data
from workbench.components import (FigureText, array_key, export_buttons, recent, select_vertex, selected_vertex,
                                  show_downloads, tree_hash)
from workbench.figures.describe import rows_csv, tree_rows
from workbench.figures.style import PROBABILITY_SCALE, SELECT, current
from workbench.figures.view_export import view_pdf, view_svg
from workbench.session import ElementState
# the payload is made without Streamlit (shared with the notebook widget, workbench.notebook)
from workbench.treeview_data import DEFAULT_WIDTH, EVIDENCE, HIGHLIGHT, SUGGESTIONS, _place, _plain  # noqa: F401
from workbench.treeview_data import encode as _encode
from workbench.treeview_data import geometry_id
from workbench.treeview_data import view_request

__all__ = ["tree_view", "view_payload", "drawing_of", "ViewState", "view_state", "set_view", "focus_on", "suggest",
           "DEFAULT_WIDTH"]

_ASSETS = Path(__file__).resolve().parent / "assets"
_COMPONENT = st.components.v2.component(   # (its skip link looks like every figure's: figure_a11y.css)
    "tree_workbench.treeview", html="", css="\n".join((_ASSETS / name).read_text(encoding="utf-8")
                                                      for name in ("treeview.css", "figure_a11y.css")),
    js=(_ASSETS / "treeview.js").read_text(encoding="utf-8"))


# ------------------------------------------------------------------ shared, cached engine work
@recent(lambda tree, layout="auto": (tree.content_key, layout), size=8)
@st.cache_resource(max_entries=8, hash_funcs={Tree: tree_hash},
                   show_spinner="Laying the tree out (once per tree; about a second per 10^6 vertices)…")
def drawing_of(tree: Tree, layout: str = "auto") -> TreeDrawing:
    """The tree prepared for drawing (O(n), once per tree and layout, shared by every session)."""
    return TreeDrawing(tree, layout)


def _drawing_key(d: TreeDrawing) -> tuple:
    return d.tree.content_key, d.layout


def _marks_key(m: Marks) -> tuple:
    return m.viewport, m.width, m.height, m.marker, m.stride, array_key(m.vertices)


@recent(lambda drawing, *rest: (_drawing_key(drawing), *rest), size=96)
@st.cache_resource(max_entries=96, hash_funcs={TreeDrawing: _drawing_key}, show_spinner=False)
def _marks(drawing: TreeDrawing, vp: tuple, width: int, height: int, marker: float, budget: int) -> Marks:
    return drawing.marks(Viewport(*vp), width, height, marker=marker, budget=budget)


@st.cache_resource(max_entries=8, hash_funcs={Tree: tree_hash}, show_spinner=False)
def _name_index(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """The names lower-cased and sorted, with the vertex of each (for prefix search)."""
    return treeview_data.name_index(tree)


def suggest(tree: Tree, query: str, limit: int = SUGGESTIONS) -> list[tuple[int, str]]:
    """Up to ``limit`` vertices whose name starts with ``query`` (case ignored), an exact match
    first, then in name order: ``[(vertex, name)]``. O(log n) after a sort once per tree."""
    return treeview_data.suggest(tree, query, limit, index=_name_index(tree))


# ------------------------------------------------------------------ per-session state of a view
@dataclass(frozen=True)
class ViewState:
    """What a session's view of one tree shows: the viewport (None: the overview), the canvas
    size, the layout, and the sequence number of the browser's last request."""

    viewport: Viewport | None = None
    width: int = DEFAULT_WIDTH
    height: int = 520
    layout: str = "auto"
    seq: int = 0
    tree: str = ""            # the content key of the tree the viewport belongs to
    linked: bool = False      # the viewport came from a link: kept for the tree the page draws next


#: Whether a session's first view of ``key`` is drawn at the canvas width this process's browsers
#: last reported for ``key`` (the served app, ``workbench.serve``, turns it on; a test harness keeps
#: :data:`DEFAULT_WIDTH`, whatever ran before). A class opens a page on like screens: drawn at 900 px
#: for a 668 px canvas, every student's first view was drawn again for its width (a second run
#: of the page's fragment: Online Marginals usable after 1.56 s instead of about 1.2 s).
LEARN_WIDTHS = False
_widths: dict[str, int] = {}   # view key -> the canvas width a browser last reported


def view_state(key: str) -> ViewState:
    got = ElementState(key).view
    if got is None:
        got = ViewState(width=_widths.get(key, DEFAULT_WIDTH)) if LEARN_WIDTHS else ViewState()
    return got


def set_view(key: str, state: ViewState) -> None:
    ElementState(key).view = state


def _event(key: str, kind: str):
    """The tree view ``key``'s last event of ``kind`` (view, layout, pick, choose, open, query), or None."""
    return (ElementState(key).value or {}).get(kind)


def view_bind(key: str) -> address_bar.Bind:
    """The bind of a page's ``view=`` setting (:func:`workbench.declarations.value_formats.parse_region`) to the
    tree view ``key``: a link's region is drawn on the page's tree; the page's link says the region
    on screen (nothing for the whole tree)."""
    def seed(region) -> None:
        vs = view_state(key)
        if region is None:
            set_view(key, replace(vs, viewport=None, seq=vs.seq + 1))
            return
        layout, *extent = region
        set_view(key, replace(vs, viewport=Viewport(*extent), layout=layout, linked=True, seq=vs.seq + 1))

    def read():
        vs = view_state(key)
        v = vs.viewport
        return None if v is None or vs.layout not in LAYOUTS else (vs.layout, v.x0, v.x1, v.y0, v.y1)

    return address_bar.Bind(seed=seed, read=read)


def focus_on(tree: Tree, key: str, v: int) -> None:
    """Zoom the view ``key`` to vertex ``v`` (close enough to tell its neighbours apart)."""
    vs = view_state(key)
    d = drawing_of(tree, vs.layout)
    vp = vs.viewport or d.overview(vs.width, vs.height)
    set_view(key, replace(vs, viewport=d.focus(int(v), vp, vs.width, vs.height), tree=tree.content_key,
                          seq=vs.seq + 1))


def _on_view(key: str) -> None:
    vs = view_state(key)
    got = view_request(_event(key, "view"), vs.width, vs.height)
    if got is None:   # a malformed request from the browser: keep the view
        return
    w, h, vp, seq = got
    set_view(key, replace(vs, viewport=vp, width=w, height=h, seq=seq))
    if LEARN_WIDTHS:
        if len(_widths) > 256 and key not in _widths:   # (keys are the pages' names: a few dozen)
            _widths.clear()
        _widths[key] = w


def _on_layout(key: str) -> None:
    wanted = _event(key, "layout")
    vs = view_state(key)
    if wanted in LAYOUTS:
        set_view(key, replace(vs, viewport=None, layout=wanted, seq=vs.seq + 1))


def _on_pick(tree: Tree, key: str, on_pick) -> None:
    ev = _event(key, "pick") or {}
    v = ev.get("id") if isinstance(ev, dict) else None
    if isinstance(v, int) and 0 <= v < tree.n:
        select_vertex(tree, key, v)
        if on_pick is not None:
            on_pick(v)


def _on_choose(tree: Tree, key: str, on_pick) -> None:
    ev = _event(key, "choose") or {}
    if not isinstance(ev, dict):
        return
    v = ev.get("id")
    if not (isinstance(v, int) and 0 <= v < tree.n):
        v = tree.find(str(ev.get("name", ""))[:1000])
    if v is None:
        ElementState(key).error = f"no vertex is named {str(ev.get('name', ''))[:80]}"
        return
    select_vertex(tree, key, int(v))
    focus_on(tree, key, int(v))
    if on_pick is not None:
        on_pick(int(v))


def _on_open(tree: Tree, key: str) -> None:
    """A collapsed mark clicked: the view that draws its first level (:meth:`TreeDrawing.opening`)."""
    ev = _event(key, "open") or {}
    shown = ElementState(key).shown
    g = ev.get("g") if isinstance(ev, dict) else None
    if shown is None or not isinstance(g, int):
        return
    layout, vp, width, height, marker = shown
    drawing = drawing_of(tree, layout)
    marks = _marks(drawing, vp, width, height, marker, DEFAULT_BUDGET)
    if 0 <= g < len(marks.first):
        vs = view_state(key)
        seq = ev.get("seq")   # the browser's number for this request (its later ones win)
        set_view(key, replace(vs, viewport=drawing.opening(marks, g), seq=seq if isinstance(seq, int) else vs.seq))


# ------------------------------------------------------------------ the view
def tree_view(tree: Tree, key: str, *, values=None, scale=PROBABILITY_SCALE, lo: float = 0.0, hi: float = 1.0,
              value_title: str = "", categories=None, rings: Sequence[int] = (), ring_name: str = "evidence",
              highlight: Sequence[int] = (), selected: int | None = None, default: int | None = None,
              path_of: int | None = None, height: int = 520, on_pick: Callable[[int], None] | None = None,
              hover=None, describe: str = "", show_path: bool = True, layout: str = "auto",
              export_name: str | None = None, page: str | None = None, arrows: Sequence[tuple[int, int, str]] = (),
              current_arrow: int | None = None, title: str = "", csv: Callable[[], bytes] | None = None,
              note: str = "") -> Marks:
    """Draw ``tree`` at the level of detail of the current view, in a component keyed ``key``.

    values : one number per vertex (coloured on ``scale`` from ``lo`` to ``hi``), or None;
    categories : instead of values, ``(codes, colours)``: each vertex's category (an int) and the
    colour of each (collapsed marks stay neutral);
    rings : vertices ringed (evidence), counted inside collapsed marks; highlight : vertices
    ringed in the highlight colour, and the edges between two of them drawn thick;
    selected : the selected vertex (default: the one kept under ``key``, else ``default``), ringed;
    path_of : the vertex whose path to the root is drawn (default: the selected one);
    on_pick(v) : called after a click or a search picks ``v``; layout : the layout a session starts
    on (``auto``: :func:`engine.trees.lod.auto_layout`; the view's button switches); export_name :
    the name of its SVG and PDF downloads (default ``key``);
    hover : per-vertex extra hover text (a callable ``v -> str``); describe : a sentence that
    opens the view's text description (the figure's accessible name); page : the page whose
    ``view=`` setting is bound to this view (:func:`view_bind`): its address follows the view
    (from inside a fragment too); arrows : ``(sender, receiver, text)`` drawn along their edges,
    each labelled with its text (messages: :func:`workbench.figures.arrows.place_arrows`), the one
    at index ``current_arrow`` thick in the selection colour; title : a line drawn over the canvas
    (and in the downloads); csv : the maker of the view's "CSV" download (default: one row per
    vertex); note : a line of plain text under the canvas (how to read the view: drawn by the
    view, not as a caption of its own). Returns the marks drawn.

    Under the canvas the view draws its note, "Describe" (its description) and "Download" (once
    pressed, the SVG, PDF and CSV buttons of :func:`workbench.components.export_buttons` follow
    the view instead): one element on a rerun where the view, a caption, an expander with its
    text and a button were five.
    """
    style = current()
    vs = view_state(key)
    if vs.linked:   # a link's region: drawn on this tree
        vs = replace(vs, linked=False, tree=tree.content_key)
        set_view(key, vs)
    elif vs.tree != tree.content_key:   # a new tree (or the first view): its overview, the page's layout
        # numbered past the browser's requests, so that it draws this view rather than its own
        vs = ViewState(width=vs.width, height=height, layout=layout if not ElementState(key).has("view")
                       or vs.tree else vs.layout, tree=tree.content_key, seq=vs.seq + 1)
        set_view(key, vs)
    drawing = drawing_of(tree, vs.layout)
    if vs.layout != drawing.layout:   # "auto" resolved: the page's link names the layout drawn
        vs = replace(vs, layout=drawing.layout)
        set_view(key, vs)
    marker = DEFAULT_MARKER * (style.scale if tree.n <= 400 else 1.0)
    vp = vs.viewport or drawing.overview(vs.width, height)
    if drawing.layout == "radial":
        vp = vp.fitted(vs.width, height)
    shown = (vs.layout, (vp.x0, vp.x1, vp.y0, vp.y1), vs.width, height, marker)
    marks = _marks(drawing, *shown[1:], DEFAULT_BUDGET)
    ElementState(key).shown = shown   # what a click on a collapsed mark refers to
    if selected is None:
        selected = selected_vertex(tree, key, default)
    query = _event(key, "query")
    data, pic = view_payload(tree, key, drawing, marks, values=values, scale=scale, lo=lo, hi=hi,
                             value_title=value_title, categories=categories, rings=rings, ring_name=ring_name,
                             highlight=highlight, selected=selected,
                             path_of=path_of if path_of is not None else selected, hover=hover, describe=describe,
                             show_path=show_path, style=style, query=query, arrows=arrows,
                             current_arrow=current_arrow, title=title)
    data["seq"] = vs.seq
    data["overview"] = vs.viewport is None
    # the region asked for, before it was widened to this canvas (a link's, or a found vertex's):
    # what a canvas of another width asks for again, as long as the user has not moved the view
    data["want"] = None if vs.viewport is None else [vs.viewport.x0, vs.viewport.x1, vs.viewport.y0, vs.viewport.y1]
    err = ElementState(key).pop("error")
    # read aloud: the canvas names itself with data["desc"], draws the "Skip past this figure" link
    # (data["skip"]) and, under the canvas, "Describe" with data["desc"] (one component per view,
    # not a helper, a view and an expander with its text); "CSV" (one row per vertex, made when
    # clicked) after it
    text = FigureText(key=key, text=data["desc"], kind="view", csv=csv or (lambda: rows_csv(*tree_rows(
        tree, values=values, value_title=value_title, categories=categories, rings=rings, selected=selected))))
    data["skip"] = {"title": text.title}
    element = ElementState(key)
    data["download"] = not element.downloads   # the view's own "Download", until pressed
    if note:
        data["note"] = note
    # sent as the JSON text's bytes, which Streamlit forwards as they are: a dict would be searched
    # key by key for dataframes and encoded again on every rerun (a tenth of a click's server time);
    # the geometry (positions, names) only when this session's browser was not sent it last: a click
    # sends the view's colours (treeview.js keeps the geometry and asks again for one it lacks: "geo")
    gid = geometry_id(tree, marks)
    payload = _encode(tree, marks, data, geometry=not treeview_data.SEND_GEOMETRY_ONCE or element.geo != gid)
    element.geo = gid
    _COMPONENT(key=key, data=payload, height="content",
               on_view_change=lambda: _on_view(key), on_layout_change=lambda: _on_layout(key),
               on_query_change=lambda: None, on_pick_change=lambda: _on_pick(tree, key, on_pick),
               on_choose_change=lambda: _on_choose(tree, key, on_pick), on_open_change=lambda: _on_open(tree, key),
               on_geo_change=lambda: element.pop("geo"), on_download_change=lambda: show_downloads(key))
    if err:
        st.error(err)
    if page is not None:
        address_bar.write_query(page)
    if element.downloads:   # (before: the view's "Download" button, drawn by treeview.js)
        export_buttons(None, key=key, name=export_name or key,
                       draw=(lambda: view_svg(pic, style, select=SELECT, highlight=HIGHLIGHT),
                             lambda: view_pdf(pic, style, select=SELECT, highlight=HIGHLIGHT)), csv=text.csv)
    return marks


@st.cache_resource(max_entries=256, hash_funcs={TreeDrawing: _drawing_key, Marks: _marks_key}, show_spinner=False)
def _placed(drawing: TreeDrawing, marks: Marks, arrows: tuple, current, style) -> tuple:
    return _place(drawing, marks, arrows, current, style)


def view_payload(tree: Tree, key: str, drawing: TreeDrawing, marks: Marks, *, values=None, scale=PROBABILITY_SCALE,
                 lo: float = 0.0, hi: float = 1.0, value_title: str = "", categories=None, rings=(),
                 ring_name: str = "evidence", highlight=(), selected=None, path_of=None, hover=None,
                 describe: str = "", show_path: bool = True, style=None, query: str | None = None,
                 arrows: Sequence[tuple[int, int, str]] = (), current_arrow: int | None = None,
                 title: str = "") -> tuple:
    """What the browser is sent for ``marks`` and the :class:`ViewPicture` its exports draw
    (:func:`workbench.treeview_data.view_payload`), in the session's style, with the names index
    and the arrows' places kept per tree and view. No Streamlit call: the benchmark times it as
    the server's work for one view."""
    return treeview_data.view_payload(
        tree, key, drawing, marks, values=values, scale=scale, lo=lo, hi=hi, value_title=value_title,
        categories=categories, rings=rings, ring_name=ring_name, highlight=highlight, selected=selected,
        path_of=path_of, hover=hover, describe=describe, show_path=show_path, style=style or current(), query=query,
        arrows=arrows, current_arrow=current_arrow, title=title, suggest_names=suggest, place=_placed)


def _arrows(tree: Tree, drawing: TreeDrawing, marks: Marks, arrows, current, style) -> tuple:
    """``arrows`` placed on this view's canvas (:func:`workbench.treeview_data._arrows`), kept per
    view, arrows and style and shared by the sessions (a class following a step of eight messages
    placed them 30 times over: 7 % of each page's run)."""
    return treeview_data._arrows(tree, drawing, marks, arrows, current, style, place=_placed)
