"""Level of detail for drawing a tree of any size: what a view of a given size can show.

A screen of 1,600 x 1,000 px can show a few thousand marks, whatever the number of vertices. Given
a tree, a layout and a viewport, :class:`TreeDrawing` returns the marks to draw: the vertices that
can be told apart (no two nearer than a marker), the edges between them, and every subtree (or run
of sibling subtrees) too small to resolve as one collapsed mark over its extent, labelled with its
vertex count, as the tree viewers built for millions of tips do (Taxonium; ETE's smartview
collapses a clade under about 10 px). After an O(n) preparation per tree and layout (preorder
numbering, subtree sizes and extents), a view walks the tree breadth first from the root and stops
at the marks: its cost is the marks it returns plus the vertices off the canvas it walks through
on the way to them (the ancestors of what is drawn).

Two layouts, both without edge crossings: the tidy drawing (:func:`engine.trees.layout.tidy_layout`:
rows by depth, x and y scaled to the screen separately) for deep trees, and a radial drawing of the
same order for wide ones (depth as the radius, the tidy x as the angle; edges go out along the
parent's ray, round the arc between the rings and in along the child's ray, so they cannot cross).
``layout="auto"`` picks radial when the tidy drawing is far wider than deep.

>>> from engine.trees.generators import random_tree
>>> drawing = TreeDrawing(random_tree(100_000, seed=3))
>>> marks = drawing.marks(drawing.overview(), 1600, 1000)
>>> marks.total <= 4000, int(marks.counts.sum() + len(marks.vertices)) <= 100_000
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.errors import EngineError
from engine.trees.model import Tree

__all__ = ["LAYOUTS", "DEFAULT_BUDGET", "DEFAULT_MARKER", "SUBTREE", "RUN", "BAND", "Viewport", "Marks",
           "TreeDrawing", "ViewError", "auto_layout"]

LAYOUTS = ("tidy", "radial")
#: marks of a view (vertices + collapsed marks + edges), whatever the tree's size
DEFAULT_BUDGET = 4000
#: a drawn vertex's diameter in px: no two drawn vertices are nearer than this
DEFAULT_MARKER = 10.0
#: ``auto`` draws radially a tree of more than this many vertices whose tidy drawing is more than
#: this many times wider than deep (a wide tree uses the circle's longer outer ring)
RADIAL_N, RADIAL_ASPECT = 100, 6.0
#: the overview leaves this share of the canvas free around the drawing
PAD = 0.03
#: kinds of collapsed mark (:attr:`Marks.kinds`), as the kernels number them
SUBTREE, RUN, BAND = 0, 1, 2


def _compiled():
    """The compiled kernels, imported on first use: importing the engine (``python -m engine --help``)
    does not load numba."""
    from engine.trees import _kernels, _lod_kernels

    return _lod_kernels, _kernels


class ViewError(EngineError, ValueError):
    """A viewport or canvas that cannot be drawn (empty, reversed, not finite)."""


@dataclass(frozen=True)
class Viewport:
    """The part of the layout plane a view shows: ``x0 <= x <= x1`` and ``y0 <= y <= y1``."""

    x0: float
    x1: float
    y0: float
    y1: float

    def __post_init__(self):
        vals = (self.x0, self.x1, self.y0, self.y1)
        if not all(math.isfinite(v) for v in vals):
            raise ViewError(f"viewport {self.to_text()} has a coordinate that is not a finite number")
        if not (self.x1 > self.x0 and self.y1 > self.y0):
            raise ViewError(f"viewport {self.to_text()} is empty: it needs x0 < x1 and y0 < y1")

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def centre(self) -> tuple[float, float]:
        return 0.5 * (self.x0 + self.x1), 0.5 * (self.y0 + self.y1)

    def to_text(self) -> str:
        """``"x0,x1,y0,y1"`` with enough digits to come back to the same view (to save a view)."""
        return ",".join(f"{v:.7g}" for v in (self.x0, self.x1, self.y0, self.y1))

    @classmethod
    def from_text(cls, text: str) -> "Viewport":
        """The inverse of :meth:`to_text`; a malformed text raises :class:`ViewError`."""
        parts = str(text).split(",")
        if len(parts) != 4:
            raise ViewError(f"viewport {text!r} needs four numbers x0,x1,y0,y1")
        try:
            vals = [float(p) for p in parts]
        except ValueError:
            raise ViewError(f"viewport {text!r} needs four numbers x0,x1,y0,y1") from None
        return cls(*vals)

    def zoomed(self, factor: float, about: tuple[float, float] | None = None) -> "Viewport":
        """The view ``factor`` times closer (``factor > 1`` zooms in) about a point (the centre)."""
        cx, cy = self.centre if about is None else about
        f = 1.0 / float(factor)
        return Viewport(cx - (cx - self.x0) * f, cx + (self.x1 - cx) * f, cy - (cy - self.y0) * f, cy + (self.y1 - cy) * f)

    def fitted(self, width: float, height: float) -> "Viewport":
        """The smallest viewport about the same centre that holds this one at one scale for x and y
        on a ``width`` x ``height`` px canvas (radial drawings are not stretched)."""
        cx, cy = self.centre
        s = max(self.width / width, self.height / height)
        return Viewport(cx - 0.5 * s * width, cx + 0.5 * s * width, cy - 0.5 * s * height, cy + 0.5 * s * height)


@dataclass(frozen=True, eq=False)
class Marks:
    """The marks of one view, vertex ids in the tree's numbering, geometry in px of the canvas
    (origin top left, y down).

    vertices : (k,) the vertices drawn, each as a marker at ``vertex_xy[i]``;
    kinds, first, last : (g,) each collapsed mark: a subtree (:data:`SUBTREE`, ``first == last``,
        its root), a run of consecutive siblings ``first..last`` one drawn level below a drawn
        vertex (:data:`RUN`), or the band of a drawn vertex ``first`` (:data:`BAND`: its
        descendants above the next drawn level that lie on no drawn edge); ``counts[g]`` the
        vertices it holds, ``outline(g)`` its polygon;
    edges : (e, 2) each edge drawn (parent, child), as the polyline
        ``edge_points[edge_offsets[j]:edge_offsets[j + 1]]`` (an edge may lead off the canvas);
    stride : only every ``stride``-th level is drawn (1 when the levels are a marker apart);
    through : the vertices on the canvas passed through undrawn (too near a drawn one): their
        edges are drawn;
    hidden : the vertices that the drawn edges pass through (the levels between drawn levels, and
        ``through``), drawn as no mark;
    total : k + g + e, at most the budget asked for.
    """

    viewport: Viewport
    width: int
    height: int
    marker: float
    stride: int
    vertices: np.ndarray
    vertex_xy: np.ndarray
    through: np.ndarray
    kinds: np.ndarray
    first: np.ndarray
    last: np.ndarray
    counts: np.ndarray
    range_offsets: np.ndarray   # each collapsed mark's vertices: preorder ranges range_lo[j]:range_hi[j],
    range_lo: np.ndarray        # range_offsets[g] <= j < range_offsets[g + 1]
    range_hi: np.ndarray
    hidden: int
    outline_points: np.ndarray
    outline_offsets: np.ndarray
    edges: np.ndarray
    edge_points: np.ndarray
    edge_offsets: np.ndarray

    @property
    def total(self) -> int:
        return len(self.vertices) + len(self.first) + len(self.edges)

    def outline(self, g: int) -> np.ndarray:
        return self.outline_points[self.outline_offsets[g]:self.outline_offsets[g + 1]]


def auto_layout(tree: Tree) -> str:
    """``"radial"`` for a tree of more than :data:`RADIAL_N` vertices whose tidy drawing is more
    than :data:`RADIAL_ASPECT` times wider than deep, else ``"tidy"``."""
    if tree.n <= RADIAL_N:
        return "tidy"
    leaves = int(np.count_nonzero(tree.children_ptr[1:] == tree.children_ptr[:-1]))
    return "radial" if leaves > RADIAL_ASPECT * (int(tree.depth.max()) + 1) else "tidy"


class TreeDrawing:
    """A tree prepared for drawing at any level of detail (O(n) time and memory, once).

    Parameters
    ----------
    tree : Tree
    layout : {"auto", "tidy", "radial"}
        ``auto``: :func:`auto_layout`.

    Attributes
    ----------
    layout : str
        The layout drawn.
    x, y : ndarray (n,)
        Every vertex's place in the layout plane (tidy: the tidy x and minus the depth; radial: the
        depth as the radius, the tidy x as the angle clockwise from the top), by vertex id.
    """

    def __init__(self, tree: Tree, layout: str = "auto"):
        K, TK = _compiled()
        if layout == "auto":
            layout = auto_layout(tree)
        if layout not in LAYOUTS:
            raise ViewError(f"layout {layout!r} is not one of auto, {', '.join(LAYOUTS)}")
        self.tree = tree
        self.layout = layout
        self._kind = K.TIDY if layout == "tidy" else K.RADIAL
        pre, ptr, idx, parent = TK.preorder_csr(tree.children_ptr, tree.children_idx, tree.root)
        # the tidy x of Buchheim, Juenger and Leipert, on the tree already in preorder (as tidy_x does)
        tx = TK.buchheim(ptr, idx, parent, np.arange(tree.n), TK.depth_first(ptr, idx, 0)[1])
        tx -= tx.min()
        depth = K.preorder_depth(parent)
        span = float(tx.max()) if tree.n else 0.0
        self._angle = 2.0 * math.pi / (span + 1.0)
        self._ring = np.arange(int(depth.max()) + 2, dtype=float)
        if self._kind == K.TIDY:
            x, y = tx, -depth.astype(float)
        else:
            r = self._ring[depth]
            theta = 0.5 * math.pi - tx * self._angle
            x, y = r * np.cos(theta), r * np.sin(theta)
        size, box, ext = K.subtree_extents(parent, x, y, tx, depth)
        self._lvl_ptr, self._lvl_idx = K.level_index(depth)
        self._pre = pre                       # preorder rank -> vertex
        rank = np.empty(tree.n, np.int64)
        rank[pre] = np.arange(tree.n)
        self._rank = rank                     # vertex -> preorder rank
        self._ptr, self._idx, self._parent = ptr, idx, parent
        self._x, self._y, self._tx, self._depth = x, y, tx, depth
        self._size, self._box, self._ext = size, box, ext
        self.x = np.empty(tree.n)
        self.y = np.empty(tree.n)
        self.x[pre] = x
        self.y[pre] = y

    # ------------------------------------------------------------------ viewports
    @property
    def bounds(self) -> Viewport:
        """The whole drawing (every vertex), at least one unit each way."""
        x0, x1, y0, y1 = self._box[0]
        if x1 - x0 < 1:
            x0, x1 = 0.5 * (x0 + x1) - 0.5, 0.5 * (x0 + x1) + 0.5
        if y1 - y0 < 1:
            y0, y1 = 0.5 * (y0 + y1) - 0.5, 0.5 * (y0 + y1) + 0.5
        return Viewport(float(x0), float(x1), float(y0), float(y1))

    def overview(self, width: float = 1600, height: float = 1000) -> Viewport:
        """The whole tree on a ``width`` x ``height`` canvas, with a margin (radial: one scale)."""
        b = self.bounds
        px, py = PAD * b.width, PAD * b.height
        v = Viewport(b.x0 - px, b.x1 + px, b.y0 - py, b.y1 + py)
        return v.fitted(width, height) if self.layout == "radial" else v

    def focus(self, v: int, viewport: Viewport, width: float, height: float, *,
              marker: float = DEFAULT_MARKER) -> Viewport:
        """A view centred on vertex ``v`` close enough that its neighbours can be told apart (a
        unit of the layout at least three markers), or ``viewport`` itself, recentred, if it is
        closer already."""
        cx, cy = float(self.x[v]), float(self.y[v])
        unit = 3.0 * marker
        w = min(viewport.width, width / unit)
        h = min(viewport.height, height / unit)
        if self.layout == "radial":
            s = min(w / width, h / height)
            w, h = s * width, s * height
        return Viewport(cx - 0.5 * w, cx + 0.5 * w, cy - 0.5 * h, cy + 0.5 * h)

    def extent(self, first: int, last: int) -> Viewport:
        """The box of a collapsed mark's vertices (a subtree, or a run of siblings)."""
        a, b = int(self._rank[first]), int(self._rank[last])
        box = self._box
        j = a
        x0, x1, y0, y1 = box[a]
        while j != b:
            j += int(self._size[j])
            x0, x1 = min(x0, box[j, 0]), max(x1, box[j, 1])
            y0, y1 = min(y0, box[j, 2]), max(y1, box[j, 3])
        return Viewport(float(x0) - 0.5, float(x1) + 0.5, float(y0) - 0.5, float(y1) + 0.5)

    def opening(self, marks: Marks, g: int) -> Viewport:
        """The view that opens collapsed mark ``g`` of ``marks``: centred on its first level (the
        run's siblings; the subtree's or band's vertex and its children) and close enough that
        neighbours there are 2.5 markers apart, at least twice as close as ``marks``' view."""
        kind, a, b = int(marks.kinds[g]), int(marks.first[g]), int(marks.last[g])
        ra, rb = int(self._rank[a]), int(self._rank[b])
        top = [ra]
        if kind == RUN:   # a run of one level: siblings, or cousins when the level is strided
            first, last = ra, rb
            k = int(np.count_nonzero(self._depth[ra:rb + 1] == self._depth[ra]))
        else:
            c0, c1 = int(self._ptr[ra]), int(self._ptr[ra + 1])
            first = int(self._idx[c0]) if c1 > c0 else ra
            last = int(self._idx[c1 - 1]) if c1 > c0 else ra
            k = c1 - c0
        pts = top + [first, last]
        d = self._depth[first]
        extent = float(self._tx[last] - self._tx[first])
        if self.layout == "radial":
            extent *= self._angle * self._ring[d]
        x, y = list(self._x[pts]), list(self._y[pts])
        if self.layout == "radial":   # the arc between the outer two, through its middle
            theta = 0.5 * math.pi - 0.5 * (self._tx[first] + self._tx[last]) * self._angle
            x.append(self._ring[d] * math.cos(theta))
            y.append(self._ring[d] * math.sin(theta))
        cx, cy = 0.5 * (min(x) + max(x)), 0.5 * (min(y) + max(y))
        vp, width, height, marker = marks.viewport, marks.width, marks.height, marks.marker
        w = max(1.4 * (max(x) - min(x)), 3.0)
        h = max(1.4 * (max(y) - min(y)), 3.0)
        if k > 1 and extent > 0:   # neighbours 2.5 markers apart
            w = min(w, width * (extent / (k - 1)) / (2.5 * marker))
        if self.layout == "tidy":   # and the levels 3 markers apart
            h = min(h, height / (3.0 * marker))
        w, h = min(w, 0.5 * vp.width), min(h, 0.5 * vp.height)
        out = Viewport(cx - 0.5 * w, cx + 0.5 * w, cy - 0.5 * h, cy + 0.5 * h)
        if self.layout == "radial":
            s = min(w / width, h / height)
            out = Viewport(cx - 0.5 * s * width, cx + 0.5 * s * width, cy - 0.5 * s * height, cy + 0.5 * s * height)
        return out

    # ------------------------------------------------------------------ the marks of a view
    def marks(self, viewport: Viewport, width: int, height: int, *, budget: int = DEFAULT_BUDGET,
              marker: float = DEFAULT_MARKER) -> Marks:
        """The marks of ``viewport`` on a ``width`` x ``height`` px canvas: at most ``budget`` marks,
        no two drawn vertices nearer than ``marker`` px. A radial view is drawn at one scale
        (:meth:`Viewport.fitted`)."""
        K = _compiled()[0]
        width, height = int(width), int(height)
        if not (16 <= width <= 20_000 and 16 <= height <= 20_000):
            raise ViewError(f"a canvas of {width} x {height} px cannot be drawn (16 to 20,000 px each way)")
        if not (2.0 <= marker <= 100.0):
            raise ViewError(f"marker size {marker} px is outside 2 to 100")
        if budget < 16:
            raise ViewError(f"a budget of {budget} marks is too small (at least 16)")
        if self.layout == "radial":
            viewport = viewport.fitted(width, height)
        sx, sy = width / viewport.width, height / viewport.height
        vx0, vy1 = viewport.x0, viewport.y1
        level_px = sy if self._kind == K.TIDY else sx
        stride = max(1, math.ceil(marker / level_px - 1e-9))
        (verts, through, kinds, first, last, mext, roff, rlo, rhi, eu, ev, hidden) = K.select_marks(
            self._parent, self._depth, self._x, self._y, self._tx, self._box, self._ext, self._size, self._ptr,
            self._idx, self._lvl_ptr, self._lvl_idx, self._kind, self._angle, self._ring, int(min(stride, 1 << 40)),
            vx0, vy1, sx, sy, width, height, float(marker), int(budget))
        opts, offs = K.mark_polygons(self._x, self._y, self._depth, self._tx, mext, first, last, self._kind,
                                     self._angle, self._ring, vx0, vy1, sx, sy, 0.6 * marker)
        epts, eoffs = K.edge_paths(self._x, self._y, self._depth, self._tx, eu, ev, self._kind, self._angle,
                                   self._ring, vx0, vy1, sx, sy)
        counts = np.add.reduceat(rhi - rlo, roff[:-1]) if len(first) else np.zeros(0, np.int64)
        pre = self._pre
        return Marks(viewport=viewport, width=width, height=height, marker=float(marker), stride=int(stride),
                     vertices=pre[verts], vertex_xy=K.vertex_xy(self._x, self._y, verts, vx0, vy1, sx, sy), through=pre[through],
                     kinds=kinds, first=pre[first], last=pre[last], counts=counts.astype(np.int64),
                     range_offsets=roff, range_lo=rlo, range_hi=rhi, hidden=int(hidden),
                     outline_points=opts, outline_offsets=offs,
                     edges=np.stack([pre[eu], pre[ev]], axis=1) if len(eu) else np.zeros((0, 2), np.int64),
                     edge_points=epts, edge_offsets=eoffs)

    # ------------------------------------------------------------------ what the marks hold
    def in_preorder(self, values) -> np.ndarray:
        """``values`` (one per vertex, by vertex id) in preorder, as :meth:`stats` takes them."""
        values = np.asarray(values, float)
        if values.shape != (self.tree.n,):
            raise ViewError(f"{values.shape[0] if values.ndim else 1} values for a tree of {self.tree.n} vertices")
        return np.ascontiguousarray(values[self._pre])

    def stats(self, values_pre: np.ndarray, marks: Marks) -> np.ndarray:
        """min, mean and max of the values (:meth:`in_preorder`) over each collapsed mark's vertices,
        shape (g, 3); NaN values are left out."""
        K = _compiled()[0]
        return K.range_stats(values_pre, marks.range_offsets, marks.range_lo, marks.range_hi)

    def count_inside(self, vertices, marks: Marks) -> np.ndarray:
        """How many of ``vertices`` (ids) each collapsed mark holds, shape (g,)."""
        if not len(marks.first):
            return np.zeros(0, np.int64)
        ranks = np.sort(self._rank[np.asarray(list(vertices), np.int64)])
        per_range = np.searchsorted(ranks, marks.range_hi) - np.searchsorted(ranks, marks.range_lo)
        return np.add.reduceat(per_range, marks.range_offsets[:-1]).astype(np.int64) if len(per_range) else \
            np.zeros(len(marks.first), np.int64)

    def holder(self, v: int, marks: Marks) -> int:
        """The collapsed mark that holds vertex ``v`` (its index), or -1."""
        r = int(self._rank[v])
        j = np.flatnonzero((marks.range_lo <= r) & (r < marks.range_hi))
        if not j.size:
            return -1
        return int(np.searchsorted(marks.range_offsets, j[0], side="right") - 1)

    def to_px(self, vertices, marks: Marks) -> np.ndarray:
        """Pixel centres of ``vertices`` (ids) on the canvas of ``marks``, shape (len, 2)."""
        K = _compiled()[0]
        vp = marks.viewport
        ids = self._rank[np.asarray(list(vertices), np.int64)]
        return K.vertex_xy(self._x, self._y, ids, vp.x0, vp.y1, marks.width / vp.width, marks.height / vp.height)

    def root_path(self, v: int, marks: Marks, *, spacing: float = 2.0) -> np.ndarray:
        """The path from the root down to ``v`` as one polyline in px, drawn as the edges are (radial:
        along the rays and arcs), vertices nearer than ``spacing`` px to the last kept thinned
        out; shape (m, 2)."""
        K = _compiled()[0]
        vp = marks.viewport
        sx, sy = marks.width / vp.width, marks.height / vp.height
        kept = K.path_ranks(self._x, self._y, self._parent, int(self._rank[v]), vp.x0, vp.y1, sx, sy, float(spacing))
        if kept.size < 2:
            return K.vertex_xy(self._x, self._y, kept, vp.x0, vp.y1, sx, sy)
        down = np.ascontiguousarray(kept[::-1])   # from the root down to v: one continuous line
        pts, _ = K.edge_paths(self._x, self._y, self._depth, self._tx, down[:-1], down[1:], self._kind, self._angle,
                              self._ring, vp.x0, vp.y1, sx, sy)
        return pts
