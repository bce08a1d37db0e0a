"""Plotly drawing of a tree: edges as one line trace, vertices as a separate marker trace.

Vertex indices are in ``customdata`` so that ``st.plotly_chart(..., on_select="rerun")`` selections
map back to vertices (``event["selection"]["points"][i]["customdata"]``). Large trees use WebGL and
no text labels.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.trees import Tree
from engine.trees.layout import tidy_layout

__all__ = ["tree_figure", "LABEL_LIMIT", "WEBGL_LIMIT", "edge_xy"]

LABEL_LIMIT = 60
WEBGL_LIMIT = 1500


def edge_xy(tree: Tree, x: np.ndarray, y: np.ndarray):
    """Edge segments as x and y arrays with None breaks, for one line trace."""
    e = tree.edges
    m = len(e)
    ex = np.full(3 * m, np.nan)
    ey = np.full(3 * m, np.nan)
    ex[0::3], ex[1::3] = x[e[:, 0]], x[e[:, 1]]
    ey[0::3], ey[1::3] = y[e[:, 0]], y[e[:, 1]]
    return ex, ey


def tree_figure(tree: Tree, *, layout=None, color=None, colorscale="Viridis", highlight=(),
                selected=None, title: str | None = None, height: int = 520,
                hover=None, marker_size=None) -> go.Figure:
    """A figure of ``tree`` with a tidy layout (or the given ``(x, y)``).

    color : per-vertex numbers (a colour scale) or CSS colours; highlight : vertices ringed in red;
    selected : one vertex drawn larger; hover : per-vertex extra hover text.
    """
    x, y = tidy_layout(tree) if layout is None else layout
    big = tree.n > WEBGL_LIMIT
    Scatter = go.Scattergl if big else go.Scatter
    ex, ey = edge_xy(tree, x, y)
    fig = go.Figure()
    fig.add_trace(Scatter(x=ex, y=ey, mode="lines", line=dict(color="#9aa5b1", width=1 if big else 1.6),
                          hoverinfo="skip", showlegend=False, name="edges"))
    show_text = tree.n <= LABEL_LIMIT
    names = tree.names if tree.n <= 20000 else None
    text = [f"<b>{names[i]}</b>" + (f"<br>{hover[i]}" if hover is not None else "") for i in range(tree.n)] if names else None
    size = marker_size or (22 if tree.n <= 30 else 14 if tree.n <= LABEL_LIMIT else 7 if tree.n <= 2000 else 3)
    marker = dict(size=size, line=dict(width=1, color="#33415c"))
    if color is None:
        marker["color"] = "#4c8bf5"
    else:
        marker["color"] = color
        if np.issubdtype(np.asarray(color).dtype, np.number):
            marker.update(colorscale=colorscale, showscale=True, colorbar=dict(thickness=12))
    fig.add_trace(Scatter(
        x=x, y=y, mode="markers+text" if show_text else "markers",
        text=list(names) if show_text else None, textposition="middle center",
        textfont=dict(color="white", size=11), hovertext=text, hoverinfo="text" if text else "none",
        customdata=np.arange(tree.n), marker=marker, showlegend=False, name="vertices"))
    hl = list(highlight)
    if selected is not None:
        hl = hl + [selected]
    if hl:
        hl = np.asarray(hl, np.int64)
        fig.add_trace(Scatter(x=x[hl], y=y[hl], mode="markers", hoverinfo="skip", showlegend=False,
                              marker=dict(size=size + 8, color="rgba(0,0,0,0)", line=dict(width=3, color="#e63946")),
                              name="highlight"))
    fig.update_layout(
        title=title, height=height, margin=dict(l=10, r=10, t=40 if title else 10, b=10),
        xaxis=dict(visible=False), yaxis=dict(visible=False), plot_bgcolor="white",
        # "pan": Streamlit turns click-to-select off in the select and lasso drag modes
        dragmode="pan", clickmode="event+select")
    return fig
