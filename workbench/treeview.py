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

import base64
import json
import math
import threading
import weakref
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import streamlit as st

from engine.trees import Tree
from engine.trees.lod import DEFAULT_BUDGET, DEFAULT_MARKER, LAYOUTS, BAND, RUN, Marks, TreeDrawing, Viewport
from workbench import links
from workbench.components import FigureText, array_key, export_buttons, select_vertex, selected_vertex, tree_hash
from workbench.figures.arrows import place_arrows
from workbench.figures.describe import rows_csv, tree_rows
from workbench.figures.view_export import ViewPicture, view_pdf, view_svg
from workbench.figures.style import FONT_FAMILY, PROBABILITY_SCALE, SELECT, colour_bytes, current

__all__ = ["tree_view", "view_payload", "drawing_of", "ViewState", "view_state", "set_view", "focus_on", "suggest",
           "DEFAULT_WIDTH"]

_ASSETS = Path(__file__).resolve().parent / "assets"
_COMPONENT = st.components.v2.component(
    "tree_workbench.treeview", html="", css=(_ASSETS / "treeview.css").read_text(encoding="utf-8"),
    js=(_ASSETS / "treeview.js").read_text(encoding="utf-8"))

#: the canvas width (px) assumed until the browser says (a page column at 1,600 px)
DEFAULT_WIDTH = 900
EVIDENCE = "#E69F00"   # an orange ring: a vertex with evidence (Okabe-Ito orange)
HIGHLIGHT = "#D55E00"  # a path or set the page points at (Okabe-Ito vermillion)
SUGGESTIONS = 8


# ------------------------------------------------------------------ shared, cached engine work
@st.cache_resource(max_entries=8, hash_funcs={Tree: tree_hash},
                   show_spinner="Laying the tree out (once per tree; about a second per 10^6 vertices)…")
def drawing_of(tree: Tree, layout: str = "auto") -> TreeDrawing:
    """The tree prepared for drawing (O(n), once per tree and layout, shared by every session)."""
    return TreeDrawing(tree, layout)


def _drawing_key(d: TreeDrawing) -> tuple:
    return d.tree.content_key, d.layout


def _marks_key(m: Marks) -> tuple:
    return m.viewport, m.width, m.height, m.marker, m.stride, array_key(m.vertices)


@st.cache_resource(max_entries=96, hash_funcs={TreeDrawing: _drawing_key}, show_spinner=False)
def _marks(drawing: TreeDrawing, vp: tuple, width: int, height: int, marker: float, budget: int) -> Marks:
    return drawing.marks(Viewport(*vp), width, height, marker=marker, budget=budget)


@st.cache_resource(max_entries=8, hash_funcs={Tree: tree_hash}, show_spinner=False)
def _name_index(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """The names lower-cased and sorted, with the vertex of each (for prefix search)."""
    names = np.char.lower(np.asarray(tree.name_array(), dtype=str))
    order = np.argsort(names, kind="stable")
    return names[order], order


def suggest(tree: Tree, query: str, limit: int = SUGGESTIONS) -> list[tuple[int, str]]:
    """Up to ``limit`` vertices whose name starts with ``query`` (case ignored), an exact match
    first, then in name order: ``[(vertex, name)]``. O(log n) after a sort once per tree."""
    q = (query or "").strip().lower()
    if not q:
        return []
    out: list[tuple[int, str]] = []
    exact = tree.find(query.strip())
    if exact is not None:
        out.append((int(exact), tree.name(int(exact))))
    names, order = _name_index(tree)
    i = int(np.searchsorted(names, q, side="left"))
    while i < len(names) and len(out) < limit and names[i].startswith(q):
        v = int(order[i])
        if exact is None or v != exact:
            out.append((v, tree.name(v)))
        i += 1
    return out


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


def _state_key(key: str) -> str:
    return f"{key}__view"


def view_state(key: str) -> ViewState:
    return st.session_state.get(_state_key(key)) or ViewState()


def set_view(key: str, state: ViewState) -> None:
    st.session_state[_state_key(key)] = state


def view_bind(key: str) -> links.Bind:
    """The bind of a page's ``view=`` setting (:func:`engine.links.evidence.parse_region`) to the
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

    return links.Bind(seed=seed, read=read)


def focus_on(tree: Tree, key: str, v: int) -> None:
    """Zoom the view ``key`` to vertex ``v`` (close enough to tell its neighbours apart)."""
    vs = view_state(key)
    d = drawing_of(tree, vs.layout)
    vp = vs.viewport or d.overview(vs.width, vs.height)
    set_view(key, replace(vs, viewport=d.focus(int(v), vp, vs.width, vs.height), tree=tree.content_key,
                          seq=vs.seq + 1))


def _on_view(key: str) -> None:
    raw = (st.session_state.get(key) or {}).get("view") or {}
    vs = view_state(key)
    try:
        w = int(min(max(float(raw.get("w") or vs.width), 120), 8000))
        h = int(min(max(float(raw.get("h") or vs.height), 120), 4000))
        vp = None if raw.get("fit") or not raw.get("vp") else Viewport(*(float(v) for v in raw["vp"]))
    except (TypeError, ValueError):   # a malformed request from the browser: keep the view
        return
    set_view(key, replace(vs, viewport=vp, width=w, height=h, seq=int(raw.get("seq") or 0)))


def _on_layout(key: str) -> None:
    wanted = (st.session_state.get(key) or {}).get("layout")
    vs = view_state(key)
    if wanted in LAYOUTS:
        set_view(key, replace(vs, viewport=None, layout=wanted, seq=vs.seq + 1))


def _on_pick(tree: Tree, key: str, on_pick) -> None:
    ev = (st.session_state.get(key) or {}).get("pick") or {}
    v = ev.get("id") if isinstance(ev, dict) else None
    if isinstance(v, int) and 0 <= v < tree.n:
        select_vertex(tree, key, v)
        if on_pick is not None:
            on_pick(v)


def _on_choose(tree: Tree, key: str, on_pick) -> None:
    ev = (st.session_state.get(key) or {}).get("choose") or {}
    if not isinstance(ev, dict):
        return
    v = ev.get("id")
    if not (isinstance(v, int) and 0 <= v < tree.n):
        v = tree.find(str(ev.get("name", ""))[:1000])
    if v is None:
        st.session_state[f"{key}__error"] = f"no vertex is named {str(ev.get('name', ''))[:80]}"
        return
    select_vertex(tree, key, int(v))
    focus_on(tree, key, int(v))
    if on_pick is not None:
        on_pick(int(v))


def _on_open(tree: Tree, key: str) -> None:
    """A collapsed mark clicked: the view that draws its first level (:meth:`TreeDrawing.opening`)."""
    ev = (st.session_state.get(key) or {}).get("open") or {}
    shown = st.session_state.get(f"{key}__shown")
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


# ------------------------------------------------------------------ colours
def _plain(x):
    """A NumPy number in the payload as the Python number it is (json.dumps knows only those)."""
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"the tree view cannot send a {type(x).__name__}")


def _b64(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode("ascii")


def _label_spots(marks: Marks) -> tuple[list, list]:
    """Where each collapsed mark's count goes (its outline's middle, and the room there, px)."""
    off = marks.outline_offsets
    if len(off) < 2:
        return [], []
    pts = marks.outline_points.astype(float)
    starts = off[:-1]
    xs, ys = pts[:, 0], pts[:, 1]
    x0, x1 = np.minimum.reduceat(xs, starts), np.maximum.reduceat(xs, starts)
    y0, y1 = np.minimum.reduceat(ys, starts), np.maximum.reduceat(ys, starts)
    xm = np.add.reduceat(xs, starts) / np.diff(off)
    spots = np.round(np.stack([xm, y0 + 0.62 * (y1 - y0), x1 - x0], axis=1), 1).tolist()
    return spots, [f"{c:,}" for c in marks.counts.tolist()]


#: the part of a view's payload that its marks fix, by marks (which st.cache_resource shares between
#: the sessions showing the same view): made once, not on every click of every student
_GEOMETRY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_GEOMETRY_LOCK = threading.Lock()


def _geometry(tree: Tree, marks: Marks) -> dict:
    """Positions, names and collapsed marks (with their counts and where those go) of ``marks`` as
    the browser is sent them; made once per marks and tree (the same marks on a renamed tree are
    named afresh). Read only: the payloads of several sessions share it."""
    return _geometry_and_json(tree, marks)[0]


def _geometry_and_json(tree: Tree, marks: Marks) -> tuple[dict, bytes]:
    """:func:`_geometry` and its JSON (without the braces), encoded once too: most of a view's
    payload, which a click does not change."""
    with _GEOMETRY_LOCK:
        got = _GEOMETRY.get(marks)
    if got is not None and got[0] == tree.content_key:
        return got[1], got[2]
    ids = marks.vertices
    geo = {"vxy": _b64(marks.vertex_xy), "vid": _b64(ids.astype(np.int32)),
           "vname": [tree.name(v) for v in ids.tolist()],
           "ep": _b64(marks.edge_points), "eo": _b64(marks.edge_offsets.astype(np.int32)),
           "gp": _b64(marks.outline_points), "go": _b64(marks.outline_offsets.astype(np.int32)),
           "gcount": _b64(marks.counts.astype(np.int32)), "gname": _mark_names(tree, marks)}
    geo["glabel"], geo["gtext"] = _label_spots(marks)
    text = json.dumps(geo, separators=(",", ":"), default=_plain).encode()[1:-1]
    with _GEOMETRY_LOCK:
        _GEOMETRY[marks] = (tree.content_key, geo, text)
    return geo, text


def _encode(tree: Tree, marks: Marks, data: dict) -> bytes:
    """``data`` (a :func:`view_payload`) as the JSON text's bytes, its geometry spliced in as
    encoded once per marks."""
    geo, text = _geometry_and_json(tree, marks)
    rest = json.dumps({k: v for k, v in data.items() if k not in geo}, separators=(",", ":"),
                      default=_plain).encode()
    return b"{" + text + (b"," + rest[1:] if len(rest) > 2 else b"}")


def _mark_names(tree: Tree, marks: Marks) -> list[str]:
    name = tree.name
    out = []
    for kind, a, b, c in zip(marks.kinds.tolist(), marks.first.tolist(), marks.last.tolist(), marks.counts.tolist()):
        if kind == RUN:
            out.append(f"{name(a)} … {name(b)} (siblings)")
        elif kind == BAND:
            out.append(f"below {name(a)}")
        else:
            out.append(f"subtree of {name(a)}" if c > 1 else name(a))
    return out


# ------------------------------------------------------------------ the view
def tree_view(tree: Tree, key: str, *, values=None, scale=PROBABILITY_SCALE, lo: float = 0.0, hi: float = 1.0,
              value_title: str = "", categories=None, rings: Sequence[int] = (), ring_name: str = "evidence",
              highlight: Sequence[int] = (), selected: int | None = None, default: int | None = None,
              path_of: int | None = None, height: int = 520, on_pick: Callable[[int], None] | None = None,
              hover=None, describe: str = "", show_path: bool = True, layout: str = "auto",
              export_name: str | None = None, page: str | None = None, arrows: Sequence[tuple[int, int, str]] = (),
              current_arrow: int | None = None, title: str = "", csv: Callable[[], bytes] | None = None) -> Marks:
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
    vertex). Returns the marks drawn.
    """
    style = current()
    vs = view_state(key)
    if vs.linked:   # a link's region: drawn on this tree
        vs = replace(vs, linked=False, tree=tree.content_key)
        set_view(key, vs)
    elif vs.tree != tree.content_key:   # a new tree (or the first view): its overview, the page's layout
        # numbered past the browser's requests, so that it draws this view rather than its own
        vs = ViewState(width=vs.width, height=height, layout=layout if _state_key(key) not in st.session_state
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
    st.session_state[f"{key}__shown"] = shown   # what a click on a collapsed mark refers to
    if selected is None:
        selected = selected_vertex(tree, key, default)
    query = (st.session_state.get(key) or {}).get("query") if key in st.session_state else None
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
    err = st.session_state.pop(f"{key}__error", None)
    # read aloud (the canvas names itself with data["desc"]): a skip link before, "CSV" (one row
    # per vertex, made when clicked) and "Describe" after
    text = FigureText(key=key, text=data["desc"], kind="view", csv=csv or (lambda: rows_csv(*tree_rows(
        tree, values=values, value_title=value_title, categories=categories, rings=rings, selected=selected))))
    text.before()
    # sent as the JSON text's bytes, which Streamlit forwards as they are: a dict would be searched
    # key by key for dataframes and encoded again on every rerun (a tenth of a click's server time)
    _COMPONENT(key=key, data=_encode(tree, marks, data), height="content",
               on_view_change=lambda: _on_view(key), on_layout_change=lambda: _on_layout(key),
               on_query_change=lambda: None, on_pick_change=lambda: _on_pick(tree, key, on_pick),
               on_choose_change=lambda: _on_choose(tree, key, on_pick), on_open_change=lambda: _on_open(tree, key))
    if err:
        st.error(err)
    if page is not None:
        links.write_query(page)
    export_buttons(None, key=key, name=export_name or key,
                   draw=(lambda: view_svg(pic, style, select=SELECT, highlight=HIGHLIGHT),
                         lambda: view_pdf(pic, style, select=SELECT, highlight=HIGHLIGHT)), csv=text.csv)
    text.after()
    return marks


def view_payload(tree: Tree, key: str, drawing: TreeDrawing, marks: Marks, *, values=None, scale=PROBABILITY_SCALE,
                 lo: float = 0.0, hi: float = 1.0, value_title: str = "", categories=None, rings=(),
                 ring_name: str = "evidence", highlight=(), selected=None, path_of=None, hover=None,
                 describe: str = "", show_path: bool = True, style=None, query: str | None = None,
                 arrows: Sequence[tuple[int, int, str]] = (), current_arrow: int | None = None,
                 title: str = "") -> tuple:
    """What the browser is sent for ``marks`` (a JSON-ready dict: positions and colours as base64
    arrays) and the :class:`ViewPicture` its exports draw. No Streamlit call: the benchmark times
    it as the server's work for one view."""
    style = style or current()
    ids = marks.vertices
    k = len(ids)
    data: dict = {"key": key, "vp": [marks.viewport.x0, marks.viewport.x1, marks.viewport.y0, marks.viewport.y1],
                  "w": marks.width, "h": marks.height, "marker": marks.marker, "layout": drawing.layout,
                  "count": tree.n, "font": style.font("label"), "edgeWidth": style.line(1.0),
                  "theme": {"background": style.background, "text": style.text, "edge": style.edge,
                            "vertex": style.vertex, "outline": style.outline, "label_bg": style.label_bg,
                            "collapsed": style.faint, "muted": style.muted, "family": FONT_FAMILY},
                  "select": SELECT, "highlight": HIGHLIGHT, "flagColour": EVIDENCE, "flagName": ring_name}
    data.update(_geometry(tree, marks))
    if hover is not None and k <= 5000:
        data["vtext"] = [str(hover(int(v))) for v in ids]
    fingerprint = [marks.viewport, marks.width, marks.height, marks.marker, drawing.layout]
    vfill = gfill = hxy = path = None
    if values is not None:
        vals = np.asarray(values, float)
        vfill = colour_bytes(vals[ids], scale, lo, hi)
        data["vfill"] = _b64(vfill)
        stats = drawing.stats(drawing.in_preorder(vals), marks)
        gfill3 = colour_bytes(stats.reshape(-1), scale, lo, hi)
        data["gfill"] = _b64(gfill3)
        gfill = gfill3.reshape(-1, 3, 3)[:, 1]
        data["gstat"] = _b64(stats.astype(np.float32))
        data["value"] = value_title or "value"
        data["legend"] = {"title": value_title, "lo": lo, "hi": hi, "scale": [[float(s), c] for s, c in scale]}
        fingerprint.append(hash(vals.tobytes()))
    elif categories is not None:
        codes, colours = categories
        codes = np.asarray(codes, np.int64)
        table = colour_bytes(np.arange(len(colours)), [[i / max(len(colours) - 1, 1), c] for i, c in enumerate(colours)],
                             0, max(len(colours) - 1, 1))
        vfill = table[codes[ids] % len(colours)]
        data["vfill"] = _b64(vfill)
        fingerprint.append(hash(codes.tobytes()))
    ring_set = np.asarray(sorted(int(v) for v in rings), np.int64)
    if ring_set.size:
        data["vflag"] = _b64(np.isin(ids, ring_set).astype(np.uint8))
        data["gflag"] = _b64(drawing.count_inside(ring_set, marks).astype(np.int32))
        fingerprint.append(hash(ring_set.tobytes()))
    hl = np.asarray(sorted(int(v) for v in highlight), np.int64)
    if hl.size:
        hxy = drawing.to_px(hl[:5000], marks)
        data["hxy"] = _b64(hxy)
        if len(marks.edges):
            data["ew"] = _b64((np.isin(marks.edges[:, 0], hl) & np.isin(marks.edges[:, 1], hl)).astype(np.uint8))
        fingerprint.append(hash(hl.tobytes()))
    if selected is not None and 0 <= int(selected) < tree.n:
        sel = int(selected)
        xy = drawing.to_px([sel], marks)[0]
        data["sel"] = [float(xy[0]), float(xy[1])]
        data["selName"] = tree.name(sel)
        fingerprint.append(sel)
    if show_path and path_of is not None and 0 <= int(path_of) < tree.n and int(path_of) != tree.root:
        path = drawing.root_path(int(path_of), marks)
        data["path"] = _b64(path)
        fingerprint.append(("path", int(path_of)))
    drawn_arrows = _arrows(tree, drawing, marks, arrows, current_arrow, style)
    if drawn_arrows:
        data["arrows"] = [list(a) for a in drawn_arrows]
        fingerprint.append(("arrows", tuple(drawn_arrows)))
    if title:
        data["title"] = title
        fingerprint.append(("title", title))
    # the order names are tried in: the selected vertex, the ringed ones, then top down
    first = [int(i) for i in np.flatnonzero(ids == selected)] if selected is not None else []
    if ring_set.size:
        first += [int(i) for i in np.flatnonzero(np.isin(ids, ring_set))[:200]]
    first = list(dict.fromkeys(first))
    data["labelFirst"] = first   # then the first 1,500 drawn, in order (treeview.js)
    lead = " ".join(x for x in (describe, title + "." if title else "") if x)   # the page's sentence first
    data["desc"] = _describe(tree, drawing, marks, lead, data.get("selName"), value_title, values, selected,
                             len(ring_set), ring_name)
    data["status"] = (f"{tree.n:,} vertices · {k:,} drawn · {len(marks.first):,} collapsed"
                      + (f" · one level in {marks.stride}" if marks.stride > 1 else ""))
    if query:
        data["query"] = query
        data["suggest"] = [{"id": v, "name": name} for v, name in suggest(tree, query)]
    data["rev"] = abs(hash(tuple(fingerprint))) % (1 << 52)
    pic = ViewPicture(marks.width, marks.height, marks.marker, marks.vertex_xy, vfill, data["vname"],
                      marks.edge_points, marks.edge_offsets, marks.outline_points, marks.outline_offsets, gfill,
                      marks.counts, path, tuple(data["sel"]) if "sel" in data else None, hxy, title, drawn_arrows)
    return data, pic


def _arrows(tree: Tree, drawing: TreeDrawing, marks: Marks, arrows, current, style) -> tuple:
    """``arrows`` placed on this view's canvas: ``(tail x, tail y, head x, head y, label x, label y,
    text, strong)`` in its px (y down), the strong one (``current``) last, so it is drawn on top.
    Kept per view, arrows and style, and shared by the sessions (a class following a step of eight
    messages placed them 30 times over: 7 % of each page's run)."""
    if not len(arrows):
        return ()
    return _placed(drawing, marks, tuple((int(s), int(r), str(t)) for s, r, t in arrows), current, style)


@st.cache_resource(max_entries=256, hash_funcs={TreeDrawing: _drawing_key, Marks: _marks_key}, show_spinner=False)
def _placed(drawing: TreeDrawing, marks: Marks, arrows: tuple, current, style) -> tuple:
    return _place(drawing, marks, arrows, current, style)


def _place(drawing: TreeDrawing, marks: Marks, arrows: tuple, current, style) -> tuple:
    # every drawn vertex is a disc the labels keep off, and each arrow's two ends
    ends = np.union1d(marks.vertices, [int(a) for s, r, _ in arrows for a in (s, r)]).astype(np.int64).tolist()
    at = {v: i for i, v in enumerate(ends)}
    xy = drawing.to_px(ends, marks).astype(float)
    placed = place_arrows(xy[:, 0], -xy[:, 1], [(at[int(s)], at[int(r)], str(t)) for s, r, t in arrows],
                          current=current, font=style.font("label"), radius=0.5 * marks.marker + 2, scale=style.scale,
                          bounds=(0.0, float(marks.width), -float(marks.height), 0.0))
    out = []
    for a in placed:   # a label that found no spot inside the canvas is moved back in
        hw, hh = 0.5 * (a.box[1] - a.box[0]) + 2, 0.5 * (a.box[3] - a.box[2]) + 2
        lx = min(max(a.tail[0] + a.offset[0], hw), max(hw, marks.width - hw))
        ly = min(max(-a.tail[1] - a.offset[1], hh), max(hh, marks.height - hh))
        out.append((round(a.tail[0], 1), round(-a.tail[1], 1), round(a.head[0], 1), round(-a.head[1], 1),
                    round(lx, 1), round(ly, 1), a.text, a.index == current))
    return tuple(sorted(out, key=lambda a: a[7]))


def _describe(tree, drawing, marks, describe, sel_name, value_title, values, selected, n_rings, ring_name) -> str:
    """The view in words (the figure's accessible name)."""
    parts = [describe.strip()] if describe else []
    parts.append(f"Tree of {tree.n:,} vertices, {drawing.layout} layout; this view draws {len(marks.vertices):,} "
                 f"vertices and {len(marks.first):,} collapsed groups.")
    if sel_name is not None:
        s = f"Vertex {sel_name} selected"
        if values is not None and value_title and selected is not None:
            v = float(np.asarray(values, float)[int(selected)])
            s += f", {value_title} = {v:.3g}" if math.isfinite(v) else ""
        parts.append(s + ".")
    if n_rings:
        parts.append(f"{n_rings:,} vertices with {ring_name}.")
    return " ".join(parts)
