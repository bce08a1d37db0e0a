"""Figures of the OFDE page: learning curves against the batch levels (Koriche, *Online Forest
Density Estimation*, Figure 2), a forest drawn next to the Chow-Liu tree on one shared layout with
the differing edges marked (colour, width and dash), per-round times.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.trees import Tree
from engine.trees.layout import tidy_layout
from workbench.figures.style import CATEGORICAL, OKABE_ITO, SYMBOLS, Style, current
from workbench.figures.tree_figure import fit_ranges, vertex_text

__all__ = [
    "OURS_ONLY",
    "PALETTE",
    "THEIRS_ONLY",
    "forest_layout",
    "learning_curve_figure",
    "round_time_figure",
    "structure_figure",
]

PALETTE = CATEGORICAL
#: the colour and dash of the edges one structure has and the other lacks
OURS_ONLY = (OKABE_ITO["vermillion"], "solid")
THEIRS_ONLY = (OKABE_ITO["orange"], "dash")


def learning_curve_figure(curves: dict, levels: dict, *, title: str = "Average test log-likelihood",
                          height: int = 420, style: Style | None = None) -> go.Figure:
    """``curves``: label -> [[round, value], ...] drawn on a log round axis; ``levels``: label ->
    value, drawn as horizontal lines (the batch learners)."""
    s = style or current()
    fig = go.Figure()
    for k, (label, pts) in enumerate(curves.items()):
        pts = np.asarray(pts, dtype=float).reshape(-1, 2)
        fig.add_trace(go.Scatter(x=pts[:, 0], y=pts[:, 1], mode="lines+markers", name=label,
                                 line=dict(color=PALETTE[k % len(PALETTE)], width=s.line(2.2)),
                                 marker=dict(size=s.line(6), symbol=SYMBOLS[k % len(SYMBOLS)]),
                                 showlegend=True,
                                 hovertemplate="round %{x:,}<br>%{y:.4f} nats<extra>" + label + "</extra>"))
    # the levels' names sit at the left, where the online curves start far below them (at the right
    # they would sit on the curves that reach the levels): the highest above its line, the next below
    # its own, and so on, so that two close levels do not print one name over the other
    shown = sorted(((v, label) for label, v in levels.items() if v is not None), reverse=True)
    for k, (value, label) in enumerate(shown):
        colour = s.text if label.startswith("Chow-Liu") else s.muted
        fig.add_hline(y=value, line=dict(color=colour, width=s.line(1.6), dash="dash" if label.startswith("CLT") else "solid"),
                      annotation_text=f"{label} {value:.3f}",
                      annotation_position="top left" if k % 2 == 0 else "bottom left",
                      annotation_font=dict(color=colour, size=s.font("label")))
    ys = [v for v, _ in shown] + [y for pts in curves.values()
                                  for y in np.asarray(pts, dtype=float).reshape(-1, 2)[:, 1] if np.isfinite(y)]
    if shown and ys:   # room above the highest level for its name (autorange ignores annotations)
        lo, hi = min(ys), max(ys)
        span = hi - lo if hi > lo else 1.0
        fig.update_yaxes(range=[lo - 0.05 * span, hi + 0.14 * span])
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=50, b=10),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
                      hovermode="closest")
    # whole powers of ten only: the default log ticks read "2 5 10 2 5" in small print
    fig.update_xaxes(type="log", title="round t (log scale)", dtick=1)
    fig.update_yaxes(title="nats per sample")
    return s.apply(fig)


def forest_layout(n: int, edges) -> tuple[np.ndarray, np.ndarray]:
    """Tidy positions of a forest on ``n`` vertices: its components hang from a hidden root."""
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    parent = np.arange(n)

    def find(v):
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for a, b in e:
        ra, rb = find(a), find(b)
        parent[max(ra, rb)] = min(ra, rb)
    roots = [v for v in range(n) if find(v) == v]
    hidden = np.array([[r, n] for r in roots], dtype=np.int64)
    tree = Tree.from_edges(np.concatenate([e, hidden]), n + 1, root=n)
    x, y = tidy_layout(tree)
    return x[:n], y[:n] - y[:n].max()


def structure_figure(n: int, edges, *, names=None, marked=(), title: str = "", mark_colour: str | None = None,
                     mark_dash: str | None = None, layout=None, height: int = 460,
                     style: Style | None = None) -> go.Figure:
    """A forest on ``n`` variables; edges in ``marked`` (pairs) drawn thick in ``mark_colour``
    with ``mark_dash``. To compare two structures, draw both on one ``layout`` (for instance
    ``forest_layout`` of the reference tree), so every variable sits at the same place."""
    s = style or current()
    mark_colour = mark_colour or OURS_ONLY[0]
    mark_dash = mark_dash or OURS_ONLY[1]
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    x, y = forest_layout(n, e) if layout is None else (np.asarray(layout[0], float), np.asarray(layout[1], float))
    mk = {(min(a, b), max(a, b)) for a, b in marked}
    is_m = np.array([(min(a, b), max(a, b)) in mk for a, b in e], dtype=bool)
    fig = go.Figure()
    for sel, colour, width, dash, label in ((~is_m, s.edge, 1.8, "solid", "shared edges"),
                                            (is_m, mark_colour, 4.0, mark_dash, "differs")):
        sub = e[sel]
        if not len(sub):
            continue
        ex = np.full(3 * len(sub), np.nan)
        ey = np.full(3 * len(sub), np.nan)
        ex[0::3], ex[1::3] = x[sub[:, 0]], x[sub[:, 1]]
        ey[0::3], ey[1::3] = y[sub[:, 0]], y[sub[:, 1]]
        fig.add_trace(go.Scatter(x=ex, y=ey, mode="lines", line=dict(color=colour, width=s.line(width), dash=dash),
                                 hoverinfo="skip", name=label, showlegend=bool(sel.any() and is_m.any())))
    names = list(names) if names is not None else [f"X{i}" for i in range(n)]
    small = n <= 40
    size = s.marker(n) if small else 9
    text = [str(i) for i in range(n)]
    margin_y = 60 + 40
    if small:
        pos, colours, boxes = vertex_text(text, x, y, e, size, s.font("label"), [s.vertex] * n, style=s)
    else:
        pos, colours, boxes = "middle center", s.text, [(size / 2,) * 4] * n
    fig.add_trace(go.Scatter(
        x=x, y=y, mode="markers+text" if small else "markers", text=text if small else None,
        textposition=pos, textfont=dict(color=colours, size=s.font("label")),
        hovertext=[f"<b>{names[i]}</b> (variable {i})" for i in range(n)], hoverinfo="text",
        marker=dict(size=size, color=s.vertex, line=dict(width=s.line(1), color=s.outline)),
        customdata=np.arange(n), showlegend=False, name="variables"))
    xr, yr = fit_ranges(x, y, boxes, height=height, margin_y=margin_y) if n else (None, None)
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=50, b=10),
                      xaxis=dict(visible=False, range=xr), yaxis=dict(visible=False, range=yr),
                      legend=dict(orientation="h", yanchor="bottom", y=-0.08, xanchor="left", x=0))
    return s.apply(fig)


def round_time_figure(round_ms: list, *, height: int = 320, style: Style | None = None) -> go.Figure:
    """Median milliseconds per round over the rounds between evaluation points (log round axis)."""
    s = style or current()
    pts = np.asarray(round_ms, dtype=float).reshape(-1, 2)
    fig = go.Figure(go.Scatter(x=pts[:, 0], y=pts[:, 1], mode="lines+markers",
                               line=dict(color=OKABE_ITO["green"], width=s.line(2)),
                               hovertemplate="up to round %{x:,}<br>%{y:.3f} ms<extra></extra>"))
    fig.update_layout(title="Time per round (median over each stretch)", height=height,
                      margin=dict(l=10, r=10, t=50, b=10))
    fig.update_xaxes(type="log", title="round t (log scale)", dtick=1)
    fig.update_yaxes(title="ms per round", rangemode="tozero")
    return s.apply(fig)
