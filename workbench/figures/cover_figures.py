"""Figures of the Cover Inspector: T_t over the shaded components, the decomposition tree D, an
icicle of D, heights by root and height growth by family (Herbster, Pasteris & Vitale, *Online
Sum-Product Computation over Trees*, Figure 1).

Each kind of component of D has a colour and a marker shape of its own (edge: grey square, rake:
blue circle, compress: orange diamond, root: purple hexagon).

Click targets carry ``customdata``: in the tree view a vertex marker carries its vertex index v
(>= 0) and an edge's midpoint marker carries ``-(z + 1)`` for the D node z of the component drawn
there; in D every node marker carries its node id z.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.cover import (
    COMPRESS,
    EDGE,
    KIND_NAMES,
    RAKE,
    ROOT,
    HierarchicalCover,
    RoundTrace,
)
from engine.trees import Tree
from engine.trees.layout import tidy_layout
from workbench.figures.style import (
    CATEGORICAL,
    NEUTRAL,
    OKABE_ITO,
    SELECT,
    Style,
    current,
    rgba,
    rich,
    sup,
)
from workbench.figures.tree_figure import fit_ranges, vertex_text

__all__ = [
    "DRAW_LIMIT",
    "KIND_COLORS",
    "KIND_SYMBOLS",
    "NESTED_LIMIT",
    "ROUND_COLORS",
    "contracted_tree_figure",
    "cover_tree_figure",
    "decomposition_figure",
    "growth_figure",
    "icicle_figure",
    "roots_figure",
]

KIND_COLORS = {EDGE: NEUTRAL, RAKE: OKABE_ITO["blue"], COMPRESS: OKABE_ITO["orange"], ROOT: OKABE_ITO["purple"]}
KIND_SYMBOLS = {EDGE: "square", RAKE: "circle", COMPRESS: "diamond", ROOT: "hexagon"}
#: colours of the shaded components (drawn translucent; nesting and width tell them apart too)
ROUND_COLORS = CATEGORICAL[:7]
#: up to this many vertices, every component formed so far is drawn (nested bands); above it,
#: only the maximal ones
NESTED_LIMIT = 400
#: above this many points a view is not drawn in full
DRAW_LIMIT = 40_000


def _scatter(n: int):
    return go.Scattergl if n > 1500 else go.Scatter


def _segments(x, y, a, b):
    k = len(a)
    ex = np.full(3 * k, np.nan)
    ey = np.full(3 * k, np.nan)
    ex[0::3], ex[1::3] = x[a], x[b]
    ey[0::3], ey[1::3] = y[a], y[b]
    return ex, ey


def _arcs(x, y, a, b, k: int = 16):
    """Curved segments from a to b (bulging to one side), so that edges made by compressions
    stay visible next to the path of T they shortcut."""
    ts = np.linspace(0.0, 1.0, k)
    x0, y0, x1, y1 = x[a], y[a], x[b], y[b]
    dx, dy = x1 - x0, y1 - y0
    bulge = 0.22
    px, py = -dy * bulge, dx * bulge  # perpendicular, proportional to the length
    w = 4 * ts * (1 - ts)
    ex = np.full((len(a), k + 1), np.nan)
    ey = np.full((len(a), k + 1), np.nan)
    ex[:, :k] = x0[:, None] + dx[:, None] * ts + px[:, None] * w
    ey[:, :k] = y0[:, None] + dy[:, None] * ts + py[:, None] * w
    return ex.ravel(), ey.ravel()


def _tint(hex_color: str, alpha: float, style: Style) -> str:
    """``hex_color`` at opacity ``alpha`` over the background, as an opaque colour (lines behind
    a faded marker stay hidden)."""
    h = hex_color.lstrip("#")
    b = style.background.lstrip("#")
    rgb = [round(int(b[i:i + 2], 16) + alpha * (int(h[i:i + 2], 16) - int(b[i:i + 2], 16))) for i in (0, 2, 4)]
    return f"rgb({rgb[0]},{rgb[1]},{rgb[2]})"


def _base_layout(fig, height, title, style: Style, ranges=None):
    fig.update_layout(
        title=dict(text=rich(title)) if title else None, height=height,
        margin=dict(l=10, r=10, t=40 if title else 10, b=10),
        xaxis=dict(visible=False), yaxis=dict(visible=False), clickmode="event+select",
        dragmode="pan", showlegend=True,
        # below the drawing (anchored at its top): a legend of several rows anchored at its bottom
        # grew upwards over the lowest row of D
        legend=dict(orientation="h", yanchor="top", y=-0.01, x=0))
    if ranges is not None:
        fig.update_layout(xaxis_range=ranges[0], yaxis_range=ranges[1])
    return style.apply(fig)


def _label_layout(labels, x, y, edges, size, fills, height, title, style: Style, ring: float = 0.0):
    """Label positions and colours (inside when they fit) and the axis ranges that keep every
    label in the plot."""
    pos, colours, boxes = vertex_text(labels, x, y, edges, size, style.font("label"), fills, style=style)
    r = (size + ring) / 2
    boxes = [tuple(max(v, r) for v in b) for b in boxes]
    # a horizontal legend of up to three rows sits under the drawing
    ranges = fit_ranges(x, y, boxes, height=height - 70, margin_y=(40 if title else 10) + 10)
    return np.asarray(pos, dtype=object), np.asarray(colours, dtype=object), ranges


def cover_tree_figure(cover: HierarchicalCover, layout, tr: RoundTrace, *, selected_node=None,
                      selected_vertex=None, height: int = 560, title: str | None = None,
                      style: Style | None = None) -> go.Figure:
    """T_t drawn on the layout of T, with the components formed before round t as nested shaded
    bands (wider for later rounds) and the mergeable vertices M_t in black, as in Figure 1."""
    st_ = style or current()
    tree = cover.tree
    x, y = layout
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    n, t = tree.n, tr.t
    tall = x.size > 2 and np.ptp(x) < 0.25 * np.ptp(y) and n <= NESTED_LIMIT
    S = _scatter(n)
    fig = go.Figure()
    e_par, e_child = cover.ends[: n - 1, 0], cover.ends[: n - 1, 1]
    internal = np.flatnonzero((cover.kind != EDGE) & (cover.round < t) & (cover.round >= 0))
    if n > NESTED_LIMIT and internal.size:
        par = cover.parent[internal]
        internal = internal[(par < 0) | (cover.round[np.maximum(par, 0)] >= t)]
    # shaded bands, widest (latest rounds) first so that nested ones lie on top
    rounds = sorted(set(cover.round[internal].tolist()), reverse=True)
    base = (6 if n <= 60 else 4 if n <= 400 else 2) * st_.scale
    per_component = n <= NESTED_LIMIT
    for r in rounds:
        zs = internal[cover.round[internal] == r]
        groups = [[z] for z in zs] if per_component else [zs]
        for i, g in enumerate(groups):
            leaves = np.concatenate([cover.leaf_order[cover.leaf_lo[z]:cover.leaf_hi[z]] for z in g])
            ex, ey = _segments(x, y, cover.ends[leaves, 0], cover.ends[leaves, 1])
            color = ROUND_COLORS[(int(g[0]) if per_component else r) % len(ROUND_COLORS)]
            fig.add_trace(S(x=ex, y=ey, mode="lines", hoverinfo="skip",
                            name=f"components of round {r}", legendgroup=f"round{r}",
                            showlegend=i == 0, legendrank=100 + r,
                            line=dict(color=rgba(color, 0.45), width=base * (2 + 1.6 * r))))
    # T's edges, thin
    ex, ey = _segments(x, y, e_par, e_child)
    fig.add_trace(S(x=ex, y=ey, mode="lines", hoverinfo="skip", name="edges of T",
                    line=dict(color=st_.faint if n <= 400 else st_.edge, width=st_.line(1.2))))
    # T_t's edges: solid when an edge of T, dashed when made by a compression
    v = tr.vertices[1:]
    p = tr.parent[1:]
    real = cover.s_parent[v] == p
    ink = st_.text
    if v.size:
        ex, ey = _segments(x, y, p[real], v[real])
        fig.add_trace(S(x=ex, y=ey, mode="lines", hoverinfo="skip", name=rich(f"T_{t} edges"),
                        line=dict(color=ink, width=st_.line(2.2 if n <= 400 else 1))))
        if (~real).any():
            ex, ey = (_arcs if n <= NESTED_LIMIT else _segments)(x, y, p[~real], v[~real])
            fig.add_trace(S(x=ex, y=ey, mode="lines", hoverinfo="skip", name=rich(f"T_{t} new edges"),
                            line=dict(color=ink, width=st_.line(2.2 if n <= 400 else 1), dash="dash")))
    # selected component
    if selected_node is not None:
        z = int(selected_node)
        e = cover.edges_of(z)
        ex, ey = _segments(x, y, e[:, 0], e[:, 1])
        fig.add_trace(S(x=ex, y=ey, mode="lines", hoverinfo="skip", name=sup("S", cover.node_name(z)),
                        line=dict(color=SELECT, width=base + 3)))
    # click targets on edges: the maximal component at time t holding the edge
    if n <= DRAW_LIMIT:
        owner = cover.edge_owner(t)
        mx, my = 0.5 * (x[e_par] + x[e_child]), 0.5 * (y[e_par] + y[e_child])
        dn = np.asarray(cover.node_names(), dtype=object)[owner]
        fig.add_trace(S(x=mx, y=my, mode="markers", customdata=-(owner + 1), name="components",
                        text=dn, hovertemplate="component S<sup>%{text}</sup><extra></extra>",
                        marker=dict(size=9 if n <= 400 else 4, color="rgba(0,0,0,0.01)"),
                        showlegend=False))
    # vertices: outside T_t (small, faint), in T_t (white), mergeable (black)
    in_t = np.zeros(n, bool)
    in_t[tr.vertices] = True
    merg = np.zeros(n, bool)
    merg[tr.vertices[tr.mergeable]] = True
    small = n <= 60
    size = st_.marker(n)
    names = np.asarray(tree.names, dtype=object) if n <= DRAW_LIMIT else None
    plot_h = int(np.clip(26 * np.ptp(y), height, 1000)) if tall else height
    # black and white as in the paper's Figure 1, in both themes (the outline follows the theme)
    fills = np.where(merg, "#000000", np.where(in_t, "#ffffff", st_.faint)).astype(object)
    ranges = None
    if small and names is not None:
        pos, colours, ranges = _label_layout(list(names), x, y, cover.ends[: n - 1], size, list(fills),
                                             plot_h, title, st_, ring=10)
    for mask, label, sz in ((~in_t, rich(f"not in T_{t}"), size * 0.75), (in_t & ~merg, rich(f"T_{t}"), size),
                            (merg, rich(f"M_{t} (mergeable)"), size)):
        idx = np.flatnonzero(mask)
        if not idx.size:
            continue
        fill = fills[idx[0]]
        fig.add_trace(S(
            x=x[idx], y=y[idx], mode="markers+text" if small else "markers", customdata=idx,
            text=names[idx] if names is not None else None,
            textposition=list(pos[idx]) if small and names is not None else None,
            textfont=dict(color=list(colours[idx]) if small and names is not None else ink, size=st_.font("label")),
            hovertemplate="vertex %{text}<extra></extra>" if names is not None else None,
            hoverinfo=None if names is not None else "skip", name=label,
            marker=dict(size=sz, color=fill, line=dict(width=st_.line(1.3) if n <= 2000 else 0.4, color=st_.outline))))
    ring = []
    if selected_node is not None:
        ring = cover.boundary_of(int(selected_node))
    if selected_vertex is not None:
        ring = ring + [int(selected_vertex)]
    if ring:
        ring = np.asarray(ring, np.int64)
        fig.add_trace(S(x=x[ring], y=y[ring], mode="markers", hoverinfo="skip",
                        name="boundary / selected", marker=dict(
                            size=size + 10, color="rgba(0,0,0,0)", line=dict(width=st_.line(3), color=SELECT))))
    # a tall, thin tree (a path) gets room for its labels
    _base_layout(fig, plot_h, title, st_, ranges)
    if tall:  # leave room for the arcs beside the path
        xs = np.concatenate([d.x for d in fig.data if d.x is not None]).astype(float)
        lo, hi = np.nanmin(xs) - 0.6, np.nanmax(xs) + 0.6
        if ranges is not None:
            lo, hi = min(lo, ranges[0][0]), max(hi, ranges[0][1])
        fig.update_xaxes(range=[lo, hi])
    return fig


def decomposition_figure(cover: HierarchicalCover, d_layout, t: int, *, selected_node=None,
                         chain=None, height: int = 560, title: str | None = None,
                         style: Style | None = None) -> go.Figure:
    """D with nodes coloured and shaped by kind; nodes formed in round >= t are faded.
    ``selected_node``: its subtree (the cover of S^z) is drawn bold; ``chain``: a vertex's chain of
    ancestors in D."""
    st_ = style or current()
    x, y = d_layout
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    m = cover.m
    S = _scatter(m)
    fig = go.Figure()
    child = np.flatnonzero(cover.parent >= 0)
    ex, ey = _segments(x, y, cover.parent[child], child)
    fig.add_trace(S(x=ex, y=ey, mode="lines", hoverinfo="skip", name="D", showlegend=False,
                    line=dict(color=st_.edge, width=st_.line(1))))
    if selected_node is not None:
        z = int(selected_node)
        sub_ = cover.subtree(z)
        sc = sub_[sub_ != z]
        ex, ey = _segments(x, y, cover.parent[sc], sc)
        fig.add_trace(S(x=ex, y=ey, mode="lines", hoverinfo="skip",
                        name="cover of " + sup("S", cover.node_name(z)),
                        line=dict(color=SELECT, width=st_.line(2.5))))
    if chain is not None and len(chain) > 1:
        c = np.asarray(chain, np.int64)
        ex, ey = _segments(x, y, c[1:], c[:-1])
        fig.add_trace(S(x=ex, y=ey, mode="lines", hoverinfo="skip", name="chain of ancestors",
                        line=dict(color=SELECT, width=st_.line(4), dash="dot")))
    small = m <= 80
    names = np.asarray(cover.node_names(), dtype=object) if m <= 2 * DRAW_LIMIT else None
    size = round((22 if m <= 40 else 18 if small else 7 if m <= 1000 else 4) * (st_.scale if small else 1))
    formed = cover.round < t
    sizes = np.where(cover.kind == EDGE, 0.7 * size, size)
    fills = np.array([KIND_COLORS[int(k)] if f else _tint(KIND_COLORS[int(k)], 0.25, st_)
                      for k, f in zip(cover.kind, formed)], dtype=object)
    ranges = None
    if small and names is not None:
        edges = np.stack([cover.parent[child], child], axis=1)
        pos, colours, ranges = _label_layout(list(names), x, y, edges, size, list(fills),
                                             height, title, st_, ring=10)
        # the small squares of edge components keep their names beside them
        for i in np.flatnonzero(cover.kind == EDGE):
            if pos[i] == "middle center":
                pos[i] = "bottom center"
                colours[i] = st_.text
    for k in (EDGE, RAKE, COMPRESS, ROOT):
        for done in (True, False):
            idx = np.flatnonzero((cover.kind == k) & (formed == done))
            if not idx.size:
                continue
            labelled = small and names is not None
            fig.add_trace(S(
                x=x[idx], y=y[idx], customdata=idx,
                text=names[idx] if names is not None else None,
                mode="markers+text" if labelled else "markers",
                textposition=list(pos[idx]) if labelled else None,
                textfont=dict(size=st_.font("small" if k == EDGE else "label"),
                              color=list(colours[idx]) if labelled else st_.text),
                hovertemplate=(("S<sup>%{text}</sup>" if k != EDGE else "edge %{text}") + f" · {KIND_NAMES[k]}"
                               + "<extra></extra>") if names is not None else None,
                hoverinfo=None if names is not None else "skip",
                name=KIND_NAMES[k] + ("" if done else " (formed later)"),
                showlegend=done or not (formed & (cover.kind == k)).any(),
                marker=dict(size=sizes[idx[0]], color=fills[idx[0]], symbol=KIND_SYMBOLS[k],
                            line=dict(width=st_.line(1) if m <= 2000 else 0,
                                      color=st_.outline if done else st_.edge))))
    ring = [int(selected_node)] if selected_node is not None else []
    if chain is not None:
        ring += [int(c) for c in chain[:1]]
    if ring:
        ring = np.asarray(ring, np.int64)
        fig.add_trace(S(x=x[ring], y=y[ring], mode="markers", hoverinfo="skip", name="selected",
                        marker=dict(size=size + 10, color="rgba(0,0,0,0)",
                                    line=dict(width=st_.line(3), color=SELECT))))
    return _base_layout(fig, height, title, st_, ranges)


def icicle_figure(cover: HierarchicalCover, *, max_nodes: int = 3000, height: int = 520,
                  style: Style | None = None) -> go.Figure:
    """Icicle of D: each component's width is its number of edges, colour and label its kind.
    Deep levels are cut so that at most ``max_nodes`` are drawn."""
    st_ = style or current()
    depth = cover.depth
    limit = int(depth.max())
    counts = np.bincount(depth)
    cum = np.cumsum(counts)
    if cum[-1] > max_nodes:
        limit = max(1, int(np.searchsorted(cum, max_nodes, side="right")) - 1)
    keep = np.flatnonzero(depth <= limit)
    names = [cover.node_name(int(z)) for z in keep]
    size = cover.node_size()
    fig = go.Figure(go.Icicle(
        ids=[str(z) for z in keep], labels=[sup("S", nm) if cover.kind[z] != EDGE else nm
                                            for z, nm in zip(keep, names)],
        parents=["" if cover.parent[z] < 0 else str(cover.parent[z]) for z in keep],
        values=size[keep], branchvalues="total",
        marker=dict(colors=[KIND_COLORS[int(cover.kind[z])] for z in keep],
                    line=dict(color=st_.background, width=1)),
        customdata=np.array([KIND_NAMES[int(cover.kind[z])] for z in keep], dtype=object),
        texttemplate="%{label}<br>%{customdata}",
        textfont=dict(size=st_.font("label")),
        hovertemplate="%{label} · %{customdata}<br>%{value} edges<extra></extra>",
        tiling=dict(orientation="v"), maxdepth=min(limit + 1, 8)))
    fig.update_layout(height=height, margin=dict(l=5, r=5, t=10, b=5))
    return st_.apply(fig)


def roots_figure(labels, heights, best: str | None = None, height: int = 320,
                 style: Style | None = None) -> go.Figure:
    """Cover height for every leaf as root (a bar per leaf, or a histogram for many leaves); the
    best root is drawn in the selection colour and marked with a star."""
    st_ = style or current()
    heights = np.asarray(heights)
    fig = go.Figure()
    if len(heights) <= 60:
        colors = [SELECT if lab == best else st_.vertex for lab in labels]
        fig.add_trace(go.Bar(x=[str(v) for v in labels], y=heights, marker_color=colors,
                             text=["★" if lab == best else "" for lab in labels], textposition="outside",
                             hovertemplate="root %{x}: height %{y}<extra></extra>"))
        fig.update_xaxes(title="leaf used as root s", type="category")
    else:
        vals, cnt = np.unique(heights, return_counts=True)
        fig.add_trace(go.Bar(x=vals, y=cnt, marker_color=st_.vertex,
                             hovertemplate="height %{x}: %{y} leaves<extra></extra>"))
        fig.update_xaxes(title="cover height", dtick=1)
    fig.update_yaxes(title="height" if len(heights) <= 60 else "leaves")
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=10, b=10))
    return st_.apply(fig)


def growth_figure(rows: list[dict], height: int = 380, style: Style | None = None) -> go.Figure:
    """Cover height against n (log scale) for each family, with log2 n and log2 log2 n guides;
    each family has its own colour and marker shape."""
    st_ = style or current()
    fig = go.Figure()
    fams = sorted({r["family"] for r in rows}, key=lambda f: [r["family"] for r in rows].index(f))
    for i, f in enumerate(fams):
        rs = [r for r in rows if r["family"] == f]
        fig.add_trace(go.Scatter(x=[r["n"] for r in rs], y=[r["height"] for r in rs], mode="lines+markers",
                                 name=f, line=dict(color=CATEGORICAL[i % len(CATEGORICAL)], width=st_.line(3)),
                                 marker=dict(symbol=["circle", "square", "diamond", "triangle-up"][i % 4],
                                             size=st_.line(9))))
    ns = np.array(sorted({r["n"] for r in rows}), float)
    fig.add_trace(go.Scatter(x=ns, y=np.log2(ns), mode="lines", name="log<sub>2</sub> n",
                             line=dict(color=st_.muted, dash="dot", width=st_.line(1.5))))
    fig.add_trace(go.Scatter(x=ns, y=np.log2(np.log2(ns)), mode="lines", name="log<sub>2</sub> log<sub>2</sub> n",
                             line=dict(color=st_.muted, dash="dash", width=st_.line(1.5))))
    fig.update_xaxes(type="log", title="vertices n", dtick=1)
    fig.update_yaxes(title="height of the optimal (2,s)-cover", rangemode="tozero")
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=10, b=10),
                      legend=dict(orientation="h", y=1.08))
    return st_.apply(fig)


def contracted_tree_figure(cover: HierarchicalCover, tr: RoundTrace, *, height: int = 560,
                           title: str | None = None, style: Style | None = None) -> go.Figure:
    """T_t alone, in its own tidy layout (for trees too large to draw whole): mergeable vertices
    filled, edges made by compressions dashed. Vertex markers carry the vertex index of T."""
    st_ = style or current()
    tree = cover.tree
    verts = tr.vertices
    local = np.full(tree.n, -1, np.int64)
    local[verts] = np.arange(verts.size)
    lp = np.where(tr.parent >= 0, local[np.maximum(tr.parent, 0)], -1)
    sub_tree = Tree.from_parent(lp)
    x, y = tidy_layout(sub_tree)
    k = verts.size
    S = _scatter(k)
    fig = go.Figure()
    child = np.arange(1, k)
    real = cover.s_parent[verts[child]] == tr.parent[child]
    for mask, dash, name in ((real, None, f"T_{tr.t} edges of T"), (~real, "dash", f"T_{tr.t} new edges")):
        if mask.any():
            ex, ey = _segments(x, y, lp[child[mask]], child[mask])
            fig.add_trace(S(x=ex, y=ey, mode="lines", hoverinfo="skip", name=rich(name),
                            line=dict(color=st_.text, width=1.2 if k <= 2000 else 0.6, dash=dash)))
    names = np.asarray(tree.names, dtype=object)[verts] if tree.n <= 2_000_000 else None
    for mask, label, fill in ((~tr.mergeable, f"T_{tr.t}", "#ffffff"),
                              (tr.mergeable, f"M_{tr.t} (mergeable)", "#000000")):
        idx = np.flatnonzero(mask)
        if idx.size:
            fig.add_trace(S(x=x[idx], y=y[idx], mode="markers", customdata=verts[idx], name=rich(label),
                            text=names[idx] if names is not None else None,
                            hovertemplate="vertex %{text}<extra></extra>",
                            marker=dict(size=8 if k <= 2000 else 4, color=fill,
                                        line=dict(width=0.8, color=st_.outline))))
    return _base_layout(fig, height, title, st_)
