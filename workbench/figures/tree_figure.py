"""Plotly drawing of a tree: edges as one line trace, vertices as a separate marker trace.

Vertex indices are in ``customdata`` so that ``st.plotly_chart(..., on_select="rerun")`` selections
map back to vertices (``event["selection"]["points"][i]["customdata"]``). Large trees use WebGL and
no text labels.

Names are written inside a vertex only when they fit; otherwise beside it, on the side away from
its edges (:func:`label_positions`), and the axes leave room for them (:func:`fit_ranges`), so no
name is clipped at the plot's edge.
"""

from __future__ import annotations

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from engine.trees import Tree
from engine.trees.layout import tidy_layout
from workbench.figures.style import (
    PROBABILITY_SCALE,
    SELECT,
    Style,
    colour_at,
    contrast_text,
    current,
    text_width,
)

__all__ = [
    "LABEL_LIMIT",
    "NOMINAL_WIDTH",
    "WEBGL_LIMIT",
    "edge_xy",
    "fit_ranges",
    "label_positions",
    "tree_figure",
    "vertex_text",
]

LABEL_LIMIT = 60
WEBGL_LIMIT = 1500
#: the narrowest plot width (px) room for labels is reserved for; a wider plot has more room
NOMINAL_WIDTH = 420

# text positions by direction (dx, dy in screen orientation: y up), eight compass points
_COMPASS = ["middle right", "top right", "top center", "top left", "middle left", "bottom left",
            "bottom center", "bottom right"]


def edge_xy(tree: Tree, x: np.ndarray, y: np.ndarray):
    """Edge segments as x and y arrays with None breaks, for one line trace."""
    e = tree.edges
    m = len(e)
    ex = np.full(3 * m, np.nan)
    ey = np.full(3 * m, np.nan)
    ex[0::3], ex[1::3] = x[e[:, 0]], x[e[:, 1]]
    ey[0::3], ey[1::3] = y[e[:, 0]], y[e[:, 1]]
    return ex, ey


def label_positions(x, y, edges) -> list[str]:
    """For each vertex, the Plotly ``textposition`` pointing away from its edges: a root above its
    children gets "top center", a leaf "bottom center", an inner vertex the free side."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    sx = np.zeros_like(x)
    sy = np.zeros_like(y)
    e = np.asarray(edges, np.int64).reshape(-1, 2)
    if len(e):
        span = max(np.ptp(x), np.ptp(y), 1e-9)
        dx = (x[e[:, 1]] - x[e[:, 0]]) / span
        dy = (y[e[:, 1]] - y[e[:, 0]]) / span
        norm = np.maximum(np.hypot(dx, dy), 1e-12)
        ux, uy = dx / norm, dy / norm
        np.add.at(sx, e[:, 0], ux)
        np.add.at(sy, e[:, 0], uy)
        np.add.at(sx, e[:, 1], -ux)
        np.add.at(sy, e[:, 1], -uy)
    deg = np.bincount(e.ravel(), minlength=x.size) if len(e) else np.zeros(x.size, np.int64)
    out = []
    for a, b, d in zip(-sx, -sy, deg):
        if abs(a) < 1e-6 and abs(b) < 1e-6:
            out.append("middle right")
            continue
        if d == 1 and abs(b) > 0.38 * abs(a):  # a leaf below (above) its parent: centred under (over) it
            out.append("bottom center" if b < 0 else "top center")
            continue
        k = int(np.round(np.arctan2(b, a) / (np.pi / 4))) % 8
        out.append(_COMPASS[k])
    return out


def _spans(low: bool, high: bool, size: float, r: float) -> tuple[float, float]:
    """px covered below and above a vertex centre along one axis, by its marker (radius ``r``)
    and a label of ``size`` px set on the low side, the high side or centred."""
    out = r + 2.0 + size  # Plotly sets the label just outside the marker
    if high:
        return r, max(r, out)
    if low:
        return max(r, out), r
    return max(r, size / 2), max(r, size / 2)


def _extent(pos: str, w: float, h: float, r: float):
    """The box (left, right, below, above) in px around a vertex that its marker and a label
    at ``pos`` cover."""
    left, right = _spans("left" in pos, "right" in pos, w, r)
    below, above = _spans("bottom" in pos, "top" in pos, h, r)
    return left, right, below, above


def fit_ranges(x, y, boxes, *, height: int, margin_y: int, width: int = NOMINAL_WIDTH, pad: float = 4.0):
    """Axis ranges that keep every vertex's box ``(left, right, below, above)`` px inside the
    plot: the layout's extent, widened by what sticks out of it. ``height``/``width`` are the
    plot's size in px (``width`` the narrowest expected)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    b = np.asarray(boxes, float).reshape(-1, 4) + pad

    def one(v, lo_px, hi_px, size):
        vmin, vmax = float(np.nanmin(v)), float(np.nanmax(v))
        span = vmax - vmin
        if span <= 0:
            span = 1.0
            vmin, vmax = vmin - 0.5, vmax + 0.5
        # widen by the largest overhang; iterate because the scale depends on the widening
        lo, hi = 0.0, 0.0
        for _ in range(3):
            ppu = max(size - lo - hi, 0.3 * size) / span
            lo = float(np.max(lo_px - (v - vmin) * ppu, initial=0.0))
            hi = float(np.max(hi_px - (vmax - v) * ppu, initial=0.0))
        ppu = max(size - lo - hi, 0.3 * size) / span
        return [vmin - lo / ppu, vmax + hi / ppu]

    return one(x, b[:, 0], b[:, 1], width), one(y, b[:, 2], b[:, 3], height - margin_y)


def vertex_text(labels, x, y, edges, size: float, font: float, fills=None, *, style: Style):
    """Where each label goes: ``(textposition list, font colours, boxes)``; inside the vertex
    when it fits (in a colour contrasting with ``fills``), else beside it."""
    n = len(labels)
    fits = np.array([text_width(s, font) <= size - 5 and font <= size - 6 for s in labels], bool)
    beside = label_positions(x, y, edges) if not fits.all() else None
    pos, colours, boxes = [], [], []
    h = 1.2 * font
    for i in range(n):
        if fits[i]:
            pos.append("middle center")
            colours.append(contrast_text(fills[i]) if fills is not None else style.text)
            boxes.append((size / 2,) * 4)
        else:
            pos.append(beside[i])
            colours.append(style.text)
            boxes.append(_extent(beside[i], text_width(labels[i], font), h, size / 2))
    return pos, colours, boxes


def tree_figure(tree: Tree, *, layout=None, color=None, colorscale=None, highlight=(),
                selected=None, title: str | None = None, height: int = 520,
                hover=None, marker_size=None, labels=None, symbols=None, cmin=None, cmax=None,
                colorbar_title: str | None = None, style: Style | None = None) -> go.Figure:
    """A figure of ``tree`` with a tidy layout (or the given ``(x, y)``).

    color : per-vertex numbers (drawn with ``colorscale``, viridis by default, between ``cmin``
    and ``cmax``) or CSS colours; highlight : vertices ringed; selected : one vertex ringed;
    hover : per-vertex extra hover text; labels : text shown at each vertex (default: names);
    symbols : per-vertex marker symbols (a second cue beside colour).
    """
    s = style or current()
    x, y = tidy_layout(tree) if layout is None else layout
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    big = tree.n > WEBGL_LIMIT
    Scatter = go.Scattergl if big else go.Scatter
    ex, ey = edge_xy(tree, x, y)
    fig = go.Figure()
    fig.add_trace(Scatter(x=ex, y=ey, mode="lines", line=dict(color=s.edge, width=s.line(1 if big else 1.8)),
                          hoverinfo="skip", showlegend=False, name="edges"))
    show_text = tree.n <= LABEL_LIMIT
    names = tree.names if tree.n <= 20000 else None
    text = [f"<b>{names[i]}</b>" + (f"<br>{hover[i]}" if hover is not None else "") for i in range(tree.n)] if names else None
    size = marker_size or s.marker(tree.n)
    marker = dict(size=size, line=dict(width=s.line(1.2) if tree.n <= 2000 else 0, color=s.outline))
    fills = None
    if color is None:
        marker["color"] = s.vertex
        fills = [s.vertex] * tree.n
    else:
        arr = np.asarray(color)
        marker["color"] = color
        if np.issubdtype(arr.dtype, np.number):
            scale = colorscale or PROBABILITY_SCALE
            if isinstance(scale, str):   # a named Plotly scale: its stops, so each label reads on its fill
                scale = plotly.colors.get_colorscale(scale)
            if scale is PROBABILITY_SCALE and cmin is None and cmax is None:
                cmin, cmax = 0.0, 1.0   # probabilities: the same colour means the same number
            lo = float(np.nanmin(arr)) if cmin is None else cmin
            hi = float(np.nanmax(arr)) if cmax is None else cmax
            marker.update(colorscale=scale, showscale=True, cmin=lo, cmax=hi, colorbar=dict(
                thickness=14, title=dict(text=colorbar_title, side="top") if colorbar_title else None))
            if isinstance(scale, (list, tuple)):
                span = hi - lo if hi > lo else 1.0
                fills = [colour_at((v - lo) / span, scale) for v in arr.astype(float)]
        else:
            fills = [str(c) for c in color]
    if symbols is not None:
        marker["symbol"] = list(symbols)
    shown = [str(v) for v in (labels if labels is not None else (names or []))]
    margin_y = (40 if title else 10) + 10
    if show_text and shown:
        font = s.font("label")
        pos, colours, boxes = vertex_text(shown, x, y, tree.edges, size, font, fills, style=s)
    else:
        pos, colours, boxes = "middle center", s.text, [(size / 2,) * 4] * tree.n
    fig.add_trace(Scatter(
        x=x, y=y, mode="markers+text" if show_text else "markers",
        text=shown if show_text else None, textposition=pos,
        textfont=dict(color=colours, size=s.font("label")), hovertext=text, hoverinfo="text" if text else "none",
        customdata=np.arange(tree.n), marker=marker, showlegend=False, name="vertices"))
    hl = list(highlight)
    if selected is not None:
        hl = hl + [selected]
    if hl:
        hl = np.asarray(hl, np.int64)
        fig.add_trace(Scatter(x=x[hl], y=y[hl], mode="markers", hoverinfo="skip", showlegend=False,
                              marker=dict(size=size + 10, color="rgba(0,0,0,0)", line=dict(width=s.line(3), color=SELECT)),
                              name="highlight"))
    xr, yr = fit_ranges(x, y, [(max(a, (size + 10) / 2), max(b, (size + 10) / 2), max(c, (size + 10) / 2),
                                max(d, (size + 10) / 2)) for a, b, c, d in boxes],
                        height=height, margin_y=margin_y)
    fig.update_layout(
        title=title, height=height, margin=dict(l=10, r=10, t=40 if title else 10, b=10),
        xaxis=dict(visible=False, range=xr), yaxis=dict(visible=False, range=yr),
        # "pan": Streamlit turns click-to-select off in the select and lasso drag modes
        dragmode="pan", clickmode="event+select")
    return s.apply(fig)
