"""Figures of the OFDE page: learning curves against the batch levels (the paper's Figure 2),
a forest drawn next to the Chow-Liu tree with the differing edges marked, per-round times.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.trees import Tree
from engine.trees.layout import tidy_layout

__all__ = ["learning_curve_figure", "structure_figure", "round_time_figure", "forest_layout", "PALETTE"]

PALETTE = ["#1f77b4", "#e4572e", "#2a9d8f", "#9b5de5", "#f4a261", "#264653"]
_LEVEL_COLOURS = {"Chow-Liu": "#222222", "CLT": "#6c757d"}


def learning_curve_figure(curves: dict, levels: dict, *, title: str = "Average test log-likelihood",
                          height: int = 420) -> go.Figure:
    """``curves``: label -> [[round, value], ...] drawn on a log round axis; ``levels``: label ->
    value, drawn as horizontal lines (the batch learners)."""
    fig = go.Figure()
    for k, (label, pts) in enumerate(curves.items()):
        pts = np.asarray(pts, dtype=float).reshape(-1, 2)
        fig.add_trace(go.Scatter(x=pts[:, 0], y=pts[:, 1], mode="lines+markers", name=label,
                                 line=dict(color=PALETTE[k % len(PALETTE)], width=2.2), marker=dict(size=5),
                                 showlegend=True,
                                 hovertemplate="round %{x:,}<br>%{y:.4f} nats<extra>" + label + "</extra>"))
    for k, (label, value) in enumerate(levels.items()):
        if value is None:
            continue
        colour = _LEVEL_COLOURS.get(label.split(" ")[0], "#444444")
        fig.add_hline(y=value, line=dict(color=colour, width=1.6, dash="dash" if label.startswith("CLT") else "solid"),
                      annotation_text=f"{label} {value:.3f}",
                      annotation_position="bottom right" if k % 2 == 0 else "bottom left",
                      annotation_font=dict(color=colour))
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=50, b=10), plot_bgcolor="white",
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
                      hovermode="closest")
    fig.update_xaxes(type="log", title="round t (log scale)", gridcolor="#eceff4")
    fig.update_yaxes(title="nats per sample", gridcolor="#eceff4")
    return fig


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


def structure_figure(n: int, edges, *, names=None, marked=(), title: str = "", mark_colour: str = "#e4572e",
                     height: int = 460) -> go.Figure:
    """A forest on ``n`` variables; edges in ``marked`` (pairs) drawn thick in ``mark_colour``."""
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    x, y = forest_layout(n, e)
    mk = {(min(a, b), max(a, b)) for a, b in marked}
    is_m = np.array([(min(a, b), max(a, b)) in mk for a, b in e], dtype=bool)
    fig = go.Figure()
    for sel, colour, width, label in ((~is_m, "#9aa5b1", 1.8, "shared edges"), (is_m, mark_colour, 4.0, "differs")):
        sub = e[sel]
        if not len(sub):
            continue
        ex = np.full(3 * len(sub), np.nan)
        ey = np.full(3 * len(sub), np.nan)
        ex[0::3], ex[1::3] = x[sub[:, 0]], x[sub[:, 1]]
        ey[0::3], ey[1::3] = y[sub[:, 0]], y[sub[:, 1]]
        fig.add_trace(go.Scatter(x=ex, y=ey, mode="lines", line=dict(color=colour, width=width),
                                 hoverinfo="skip", name=label, showlegend=bool(sel.any() and is_m.any())))
    names = list(names) if names is not None else [f"X{i}" for i in range(n)]
    small = n <= 40
    fig.add_trace(go.Scatter(
        x=x, y=y, mode="markers+text" if small else "markers", text=[str(i) for i in range(n)] if small else None,
        textposition="middle center", textfont=dict(color="white", size=10),
        hovertext=[f"<b>{names[i]}</b> (variable {i})" for i in range(n)], hoverinfo="text",
        marker=dict(size=20 if small else 9, color="#4c8bf5", line=dict(width=1, color="#33415c")),
        customdata=np.arange(n), showlegend=False, name="variables"))
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=50, b=10), plot_bgcolor="white",
                      xaxis=dict(visible=False), yaxis=dict(visible=False),
                      legend=dict(orientation="h", yanchor="bottom", y=-0.08, xanchor="left", x=0))
    return fig


def round_time_figure(round_ms: list, *, height: int = 320) -> go.Figure:
    """Median milliseconds per round over the rounds between evaluation points (log round axis)."""
    pts = np.asarray(round_ms, dtype=float).reshape(-1, 2)
    fig = go.Figure(go.Scatter(x=pts[:, 0], y=pts[:, 1], mode="lines+markers", line=dict(color="#2a9d8f", width=2),
                               hovertemplate="up to round %{x:,}<br>%{y:.3f} ms<extra></extra>"))
    fig.update_layout(title="Time per round (median over each stretch)", height=height,
                      margin=dict(l=10, r=10, t=50, b=10), plot_bgcolor="white")
    fig.update_xaxes(type="log", title="round t (log scale)", gridcolor="#eceff4")
    fig.update_yaxes(title="ms per round", rangemode="tozero", gridcolor="#eceff4")
    return fig
