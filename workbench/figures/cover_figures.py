"""Figures of the Cover Inspector besides its two trees (drawn by :mod:`workbench.treeview`): an
icicle of D, heights by root and height growth by family (Herbster, Pasteris & Vitale, *Online
Sum-Product Computation over Trees*, Figure 1).

Each kind of component of D has a colour and a marker shape of its own (edge: grey square, rake:
blue circle, compress: orange diamond, root: purple hexagon).
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
)
from workbench.figures.style import (
    CATEGORICAL,
    NEUTRAL,
    OKABE_ITO,
    SELECT,
    Style,
    current,
    sup,
)

__all__ = [
    "KIND_COLORS",
    "KIND_SYMBOLS",
    "growth_figure",
    "icicle_figure",
    "roots_figure",
]

KIND_COLORS = {EDGE: NEUTRAL, RAKE: OKABE_ITO["blue"], COMPRESS: OKABE_ITO["orange"], ROOT: OKABE_ITO["purple"]}
KIND_SYMBOLS = {EDGE: "square", RAKE: "circle", COMPRESS: "diamond", ROOT: "hexagon"}


















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


