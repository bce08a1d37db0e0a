"""The tree view in a notebook: the app's tree view as a widget, for JupyterLab, VS Code and marimo.

:class:`TreeView` is an anywidget that draws with the app's own JavaScript
(``workbench/assets/treeview.js``, the module the app loads as a Streamlit component) at the level of
detail of the current view (:class:`engine.trees.lod.TreeDrawing`): the browser asks Python for the
marks of each new viewport over the widget's traits, as the app's component asks the server, so a
tree of 10^6 vertices opens and moves with marks bounded by pixels. A wheel, a drag, a box
(shift-drag) or a key moves the view; a click on a vertex selects it (``view.selected``); a click on
a collapsed mark zooms into it; the search box finds a vertex by name.

Values recolour the same marks: ``view.values = marginals`` sends new colours for the view on
screen, the drawing is not built again. With a hierarchical cover ("Online Sum-Product Computation
over Trees", Herbster, Pasteris & Vitale, sections 2-3, Figure 1) the view draws T as Cover
Inspector does: coloured by the round each vertex is merged in, the vertices merged in round
``view.round`` ringed (a slider in the toolbar), and :meth:`TreeView.decomposition` gives the view
of the decomposition tree D, linked both ways.

No Streamlit: a notebook user need not run the app.

>>> from engine.trees.generators import random_tree
>>> view = TreeView(random_tree(1_000, seed=0))
>>> view.selected is None, view.tree.n
(True, 1000)
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from pathlib import Path

import anywidget
import numpy as np
import traitlets

from engine.cover import EDGE, KIND_NAMES, HierarchicalCover
from engine.errors import InvalidParameterError
from engine.trees import Tree
from engine.trees.lod import DEFAULT_MARKER, LAYOUTS, Marks, TreeDrawing, ViewError, Viewport
from workbench.figures.cover_figures import KIND_COLORS
from workbench.figures.style import PROBABILITY_SCALE, SEQUENTIAL_SCALE, Style
from workbench.treeview_data import DEFAULT_WIDTH, encode, name_index, suggest, view_payload, view_request

__all__ = ["TreeView"]

_ASSETS = Path(__file__).resolve().parent / "assets"
#: a selected component of D rings its vertices in T up to this many edges (as Cover Inspector)
COMPONENT_RING = 5_000
#: the views' marks kept per widget (going back to a view costs nothing)
MARKS_KEPT = 16
_NUMBER = itertools.count(1)


class TreeView(anywidget.AnyWidget):
    """A tree drawn at any size in a notebook; pick, search, zoom and recolour it from Python.

    Parameters
    ----------
    tree : Tree
    values : one number per vertex (marginals, say), coloured on ``scale`` from ``lo`` to ``hi``;
        None: no colours (or, with a cover, the round each vertex is merged in)
    cover : a :class:`engine.cover.HierarchicalCover` of ``tree``: T is drawn rooted at the cover's
        root s, the vertices merged in round :attr:`round` ringed; :meth:`decomposition` draws D
    rings : vertices ringed (evidence), counted inside collapsed marks; ring_name : what a ring means
    categories : instead of values, ``(codes, colours)``: each vertex's category and its colour
    highlight : vertices ringed in the highlight colour, the edges between two of them drawn thick
    layout : ``"auto"``, ``"tidy"`` or ``"radial"`` (the toolbar's button switches)
    height, width : the canvas in px (the width follows the notebook's column once drawn)

    Traits: ``selected`` (the vertex picked by a click or the search box, or None; settable),
    ``round`` (with a cover: the round shown, 0 to ``rounds``). Properties: ``values``, ``rings``,
    ``highlight`` (setting one recolours the view on screen; :meth:`set_values` changes the colour
    scale too).
    """

    _esm = _ASSETS / "treeview.js"
    _css = _ASSETS / "treeview.css"
    _payload = traitlets.Bytes(b"").tag(sync=True)   # the view's data (treeview_data.view_payload, encoded)
    _event = traitlets.Dict().tag(sync=True)         # the browser's last request: {name, value, n}
    selected = traitlets.Int(None, allow_none=True).tag(sync=True)
    round = traitlets.Int(0).tag(sync=True)
    rounds = traitlets.Int(0, read_only=True).tag(sync=True)

    def __init__(self, tree: Tree, values=None, cover: HierarchicalCover | None = None, *, rings=(),
                 ring_name: str = "evidence", value_title: str = "", scale=PROBABILITY_SCALE, lo: float = 0.0,
                 hi: float = 1.0, categories=None, highlight=(), layout: str = "auto", height: int = 520,
                 width: int = DEFAULT_WIDTH, title: str = "", describe: str = ""):
        if not isinstance(tree, Tree):
            raise InvalidParameterError(f"TreeView draws an engine.trees.Tree, not a {type(tree).__name__}")
        if layout not in ("auto", *LAYOUTS):
            raise ViewError(f"layout {layout!r} is not one of auto, {', '.join(LAYOUTS)}")
        self._cover = cover
        if cover is not None:
            if cover.tree.n != tree.n or cover.tree.content_key != tree.content_key:
                raise InvalidParameterError(f"the cover is of another tree ({cover.tree.n:,} vertices) than the "
                                            f"tree drawn ({tree.n:,} vertices)")
            tree = tree.rerooted(cover.s)   # T as the cover orients it (vertex numbers unchanged)
            merged = np.asarray(cover.vertex_round)
            self._merged = merged
            if values is None:   # the round each vertex is merged in (a leaf of T: never, grey)
                values, scale, lo, hi = np.where(merged < 0, np.nan, merged).astype(float), SEQUENTIAL_SCALE, 0.0, \
                    float(max(cover.rounds, 1))
                value_title = value_title or "merged in round"
        self.tree = tree
        self._key = f"notebook-view-{next(_NUMBER)}"
        self._style = Style()
        self._scale, self._lo, self._hi, self._value_title = scale, float(lo), float(hi), value_title
        self._values = self._checked_values(values)
        self._categories = categories
        self._rings = self._checked_vertices(rings, "rings")
        self._ring_name = ring_name
        self._highlight = self._checked_vertices(highlight, "highlight")
        self._path_of: int | None = None    # a vertex whose root path is drawn when none is selected
        self._title, self._describe, self._note = title, describe, ""
        self._drawings: dict[str, TreeDrawing] = {}
        self._layout = layout
        self._marks: OrderedDict = OrderedDict()
        self._shown: Marks | None = None
        self._names = None
        self._query = ""
        self._vp: Viewport | None = None    # None: the whole tree
        self._want: Viewport | None = None
        self._w, self._h, self._seq = int(width), int(height), 0
        self._d: TreeView | None = None   # the view of D (decomposition)
        self._t: TreeView | None = None   # the view of T, for a view of D
        self._ready = False
        if cover is not None:
            self._cover_rings(0)
        super().__init__(_payload=self._make_payload(None))
        if cover is not None:
            self.set_trait("rounds", int(cover.rounds))
        self._ready = True

    # ------------------------------------------------------------------ what is shown
    @property
    def values(self) -> np.ndarray | None:
        """One number per vertex, or None; setting it recolours the view on screen."""
        return self._values

    @values.setter
    def values(self, values) -> None:
        self.set_values(values)

    def set_values(self, values, *, scale=None, lo: float | None = None, hi: float | None = None,
                   value_title: str | None = None) -> None:
        """New values (one per vertex, or None), and optionally a new colour scale, range or title;
        ``view.values = ...`` keeps them. Recolours the view on screen."""
        self._values = self._checked_values(values)
        self._scale = self._scale if scale is None else scale
        self._lo = self._lo if lo is None else float(lo)
        self._hi = self._hi if hi is None else float(hi)
        self._value_title = self._value_title if value_title is None else value_title
        self._redraw()

    @property
    def rings(self) -> np.ndarray:
        """The ringed vertices (evidence); setting them redraws the view on screen."""
        return self._rings

    @rings.setter
    def rings(self, vertices) -> None:
        self._rings = self._checked_vertices(vertices, "rings")
        self._redraw()

    @property
    def highlight(self) -> np.ndarray:
        """The vertices ringed in the highlight colour (edges between two of them thick)."""
        return self._highlight

    @highlight.setter
    def highlight(self, vertices) -> None:
        self._highlight = self._checked_vertices(vertices, "highlight")
        self._redraw()

    @property
    def cover(self) -> HierarchicalCover | None:
        return self._cover

    def decomposition(self) -> "TreeView":
        """The view of the cover's decomposition tree D (one per view, made on first call): its
        nodes coloured by kind, the components formed in round :attr:`round` ringed. Linked as in
        Cover Inspector: a vertex selected in T draws its chain of ancestors in D; a node selected
        in D rings its component's vertices in T and draws the path to its splitting vertex."""
        cover = self._cover
        if cover is None:
            raise InvalidParameterError("this view has no cover: TreeView(tree, cover=optimal_cover(tree)) draws one")
        if self._d is None:
            kinds = np.asarray(cover.kind, np.int64)
            colours = [KIND_COLORS[k] for k in range(len(KIND_NAMES))]
            legend = ", ".join(f"{KIND_NAMES[k]} {name}" for k, name in enumerate(("grey", "blue", "orange", "purple")))
            self._d = TreeView(cover.to_tree(), categories=(kinds, colours), layout="tidy",
                               title=f"D: {cover.m:,} components, height {cover.height} ({legend})",
                               describe=f"The decomposition tree D of the cover ({cover.m:,} nodes, height "
                                        f"{cover.height}).")
            self._d._t = self
            self._d_rings(self.round)
        return self._d

    # ------------------------------------------------------------------ traits
    @traitlets.validate("round")
    def _valid_round(self, proposal):
        t = int(proposal["value"])
        top = self._cover.rounds if self._cover is not None else 0
        if not 0 <= t <= top:
            raise traitlets.TraitError(f"round {t} is outside 0..{top}")
        return t

    @traitlets.validate("selected")
    def _valid_selected(self, proposal):
        v = proposal["value"]
        if v is not None and not 0 <= int(v) < self.tree.n:
            raise traitlets.TraitError(f"vertex {v} is not one of the tree's {self.tree.n:,} (0..{self.tree.n - 1})")
        return v

    @traitlets.observe("round")
    def _on_round(self, change) -> None:
        if self._cover is None:
            return
        self._cover_rings(change["new"])
        if self._d is not None:
            self._d_rings(change["new"])
        self._redraw()

    @traitlets.observe("selected")
    def _on_selected(self, change) -> None:
        v = change["new"]
        d = self._d
        if self._cover is not None and d is not None:   # T's vertex: its chain in D
            chain = self._cover.ancestors(self._cover.node_of_vertex(v)) if v is not None else np.zeros(0, np.int64)
            d._path_of = int(chain[0]) if len(chain) else None
            d.highlight = chain
        t = self._t
        if t is not None:   # D's node: its component in T
            cover = t._cover
            small = v is not None and cover.node_size()[v] <= COMPONENT_RING
            t._path_of = int(cover.split_vertex[v]) if v is not None and cover.kind[v] != EDGE else None
            t.highlight = cover.vertices_of(v) if small else ()
        self._redraw()

    @traitlets.observe("_event")
    def _on_event(self, change) -> None:
        ev = change["new"] or {}
        handler = {"view": self._on_view, "layout": self._on_layout, "query": self._on_query, "pick": self._on_pick,
                   "choose": self._on_choose, "open": self._on_open}.get(ev.get("name"))
        if handler is not None:
            handler(ev.get("value"))

    # ------------------------------------------------------------------ the browser's requests
    def _on_view(self, raw) -> None:
        got = view_request(raw, self._w, self._h)
        if got is None:   # a malformed request from the browser: keep the view
            return
        self._w, self._h, self._vp, self._seq = got
        if self._vp is None:
            self._want = None
        self._redraw()

    def _on_layout(self, wanted) -> None:
        if wanted in LAYOUTS:
            self._layout, self._vp, self._want, self._seq = wanted, None, None, self._seq + 1
            self._redraw()

    def _on_query(self, text) -> None:
        self._query = str(text or "")[:1000]
        self._redraw()

    def _on_pick(self, ev) -> None:
        v = ev.get("id") if isinstance(ev, dict) else None
        if isinstance(v, int) and 0 <= v < self.tree.n:
            self.selected = v

    def _on_choose(self, ev) -> None:
        if not isinstance(ev, dict):
            return
        v = ev.get("id")
        if not (isinstance(v, int) and 0 <= v < self.tree.n):
            v = self.tree.find(str(ev.get("name", ""))[:1000])
        if v is None:
            self._note = f"No vertex is named {str(ev.get('name', ''))[:80]}."
            self._redraw()
            return
        self.focus(int(v), select=True)

    def _on_open(self, ev) -> None:
        """A collapsed mark clicked: the view that draws its first level (:meth:`TreeDrawing.opening`)."""
        g = ev.get("g") if isinstance(ev, dict) else None
        marks = self._shown
        if marks is None or not isinstance(g, int) or not 0 <= g < len(marks.first):
            return
        seq = ev.get("seq")   # the browser's number for this request (its later ones win)
        self._vp = self._want = self._drawing().opening(marks, g)
        self._seq = seq if isinstance(seq, int) else self._seq
        self._redraw()

    def focus(self, v: int, *, select: bool = False) -> None:
        """Zoom to vertex ``v`` (close enough to tell its neighbours apart); ``select``: select it too."""
        if not 0 <= int(v) < self.tree.n:
            raise InvalidParameterError(f"vertex {v} is not one of the tree's {self.tree.n:,} (0..{self.tree.n - 1})")
        d = self._drawing()
        vp = self._vp or d.overview(self._w, self._h)
        self._vp = self._want = d.focus(int(v), vp, self._w, self._h)
        self._seq += 1
        if select and self.selected != int(v):
            self.selected = int(v)   # redraws
        else:
            self._redraw()

    # ------------------------------------------------------------------ drawing
    def _drawing(self) -> TreeDrawing:
        d = self._drawings.get(self._layout)
        if d is None:
            d = TreeDrawing(self.tree, self._layout)   # O(n), once per layout
            self._drawings[self._layout] = self._drawings[d.layout] = d
            self._layout = d.layout   # "auto" resolved
        return d

    def _marks_of(self, d: TreeDrawing, vp: Viewport, marker: float) -> Marks:
        key = (d.layout, vp.x0, vp.x1, vp.y0, vp.y1, self._w, self._h, marker)
        m = self._marks.get(key)
        if m is None:
            m = d.marks(vp, self._w, self._h, marker=marker)
            self._marks[key] = m
            while len(self._marks) > MARKS_KEPT:
                self._marks.popitem(last=False)
        else:
            self._marks.move_to_end(key)
        return m

    def _suggest(self, tree: Tree, query: str):
        if self._names is None:
            self._names = name_index(tree)   # sorted once per view, on the first search
        return suggest(tree, query, index=self._names)

    def _make_payload(self, selected) -> bytes:
        d = self._drawing()
        marker = DEFAULT_MARKER * (self._style.scale if self.tree.n <= 400 else 1.0)
        vp = self._vp or d.overview(self._w, self._h)
        if d.layout == "radial":
            vp = vp.fitted(self._w, self._h)
        marks = self._marks_of(d, vp, marker)
        self._shown = marks
        path_of = selected if selected is not None else self._path_of
        title = " ".join(x for x in (self._title, self._note) if x)
        self._note = ""
        data, _ = view_payload(self.tree, self._key, d, marks, values=self._values, scale=self._scale, lo=self._lo,
                               hi=self._hi, value_title=self._value_title, categories=self._categories,
                               rings=self._rings, ring_name=self._ring_name, highlight=self._highlight,
                               selected=selected, path_of=path_of, describe=self._describe, style=self._style,
                               query=self._query or None, title=title, suggest_names=self._suggest)
        data["seq"] = self._seq
        data["overview"] = self._vp is None
        # the region asked for, before it was widened to the canvas: what a canvas of another width
        # asks for again, as long as the user has not moved the view (as the app's view does)
        w = self._want
        data["want"] = None if w is None else [w.x0, w.x1, w.y0, w.y1]
        return encode(self.tree, marks, data)

    def _redraw(self) -> None:
        if self._ready:
            self._payload = self._make_payload(self.selected)

    # ------------------------------------------------------------------ covers
    def _cover_rings(self, t: int) -> None:
        cover = self._cover
        self._rings = np.flatnonzero(self._merged == t) if t < cover.rounds else np.zeros(0, np.int64)
        self._ring_name = f"merged in round {t}"

    def _d_rings(self, t: int) -> None:
        d = self._d
        d._rings = np.flatnonzero(np.asarray(self._cover.round) == t)
        d._ring_name = f"formed in round {t}"
        d._redraw()

    # ------------------------------------------------------------------ checks
    def _checked_values(self, values):
        if values is None:
            return None
        vals = np.asarray(values, float)
        if vals.shape != (self.tree.n,):
            raise InvalidParameterError(f"{vals.shape[0] if vals.ndim else 1} values for a tree of "
                                        f"{self.tree.n:,} vertices (one per vertex)")
        return vals

    def _checked_vertices(self, vertices, what: str) -> np.ndarray:
        ids = np.asarray(list(vertices) if not isinstance(vertices, np.ndarray) else vertices, np.int64).reshape(-1)
        bad = ids[(ids < 0) | (ids >= self.tree.n)]
        if bad.size:
            raise InvalidParameterError(f"{what}: vertex {int(bad[0])} is not one of the tree's {self.tree.n:,} "
                                        f"(0..{self.tree.n - 1})")
        return ids
