"""What the tree view is sent: the marks of one view, coloured and encoded for the canvas.

The engine chooses the marks (:class:`engine.trees.lod.TreeDrawing`); this module colours them with
what a page or a notebook shows (values on a colour scale, categories, rings, a selection and its
path to the root, message arrows) and encodes them as the JSON that ``workbench/assets/treeview.js``
draws: positions and colours as base64 arrays, the geometry of a view encoded once per marks. Two
hosts send it: the app's Streamlit component (:mod:`workbench.treeview`, which caches the engine's
work per session and server) and the notebook widget (:mod:`workbench.notebook`). No Streamlit here.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import threading
import weakref
from typing import Callable, Sequence

import numpy as np

from engine.trees import Tree
from engine.trees.lod import BAND, RUN, Marks, TreeDrawing, Viewport
from workbench.figures.arrows import place_arrows
from workbench.figures.style import FONT_FAMILY, PROBABILITY_SCALE, SELECT, Style, colour_bytes
from workbench.figures.view_export import ViewPicture

__all__ = ["view_payload", "view_request", "encode", "geometry_id", "SEND_GEOMETRY_ONCE", "name_index", "suggest", "DEFAULT_WIDTH", "EVIDENCE", "HIGHLIGHT", "SUGGESTIONS"]

#: the canvas width (px) assumed until the browser says (a page column at 1,600 px)
DEFAULT_WIDTH = 900
EVIDENCE = "#E69F00"   # an orange ring: a vertex with evidence (Okabe-Ito orange)
HIGHLIGHT = "#D55E00"  # a path or set the page points at (Okabe-Ito vermillion)
SUGGESTIONS = 8


# ------------------------------------------------------------------ names
def name_index(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """The names lower-cased and sorted, with the vertex of each (for prefix search; O(n log n))."""
    names = np.char.lower(np.asarray(tree.name_array(), dtype=str))
    order = np.argsort(names, kind="stable")
    return names[order], order


def suggest(tree: Tree, query: str, limit: int = SUGGESTIONS, *, index=None) -> list[tuple[int, str]]:
    """Up to ``limit`` vertices whose name starts with ``query`` (case ignored), an exact match
    first, then in name order: ``[(vertex, name)]``. O(log n) with ``index`` (:func:`name_index`
    of the tree, made once per tree by the caller); without, the names are sorted first."""
    q = (query or "").strip().lower()
    if not q:
        return []
    out: list[tuple[int, str]] = []
    exact = tree.find(query.strip())
    if exact is not None:
        out.append((int(exact), tree.name(int(exact))))
    names, order = index if index is not None else name_index(tree)
    i = int(np.searchsorted(names, q, side="left"))
    while i < len(names) and len(out) < limit and names[i].startswith(q):
        v = int(order[i])
        if exact is None or v != exact:
            out.append((v, tree.name(v)))
        i += 1
    return out


# ------------------------------------------------------------------ colours and geometry
def _plain(x):
    """A NumPy number in the payload as the Python number it is (json.dumps knows only those)."""
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"the tree view cannot send a {type(x).__name__}")


def _member(a: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """``np.isin(a, sorted_set)`` for a sorted, duplicate-free ``sorted_set``: one binary search per
    item (``np.isin`` sorts or spans both arrays: 30-60 µs for the few rings of a click's view, and
    three calls a click)."""
    if not sorted_set.size:
        return np.zeros(len(a), bool)
    at = np.searchsorted(sorted_set, a)
    np.minimum(at, sorted_set.size - 1, out=at)
    return sorted_set[at] == a


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
    got = _geometry_entry(tree, marks)
    return got[1], got[2]


#: Whether a browser that was sent a view's geometry is sent only its name after (the served app,
#: ``workbench.serve``, turns it on; a test harness reads every payload whole).
SEND_GEOMETRY_ONCE = False


def geometry_id(tree: Tree, marks: Marks) -> str:
    """A name for the geometry of ``marks`` on ``tree`` (a hash of its JSON): a browser that has
    it is sent the name instead (:func:`encode` with ``geometry=False``)."""
    return _geometry_entry(tree, marks)[3]


def _geometry_entry(tree: Tree, marks: Marks) -> tuple:
    with _GEOMETRY_LOCK:
        got = _GEOMETRY.get(marks)
    if got is not None and got[0] == tree.content_key:
        return got
    ids = marks.vertices
    geo = {"vxy": _b64(marks.vertex_xy), "vid": _b64(ids.astype(np.int32)),
           "vname": [tree.name(v) for v in ids.tolist()],
           "ep": _b64(marks.edge_points), "eo": _b64(marks.edge_offsets.astype(np.int32)),
           "gp": _b64(marks.outline_points), "go": _b64(marks.outline_offsets.astype(np.int32)),
           "gcount": _b64(marks.counts.astype(np.int32)), "gname": _mark_names(tree, marks)}
    geo["glabel"], geo["gtext"] = _label_spots(marks)
    text = json.dumps(geo, separators=(",", ":"), default=_plain).encode()[1:-1]
    entry = (tree.content_key, geo, text, hashlib.blake2b(text, digest_size=12).hexdigest())
    with _GEOMETRY_LOCK:
        _GEOMETRY[marks] = entry
    return entry


def encode(tree: Tree, marks: Marks, data: dict, *, geometry: bool = True) -> bytes:
    """``data`` (a :func:`view_payload` of ``marks``) as the JSON text's bytes that treeview.js
    parses, its geometry spliced in as encoded once per marks, and named (``"geo"``,
    :func:`geometry_id`). ``geometry=False``: the name only, for a browser that was sent this
    geometry already (treeview.js keeps the last few it was sent and asks again for one it lacks):
    a click that recolours the view sends its colours, not its positions and names (Online
    Marginals on 1,000 vertices: its two views' 11 KB per click instead of 99 KB)."""
    _, geo, text, gid = _geometry_entry(tree, marks)
    rest = json.dumps({**{k: v for k, v in data.items() if k not in geo}, "geo": gid}, separators=(",", ":"),
                      default=_plain).encode()
    return b"{" + (text + b"," if geometry else b"") + rest[1:]


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


# ------------------------------------------------------------------ the payload
def view_payload(tree: Tree, key: str, drawing: TreeDrawing, marks: Marks, *, values=None, scale=PROBABILITY_SCALE,
                 lo: float = 0.0, hi: float = 1.0, value_title: str = "", categories=None, rings=(),
                 ring_name: str = "evidence", highlight=(), selected=None, path_of=None, hover=None,
                 describe: str = "", show_path: bool = True, style=None, query: str | None = None,
                 arrows: Sequence[tuple[int, int, str]] = (), current_arrow: int | None = None,
                 title: str = "", suggest_names: Callable | None = None, place: Callable | None = None) -> tuple:
    """What the browser is sent for ``marks`` (a JSON-ready dict: positions and colours as base64
    arrays) and the :class:`ViewPicture` its exports draw. No Streamlit call: the benchmark times
    it as the server's work for one view.

    style : the figure style (default: the light one); suggest_names(tree, query) : the names
    suggested for ``query`` (default :func:`suggest`, which sorts the names on each call); place : the arrow
    placer (default :func:`_place`; the app passes one that keeps its answers)."""
    style = style or Style()
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
    ring_set = np.asarray(sorted({int(v) for v in rings}), np.int64)
    ringed = None
    if ring_set.size:
        ringed = _member(ids, ring_set)
        data["vflag"] = _b64(ringed.astype(np.uint8))
        data["gflag"] = _b64(drawing.count_inside(ring_set, marks).astype(np.int32))
        fingerprint.append(hash(ring_set.tobytes()))
    hl = np.asarray(sorted({int(v) for v in highlight}), np.int64)
    if hl.size:
        hxy = drawing.to_px(hl[:5000], marks)
        data["hxy"] = _b64(hxy)
        if len(marks.edges):
            data["ew"] = _b64((_member(marks.edges[:, 0], hl) & _member(marks.edges[:, 1], hl)).astype(np.uint8))
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
    drawn_arrows = _arrows(tree, drawing, marks, arrows, current_arrow, style, place=place)
    if drawn_arrows:
        data["arrows"] = [list(a) for a in drawn_arrows]
        fingerprint.append(("arrows", tuple(drawn_arrows)))
    if title:
        data["title"] = title
        fingerprint.append(("title", title))
    # the order names are tried in: the selected vertex, the ringed ones, then top down
    first = [int(i) for i in np.flatnonzero(ids == selected)] if selected is not None else []
    if ringed is not None:
        first += [int(i) for i in np.flatnonzero(ringed)[:200]]
    first = list(dict.fromkeys(first))
    data["labelFirst"] = first   # then the first 1,500 drawn, in order (treeview.js)
    lead = " ".join(x for x in (describe, title + "." if title else "") if x)   # the page's sentence first
    data["desc"] = _describe(tree, drawing, marks, lead, data.get("selName"), value_title, values, selected,
                             len(ring_set), ring_name)
    data["status"] = (f"{tree.n:,} vertices · {k:,} drawn · {len(marks.first):,} collapsed"
                      + (f" · one level in {marks.stride}" if marks.stride > 1 else ""))
    if query:
        data["query"] = query
        data["suggest"] = [{"id": v, "name": name} for v, name in (suggest_names or suggest)(tree, query)]
    data["rev"] = abs(hash(tuple(fingerprint))) % (1 << 52)
    pic = ViewPicture(marks.width, marks.height, marks.marker, marks.vertex_xy, vfill, data["vname"],
                      marks.edge_points, marks.edge_offsets, marks.outline_points, marks.outline_offsets, gfill,
                      marks.counts, path, tuple(data["sel"]) if "sel" in data else None, hxy, title, drawn_arrows)
    return data, pic


def _arrows(tree: Tree, drawing: TreeDrawing, marks: Marks, arrows, current, style, *, place=None) -> tuple:
    """``arrows`` placed on this view's canvas by ``place`` (default :func:`_place`): ``(tail x,
    tail y, head x, head y, label x, label y, text, strong)`` in its px (y down), the strong one
    (``current``) last, so it is drawn on top."""
    if not len(arrows):
        return ()
    return (place or _place)(drawing, marks, tuple((int(s), int(r), str(t)) for s, r, t in arrows), current, style)


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


def view_request(raw, width: int, height: int) -> tuple[int, int, Viewport | None, int] | None:
    """A browser's request for another view (``{"w", "h", "vp", "fit", "seq"}``, from the app's
    component or the notebook's widget): the canvas's width and height (bounded), the viewport
    (``None``: fit the tree) and the request's number; ``None`` for a malformed request (the view
    stays as it is). ``width``/``height``: the canvas's size when the request leaves it out."""
    raw = raw if isinstance(raw, dict) else {}
    try:
        w = int(min(max(float(raw.get("w") or width), 120), 8000))
        h = int(min(max(float(raw.get("h") or height), 120), 4000))
        vp = None if raw.get("fit") or not raw.get("vp") else Viewport(*(float(v) for v in raw["vp"]))
        seq = int(raw.get("seq") or 0)
    except (TypeError, ValueError):
        return None
    return w, h, vp, seq
