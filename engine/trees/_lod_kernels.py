"""The compiled kernels behind :mod:`engine.trees.lod` (numba, ``cache=True``, compiled on first
use, never at import).

Every array here is in *preorder numbering*: vertex ``i`` is the ``i``-th vertex of a depth-first
walk from the root (children in their stored, left-to-right order), so the subtree of ``i`` is the
range ``[i, i + size[i])`` and the children of a vertex are consecutive ranges. ``ptr``/``idx``
are the children lists (CSR), ``parent[0] == -1``.

Nothing here validates its input: :class:`engine.trees.lod.TreeDrawing` does, once.
"""

from __future__ import annotations

import math

import numpy as np
from engine.jit import inline_kernel, kernel

__all__ = ["TIDY", "RADIAL", "SUBTREE", "RUN", "BAND", "preorder_depth", "subtree_extents", "level_index", "select_marks",
           "vertex_xy", "edge_paths", "mark_polygons", "range_stats", "path_ranks"]

#: Layout codes.
TIDY, RADIAL = 0, 1


@kernel
def preorder_depth(parent):  # pragma: no cover - compiled
    """Each vertex's depth, in one pass (in preorder a parent comes before its children)."""
    n = parent.shape[0]
    depth = np.zeros(n, np.int64)
    for i in range(1, n):
        depth[i] = depth[parent[i]] + 1
    return depth


@kernel
def subtree_extents(parent, x, y, tx, depth):  # pragma: no cover - compiled
    """Per subtree (preorder numbering): its size, its box ``(x0, x1, y0, y1)`` in layout units,
    and its tidy extent ``(tx0, tx1, deepest depth)``, in one walk from the last vertex up."""
    n = parent.shape[0]
    size = np.ones(n, np.int64)
    box = np.empty((n, 4))
    ext = np.empty((n, 3))
    for i in range(n):
        box[i, 0] = x[i]
        box[i, 1] = x[i]
        box[i, 2] = y[i]
        box[i, 3] = y[i]
        ext[i, 0] = tx[i]
        ext[i, 1] = tx[i]
        ext[i, 2] = depth[i]
    for i in range(n - 1, 0, -1):
        p = parent[i]
        size[p] += size[i]
        box[p, 0] = min(box[p, 0], box[i, 0])
        box[p, 1] = max(box[p, 1], box[i, 1])
        box[p, 2] = min(box[p, 2], box[i, 2])
        box[p, 3] = max(box[p, 3], box[i, 3])
        ext[p, 0] = min(ext[p, 0], ext[i, 0])
        ext[p, 1] = max(ext[p, 1], ext[i, 1])
        ext[p, 2] = max(ext[p, 2], ext[i, 2])
    return size, box, ext


# ---------------------------------------------------------------- choosing the marks of one view
#: Kinds of collapsed mark: a subtree (``first == last``, its root); a run of consecutive siblings
#: at one drawn level (``first..last``); the band of a drawn vertex (``first == last``, the vertex):
#: its descendants above the next drawn level that lie on no drawn edge.
SUBTREE, RUN, BAND = 0, 1, 2
#: Kinds of run of siblings (:func:`_runs`): one child, walked on; a run gathered into one mark;
#: a run wholly off the canvas (no mark; an edge towards its first and last).
ITEM, GATHERED, OFF = 0, 1, 2


@inline_kernel
def _breadth(lo, hi, deep, kind, sx, angle, ring):  # pragma: no cover - compiled
    """How wide an extent ``lo..hi`` (tidy x) down to depth ``deep`` is across siblings, in px:
    its tidy width (tidy), or the arc it spans at its deepest ring (radial)."""
    if kind == TIDY:
        return (hi - lo) * sx
    return (hi - lo) * angle * ring[int(deep)] * sx


@inline_kernel
def _length(ext, depth, i, kind, sy, ring):  # pragma: no cover - compiled
    """How long the subtree of ``i`` is from its root down to its deepest vertex, in px."""
    if kind == TIDY:
        return (ext[i, 2] - depth[i]) * sy
    return (ring[int(ext[i, 2])] - ring[depth[i]]) * sy


@inline_kernel
def _off(box, c, vx0, vy1, sx, sy, width, height, margin):  # pragma: no cover - compiled
    """Whether the subtree of ``c`` lies wholly off the canvas (beyond ``margin`` px)."""
    return ((box[c, 1] - vx0) * sx < -margin or (box[c, 0] - vx0) * sx > width + margin
            or (vy1 - box[c, 2]) * sy < -margin or (vy1 - box[c, 3]) * sy > height + margin)


@kernel
def level_index(depth):  # pragma: no cover - compiled
    """The vertices of each depth in preorder: level ``d`` is ``lvl_idx[lvl_ptr[d]:lvl_ptr[d + 1]]``
    (sorted, so the descendants of ``v`` at depth ``d`` are one slice, found by bisection)."""
    n = depth.shape[0]
    top = 0
    for i in range(n):
        top = max(top, depth[i])
    ptr = np.zeros(top + 2, np.int64)
    for i in range(n):
        ptr[depth[i] + 1] += 1
    for d in range(top + 1):
        ptr[d + 1] += ptr[d]
    fill = ptr[:-1].copy()
    idx = np.empty(n, np.int64)
    for i in range(n):
        idx[fill[depth[i]]] = i
        fill[depth[i]] += 1
    return ptr, idx


@kernel
def select_marks(parent, depth, x, y, tx, box, ext, size, ptr, idx, lvl_ptr, lvl_idx, kind, angle, ring, stride,
                 vx0, vy1, sx, sy, width, height, marker, budget):  # pragma: no cover - compiled
    """The marks of one view (preorder numbering throughout).

    The view maps layout ``(x, y)`` to the pixel ``((x - vx0) * sx, (vy1 - y) * sy)`` of a
    ``width`` x ``height`` canvas. Only every ``stride``-th level is drawn (the levels are then at
    least ``marker`` px apart): the tree walked is the tree of those levels, breadth first from the
    root. At a walked vertex, the children one drawn level down are gathered (:func:`_runs`): one
    at least ``marker`` px wide is walked on; narrower neighbours make one collapsed mark (a *run*)
    until the run is ``marker`` px wide; those wholly off the canvas get no mark (an edge towards
    them is kept). A subtree smaller than ``marker`` px both ways is one collapsed mark. A walked
    vertex is drawn where no drawn vertex lies nearer than ``marker`` px (a grid of cells
    ``marker / sqrt 2`` px wide holds at most one); elsewhere it is passed through undrawn (its
    edges are drawn), as is a vertex off the canvas whose subtree reaches into it. The levels
    between two drawn ones: the vertices on the drawn edges are hidden on them; the rest, if any,
    make one *band* mark under their walked vertex. At most ``budget`` marks (drawn vertices,
    collapsed marks and edges): when the rest would not fit, what is left is collapsed.

    Returns ``(vertices, through, kinds, first, last, mext, roff, rlo, rhi, eu, ev, hidden)``: the
    drawn vertices; the vertices passed through undrawn on the canvas; each collapsed mark's kind
    (:data:`SUBTREE`, :data:`RUN`, :data:`BAND`), first and last vertex and extent ``(tx0, tx1,
    deepest depth)``, and its vertices as preorder ranges ``rlo[j]:rhi[j]`` for ``roff[g] <= j <
    roff[g + 1]``; the edges ``eu -> ev``; how many vertices the drawn edges hide (the passed
    through among them).
    """
    n = parent.shape[0]
    maxd = lvl_ptr.shape[0] - 2
    margin = marker
    cell = marker / math.sqrt(2.0)
    gw = int((width + 2 * margin) / cell) + 3
    gh = int((height + 2 * margin) / cell) + 3
    grid = np.full(gw * gh, -1, np.int64)
    cap = budget + 8
    verts = np.empty(cap, np.int64)
    px_of = np.empty(cap)
    py_of = np.empty(cap)
    nv = 0
    through = np.empty(64, np.int64)
    nt = 0
    kinds = np.empty(cap, np.int64)
    first = np.empty(cap, np.int64)
    last = np.empty(cap, np.int64)
    mext = np.empty((cap, 3))
    roff = np.zeros(cap + 1, np.int64)
    rlo = np.empty(cap, np.int64)
    rhi = np.empty(cap, np.int64)
    nr = 0
    ng = 0
    eu = np.empty(cap, np.int64)
    ev = np.empty(cap, np.int64)
    ne = 0
    hidden = 0
    queue = np.empty(n, np.int64)      # each vertex enters at most once
    anchor = np.empty(n, np.int64)     # the walked vertex one drawn level up
    on_canvas = np.empty(n, np.int8)   # 1: that vertex is on the canvas; 2: off it; 0: none (the root)
    seen = np.zeros(n if stride > 1 else 0, np.bool_)   # the vertices on drawn edges between levels
    runs = np.empty(0, np.int64)
    rext = np.empty((0, 3))
    d2 = marker * marker
    head = 0
    tail = 1
    queue[0] = 0
    anchor[0] = -1
    on_canvas[0] = 0
    while head < tail:
        c = queue[head]
        a = anchor[head]
        up = on_canvas[head]
        head += 1
        committed = nv + ng + ne + 2 * (tail - head)
        if _off(box, c, vx0, vy1, sx, sy, width, height, margin):
            if up == 1 and committed + 1 <= budget:   # an edge leaving the view
                eu[ne] = a
                ev[ne] = c
                ne += 1
            continue
        cx = (x[c] - vx0) * sx
        cy = (vy1 - y[c]) * sy
        inside = -margin <= cx <= width + margin and -margin <= cy <= height + margin
        small = (_breadth(ext[c, 0], ext[c, 1], ext[c, 2], kind, sx, angle, ring) < marker
                 and _length(ext, depth, c, kind, sy, ring) < marker)
        collapse = size[c] > 1 and small
        free = False
        gx = 0
        gy = 0
        if inside and not collapse:
            # is the place free? the cells within two of (gx, gy) hold every drawn vertex nearer than marker
            gx = int((cx + margin) / cell) + 1
            gy = int((cy + margin) / cell) + 1
            free = True
            for p in range(max(gx - 2, 0), min(gx + 3, gw)):
                for q in range(max(gy - 2, 0), min(gy + 3, gh)):
                    m = grid[q * gw + p]
                    if m >= 0 and (px_of[m] - cx) ** 2 + (py_of[m] - cy) ** 2 < d2:
                        free = False
        nrun = 0
        lo = 0
        hi = 0
        band = 0
        side = 0
        if not collapse:
            # the children one drawn level down, gathered into runs
            dk = depth[c] + stride
            if dk <= maxd:
                base = lvl_ptr[dk]
                lo = base + np.searchsorted(lvl_idx[base:lvl_ptr[dk + 1]], c + 1)
                hi = base + np.searchsorted(lvl_idx[base:lvl_ptr[dk + 1]], c + size[c])
                nrun, runs, rext = _runs(lvl_idx, lo, hi, box, ext, kind, angle, ring, vx0, vy1, sx, sy, width,
                                         height, marker, runs, rext)
            # the levels between: the band is what lies outside every run's span; its vertices on
            # the paths down to the children one drawn level down are hidden on their edges
            band = size[c] - 1
            cost = 2 if free else 0
            for r in range(nrun):
                f = lvl_idx[runs[3 * r + 1]]
                l = lvl_idx[runs[3 * r + 2]]
                band -= l + size[l] - f
                t = runs[3 * r]
                cost += 2 if t != GATHERED else 3
            side = band
            if band > 0 and hi > lo:
                for p in range(lo, hi):
                    u = parent[lvl_idx[p]]
                    while u != c and not seen[u]:
                        seen[u] = True
                        side -= 1
                        u = parent[u]
            if side > 0 and inside:
                cost += 1
            if committed + cost > budget:
                collapse = True
        if collapse:
            if committed + 1 <= budget:
                kinds[ng] = SUBTREE
                first[ng] = c
                last[ng] = c
                mext[ng, 0] = ext[c, 0]
                mext[ng, 1] = ext[c, 1]
                mext[ng, 2] = ext[c, 2]
                rlo, rhi = _fit(rlo, rhi, nr + 1)
                nr = _add_range(rlo, rhi, nr, c, c + size[c])
                ng += 1
                roff[ng] = nr
                if (up == 1 or (up == 2 and _crosses(x, y, a, c, vx0, vy1, sx, sy, width, height))) \
                        and committed + 2 <= budget:
                    eu[ne] = a
                    ev[ne] = c
                    ne += 1
            continue
        if free:
            grid[gy * gw + gx] = nv
            verts[nv] = c
            px_of[nv] = cx
            py_of[nv] = cy
            nv += 1
        elif inside:
            if nt == through.shape[0]:
                through = _grow(through)
            through[nt] = c
            nt += 1
            hidden += 1
        if up > 0 and (up == 1 or inside or _crosses(x, y, a, c, vx0, vy1, sx, sy, width, height)):
            eu[ne] = a
            ev[ne] = c
            ne += 1
        state = 1 if inside else 2
        for r in range(nrun):
            t = runs[3 * r]
            f = lvl_idx[runs[3 * r + 1]]
            l = lvl_idx[runs[3 * r + 2]]
            if t == ITEM:
                queue[tail] = f
                anchor[tail] = c
                on_canvas[tail] = state
                tail += 1
                continue
            if t == GATHERED:
                kinds[ng] = RUN
                first[ng] = f
                last[ng] = l
                mext[ng, 0] = rext[r, 0]
                mext[ng, 1] = rext[r, 1]
                mext[ng, 2] = rext[r, 2]
                rlo, rhi = _fit(rlo, rhi, nr + 1)
                nr = _add_range(rlo, rhi, nr, f, l + size[l])
                ng += 1
                roff[ng] = nr
            if inside or t == GATHERED:
                if inside or _crosses(x, y, c, f, vx0, vy1, sx, sy, width, height):
                    eu[ne] = c
                    ev[ne] = f
                    ne += 1
                if l != f and (inside or _crosses(x, y, c, l, vx0, vy1, sx, sy, width, height)):
                    eu[ne] = c
                    ev[ne] = l
                    ne += 1
        if side > 0 and inside:
            kinds[ng] = BAND
            first[ng] = c
            last[ng] = c
            mext[ng, 0] = tx[idx[ptr[c]]]
            mext[ng, 1] = tx[idx[ptr[c + 1] - 1]]
            mext[ng, 2] = min(depth[c] + stride - 1, ext[c, 2])
            # the gaps of c's range between the runs' spans
            nxt = c + 1
            for r in range(nrun):
                f = lvl_idx[runs[3 * r + 1]]
                l = lvl_idx[runs[3 * r + 2]]
                if f > nxt:
                    rlo, rhi = _fit(rlo, rhi, nr + 1)
                    nr = _add_range(rlo, rhi, nr, nxt, f)
                nxt = l + size[l]
            if c + size[c] > nxt:
                rlo, rhi = _fit(rlo, rhi, nr + 1)
                nr = _add_range(rlo, rhi, nr, nxt, c + size[c])
            ng += 1
            roff[ng] = nr
        elif inside:
            hidden += band
    return (verts[:nv].copy(), through[:nt].copy(), kinds[:ng].copy(), first[:ng].copy(), last[:ng].copy(),
            mext[:ng].copy(), roff[:ng + 1].copy(), rlo[:nr].copy(), rhi[:nr].copy(), eu[:ne].copy(),
            ev[:ne].copy(), hidden)


@inline_kernel
def _add_range(rlo, rhi, nr, lo, hi):  # pragma: no cover - compiled
    rlo[nr] = lo
    rhi[nr] = hi
    return nr + 1


@kernel
def _fit(rlo, rhi, need):  # pragma: no cover - compiled
    """``rlo``/``rhi`` grown to hold at least ``need`` + 1 ranges."""
    if need + 1 <= rlo.shape[0]:
        return rlo, rhi
    m = max(2 * rlo.shape[0], need + 1)
    a = np.empty(m, np.int64)
    b = np.empty(m, np.int64)
    a[: rlo.shape[0]] = rlo
    b[: rhi.shape[0]] = rhi
    return a, b


@kernel
def _crosses(x, y, a, b, vx0, vy1, sx, sy, width, height):  # pragma: no cover - compiled
    """Whether the box of the segment a-b meets the canvas (a cheap test for an edge worth drawing)."""
    ax = (x[a] - vx0) * sx
    bx = (x[b] - vx0) * sx
    ay = (vy1 - y[a]) * sy
    by = (vy1 - y[b]) * sy
    return max(ax, bx) >= 0 and min(ax, bx) <= width and max(ay, by) >= 0 and min(ay, by) <= height


@kernel
def _runs(lvl_idx, lo, hi, box, ext, kind, angle, ring, vx0, vy1, sx, sy, width, height, marker,
          runs, rext):  # pragma: no cover - compiled
    """The siblings ``lvl_idx[lo:hi]`` (one drawn level below a vertex, left to right) as runs
    ``(kind, first position, last position)`` (:data:`ITEM`, :data:`GATHERED`, :data:`OFF`): a
    child at least ``marker`` px wide is an item of its own; narrower neighbours are gathered
    until the run is ``marker`` px wide (a run of one is an item); neighbours wholly off the canvas
    make one run. Returns ``(count, runs, rext)``, ``rext[r]`` the run's tidy extent (``runs`` and
    ``rext`` grown as needed)."""
    margin = marker
    nr = 0
    open_kind = -1      # the open run: -1 none, GATHERED, OFF
    a = 0
    b = 0
    rlo = 0.0
    rhi = 0.0
    deep = 0.0
    for p in range(lo, hi):
        c = lvl_idx[p]
        off = _off(box, c, vx0, vy1, sx, sy, width, height, margin)
        narrow = (not off) and _breadth(ext[c, 0], ext[c, 1], ext[c, 2], kind, sx, angle, ring) < marker
        if open_kind == OFF and off:
            b = p
            continue
        if open_kind == GATHERED and narrow:
            nlo = min(rlo, ext[c, 0])
            nhi = max(rhi, ext[c, 1])
            ndeep = max(deep, ext[c, 2])
            if _breadth(nlo, nhi, ndeep, kind, sx, angle, ring) < marker:
                b = p
                rlo = nlo
                rhi = nhi
                deep = ndeep
                continue
        if open_kind >= 0:
            nr, runs, rext = _put(runs, rext, nr, ITEM if (open_kind == GATHERED and a == b) else open_kind,
                                  a, b, rlo, rhi, deep)
            open_kind = -1
        if off:
            open_kind = OFF
            a = p
            b = p
        elif narrow:
            open_kind = GATHERED
            a = p
            b = p
            rlo = ext[c, 0]
            rhi = ext[c, 1]
            deep = ext[c, 2]
        else:
            nr, runs, rext = _put(runs, rext, nr, ITEM, p, p, ext[c, 0], ext[c, 1], ext[c, 2])
    if open_kind >= 0:
        nr, runs, rext = _put(runs, rext, nr, ITEM if (open_kind == GATHERED and a == b) else open_kind,
                              a, b, rlo, rhi, deep)
    return nr, runs, rext


@kernel
def _put(runs, rext, nr, kind, a, b, lo, hi, deep):  # pragma: no cover - compiled
    if 3 * nr + 3 > runs.shape[0]:
        m = max(64, 2 * nr + 2)
        grown = np.empty(3 * m, np.int64)
        grown[: runs.shape[0]] = runs
        runs = grown
        gext = np.empty((m, 3))
        gext[: rext.shape[0]] = rext
        rext = gext
    runs[3 * nr] = kind
    runs[3 * nr + 1] = a
    runs[3 * nr + 2] = b
    rext[nr, 0] = lo
    rext[nr, 1] = hi
    rext[nr, 2] = deep
    return nr + 1, runs, rext


@kernel
def _grow(a):  # pragma: no cover - compiled
    out = np.empty(max(64, 2 * a.shape[0]), np.int64)
    out[: a.shape[0]] = a
    return out


# ---------------------------------------------------------------- geometry in pixels
@kernel
def vertex_xy(x, y, ids, vx0, vy1, sx, sy):  # pragma: no cover - compiled
    """Pixel centres of the vertices ``ids``, shape (len(ids), 2)."""
    out = np.empty((ids.shape[0], 2), np.float32)
    for j in range(ids.shape[0]):
        out[j, 0] = (x[ids[j]] - vx0) * sx
        out[j, 1] = (vy1 - y[ids[j]]) * sy
    return out


@inline_kernel
def _arc_steps(r_px, dtheta):  # pragma: no cover - compiled
    """Segments for an arc of radius ``r_px`` px through ``dtheta`` radians (8 px a segment)."""
    return max(1, min(48, int(math.ceil(abs(dtheta) * r_px / 8.0))))


@kernel
def edge_paths(x, y, depth, tx, eu, ev, kind, angle, ring, vx0, vy1, sx, sy):  # pragma: no cover - compiled
    """Each edge as a polyline in px: a straight segment (tidy), or out along the parent's ray to
    half-way, round the arc, and in along the child's ray (radial, so that no two edges cross).
    Returns ``(points (m, 2) float32, offsets (edges + 1,))``."""
    ne = eu.shape[0]
    offsets = np.zeros(ne + 1, np.int64)
    total = 0
    for j in range(ne):
        a = eu[j]
        b = ev[j]
        if kind == TIDY or depth[a] == 0:
            total += 2
        else:
            r = 0.5 * (ring[depth[a]] + ring[depth[b]])
            total += 3 + _arc_steps(r * sx, (tx[b] - tx[a]) * angle)
        offsets[j + 1] = total
    pts = np.empty((total, 2), np.float32)
    for j in range(ne):
        a = eu[j]
        b = ev[j]
        k = offsets[j]
        pts[k, 0] = (x[a] - vx0) * sx
        pts[k, 1] = (vy1 - y[a]) * sy
        k += 1
        if not (kind == TIDY or depth[a] == 0):
            r = 0.5 * (ring[depth[a]] + ring[depth[b]])
            ta = _theta(tx[a], angle)
            tb = _theta(tx[b], angle)
            steps = _arc_steps(r * sx, tb - ta)
            for s in range(steps + 1):
                t = ta + (tb - ta) * s / steps
                pts[k, 0] = (r * math.cos(t) - vx0) * sx
                pts[k, 1] = (vy1 - r * math.sin(t)) * sy
                k += 1
        pts[k, 0] = (x[b] - vx0) * sx
        pts[k, 1] = (vy1 - y[b]) * sy
    return pts, offsets


@inline_kernel
def _theta(t, angle):  # pragma: no cover - compiled
    """The angle of tidy x ``t`` in the radial layout: clockwise from the top."""
    return 0.5 * math.pi - t * angle


@kernel
def mark_polygons(x, y, depth, tx, runs, first, last, kind, angle, ring, vx0, vy1, sx, sy,
                  least):  # pragma: no cover - compiled
    """The outline of each collapsed mark in px: from its top (the root of its subtree, or the
    run of siblings) down to its deepest level over its tidy extent ``runs[g]``; a triangle or trapezoid (tidy) or a sector of the rings (radial). An
    outline less than ``least`` px wide at its base is widened to ``least`` about its middle, and
    one less than ``least`` px long is lengthened. Returns ``(points (m, 2) float32, offsets
    (marks + 1,))``."""
    ng = first.shape[0]
    offsets = np.zeros(ng + 1, np.int64)
    total = 0
    for g in range(ng):
        if kind == TIDY:
            total += 4
        else:
            a = first[g]
            b = last[g]
            r0, r1, tl, th = _sector(runs, g, ring, depth[a], angle, sx, least)
            top = _arc_steps(r0 * sx, (tx[b] - tx[a]) * angle) + 1
            bottom = _arc_steps(r1 * sx, th - tl) + 1
            total += top + bottom
        offsets[g + 1] = total
    pts = np.empty((total, 2), np.float32)
    for g in range(ng):
        a = first[g]
        b = last[g]
        k = offsets[g]
        if kind == TIDY:
            top = (vy1 - y[a]) * sy
            base = (vy1 + runs[g, 2]) * sy
            if base - top < least:
                base = top + least
            l = (runs[g, 0] - vx0) * sx
            r = (runs[g, 1] - vx0) * sx
            if r - l < least:
                mid = 0.5 * (l + r)
                l = mid - 0.5 * least
                r = mid + 0.5 * least
            pts[k, 0] = (x[a] - vx0) * sx
            pts[k, 1] = top
            pts[k + 1, 0] = (x[b] - vx0) * sx
            pts[k + 1, 1] = top
            pts[k + 2, 0] = r
            pts[k + 2, 1] = base
            pts[k + 3, 0] = l
            pts[k + 3, 1] = base
        else:
            r0, r1, tl, th = _sector(runs, g, ring, depth[a], angle, sx, least)
            ta = _theta(tx[a], angle)
            tb = _theta(tx[b], angle)
            steps = _arc_steps(r0 * sx, tb - ta)
            for s in range(steps + 1):
                t = ta + (tb - ta) * s / steps
                pts[k, 0] = (r0 * math.cos(t) - vx0) * sx
                pts[k, 1] = (vy1 - r0 * math.sin(t)) * sy
                k += 1
            steps = _arc_steps(r1 * sx, th - tl)
            for s in range(steps + 1):
                t = th + (tl - th) * s / steps
                pts[k, 0] = (r1 * math.cos(t) - vx0) * sx
                pts[k, 1] = (vy1 - r1 * math.sin(t)) * sy
                k += 1
    return pts, offsets


@inline_kernel
def _sector(runs, g, ring, d, angle, sx, least):  # pragma: no cover - compiled
    """Inner and outer radius and the two angles of run ``g``'s sector, at least ``least`` px
    long and wide."""
    r0 = ring[d]
    r1 = ring[int(runs[g, 2])]
    if (r1 - r0) * sx < least:
        r1 = r0 + least / sx
    tl = _theta(runs[g, 0], angle)
    th = _theta(runs[g, 1], angle)
    if abs(th - tl) * r1 * sx < least:
        mid = 0.5 * (tl + th)
        half = 0.5 * least / (r1 * sx)
        tl = mid + half
        th = mid - half
    return r0, r1, tl, th


# ---------------------------------------------------------------- colours of collapsed marks
@kernel
def range_stats(values, roff, rlo, rhi):  # pragma: no cover - compiled
    """min, mean and max of ``values`` over each mark's ranges ``rlo[j]:rhi[j]`` (``roff[g] <= j <
    roff[g + 1]``); NaN entries skipped, a mark with none gives NaN."""
    ng = roff.shape[0] - 1
    out = np.empty((ng, 3))
    for g in range(ng):
        mn = np.inf
        mx = -np.inf
        s = 0.0
        c = 0
        for j in range(roff[g], roff[g + 1]):
            for i in range(rlo[j], rhi[j]):
                v = values[i]
                if v == v:
                    if v < mn:
                        mn = v
                    if v > mx:
                        mx = v
                    s += v
                    c += 1
        if c == 0:
            out[g, 0] = np.nan
            out[g, 1] = np.nan
            out[g, 2] = np.nan
        else:
            out[g, 0] = mn
            out[g, 1] = s / c
            out[g, 2] = mx
    return out


@kernel
def path_ranks(x, y, parent, v, vx0, vy1, sx, sy, spacing):  # pragma: no cover - compiled
    """The path from ``v`` up to the root, thinned for drawing: a vertex nearer than ``spacing``
    px to the last one kept is left out (``v`` and the root are kept)."""
    out = np.empty(64, np.int64)
    count = 0
    lx = 1e300
    ly = 1e300
    u = v
    while u >= 0:
        px = (x[u] - vx0) * sx
        py = (vy1 - y[u]) * sy
        if u == v or parent[u] < 0 or (px - lx) ** 2 + (py - ly) ** 2 >= spacing * spacing:
            if count == out.shape[0]:
                out = _grow(out)
            out[count] = u
            count += 1
            lx = px
            ly = py
        u = parent[u]
    return out[:count].copy()
