"""Figures of the inference pages: marginal bars, the decomposition tree D with the touched path,
messages drawn on the edges of a tree, and elimination table sizes. Drawing only, no maths.

Probabilities are coloured with the perceptually uniform viridis scale pinned to [0, 1], and the
number is in the hover; labels have a colour and a bar pattern each."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from workbench.figures.arrows import message_text, place_arrows
from workbench.figures.style import (
    CATEGORICAL,
    OKABE_ITO,
    PROBABILITY_SCALE,
    SELECT,
    Style,
    current,
    rich,
)
from workbench.figures.tree_figure import tree_figure

__all__ = [
    "PATTERNS",
    "PROB_SCALE",
    "convergence_figure",
    "difference_bars",
    "elimination_bars",
    "marginal_bars",
    "message_figure",
    "probability_colours",
    "work_bar_names",
    "work_bars",
]

#: the colour scale of probabilities (viridis; the same colour means the same number everywhere)
PROB_SCALE = PROBABILITY_SCALE
#: bar fill patterns paired with the label colours (a second cue besides colour)
PATTERNS = ["", "/", "x", ".", "\\", "+"]


def _label_colour(a: int) -> str:
    return CATEGORICAL[a % len(CATEGORICAL)]


def probability_colours(fig: go.Figure, *, label: str = "P(label 0)") -> go.Figure:
    """Pin a tree figure's colour scale to [0, 1], so the same colour means the same probability
    on every run (an auto-ranged scale paints 0.55 as "low"), and put the number in the hover."""
    for trace in fig.data:
        if getattr(trace, "marker", None) is not None and trace.marker.colorscale is not None:
            trace.marker.update(cmin=0.0, cmax=1.0, colorbar=dict(title=dict(text=label, side="top")))
            if trace.name == "vertices":
                trace.hovertemplate = "%{hovertext}<br>" + label + " = %{marker.color:.3f}<extra></extra>"
    return fig


def marginal_bars(posterior, prior=None, *, title="Marginal", height=300, labels=None,
                  style: Style | None = None) -> go.Figure:
    """Bars of a marginal (and its prior); ``labels``: the states' names (default "label a"),
    shown as plain text."""
    s = style or current()
    k = len(posterior)
    labels = [f"label {a}" for a in range(k)] if labels is None else [html.escape(str(x)) for x in labels]
    fig = go.Figure()
    if prior is not None:
        fig.add_bar(x=labels, y=prior, name="prior (no evidence)", marker_color=s.faint,
                    marker_pattern_shape="/", marker_pattern_fgcolor=s.muted,
                    hovertemplate="%{x}: prior %{y:.4f}<extra></extra>")
    fig.add_bar(x=labels, y=posterior, name="posterior", marker_color=[_label_colour(a) for a in range(k)],
                text=[f"{p:.3f}" for p in posterior], textposition="outside",
                hovertemplate="%{x}: posterior %{y:.4f}<extra></extra>")
    fig.update_layout(title=rich(title), barmode="group", height=height, yaxis=dict(range=[0, 1.15]),
                      margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h", y=-0.2))
    return s.apply(fig)


def difference_bars(names, diff, *, title="Posterior − prior, P(label)", height=300,
                    style: Style | None = None) -> go.Figure:
    """diff: (n, k) posterior minus prior; one bar group per vertex, each label its colour and
    pattern."""
    s = style or current()
    diff = np.asarray(diff)
    fig = go.Figure()
    for a in range(diff.shape[1]):
        fig.add_bar(x=list(names), y=diff[:, a], name=f"label {a}", marker_color=_label_colour(a),
                    marker_pattern_shape=PATTERNS[a % len(PATTERNS)],
                    hovertemplate="vertex %{x}<br>" + f"label {a}: " + "%{y:+.4f}<extra></extra>")
    fig.update_layout(title=rich(title), barmode="group", height=height,
                      xaxis=dict(title="vertex", type="category"),   # names like "10", "2" stay names
                      margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h", y=-0.35))
    return s.apply(fig)




def message_figure(tree, messages, *, current=None, beliefs=None, title=None, height=480,
                   layout=None, width: int = 600, style: Style | None = None) -> go.Figure:
    """``messages``: list of (sender, receiver, values). Each is an arrow along its edge on its own
    side (the two directions of an edge never overlap), labelled with its normalised values; the
    label sits beside the sender's end, joined to the arrow's tail by a thin leader line.
    ``current`` (an index into messages) is drawn thicker in the selection colour. Labels keep off
    each other and off the vertices at the plot's expected ``width`` in px (the narrowest it is shown
    at; wider only spreads them further)."""
    from engine.trees.layout import tidy_layout
    from workbench.figures.style import current as current_style

    s = style or current_style()
    x, y = tidy_layout(tree) if layout is None else layout
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    colour = None
    hover = None
    if beliefs is not None:
        colour = [float(b[0]) for b in beliefs]
        hover = ["P = [" + ", ".join(f"{p:.3f}" for p in b) + "]" for b in beliefs]
    fig = tree_figure(tree, layout=(x, y), color=colour, colorscale=PROB_SCALE, title=title,
                      height=height, hover=hover, cmin=0.0, cmax=1.0, style=s)
    if beliefs is not None:
        probability_colours(fig)
    font = s.font("label")
    r = s.marker(tree.n) / 2 + 2
    arrows = [(snd, rcv, message_text(vals)) for snd, rcv, vals in messages]

    def place(xr, yr):
        """Arrows and labels for these axis ranges: (placed, label boxes in px, ppx, ppy)."""
        # the plot's scale in px per unit (the width is the narrowest expected)
        ppx = width / max(xr[1] - xr[0], 1e-9)
        ppy = (height - (50 if title else 20)) / max(yr[1] - yr[0], 1e-9)
        got = place_arrows((x - xr[0]) * ppx, (y - yr[0]) * ppy, arrows, current=current, font=font, radius=r,
                           scale=s.scale)
        placed = {a.index: (xr[0] + a.tail[0] / ppx, yr[0] + a.tail[1] / ppy, xr[0] + a.head[0] / ppx,
                            yr[0] + a.head[1] / ppy, a.offset[0], a.offset[1], a.text) for a in got}
        return placed, [a.box for a in got], ppx, ppy

    def widened(xr, yr, boxes, ppx, ppy):
        """The ranges grown so that no label leaves the plot."""
        if not boxes:
            return list(xr), list(yr)
        bx = np.array(boxes)
        lo_x = min(0.0, bx[:, 0].min()) / ppx
        hi_x = max(0.0, bx[:, 1].max() - (xr[1] - xr[0]) * ppx) / ppx
        lo_y = min(0.0, bx[:, 2].min()) / ppy
        hi_y = max(0.0, bx[:, 3].max() - (yr[1] - yr[0]) * ppy) / ppy
        return [xr[0] + lo_x, xr[1] + hi_x], [yr[0] + lo_y, yr[1] + hi_y]

    # widening the ranges changes the scale the labels were placed at: place again (a few passes)
    xr, yr = list(fig.layout.xaxis.range), list(fig.layout.yaxis.range)
    for _ in range(4):
        placed, boxes, ppx, ppy = place(xr, yr)
        nxr, nyr = widened(xr, yr, boxes, ppx, ppy)
        if np.allclose(nxr + nyr, xr + yr, rtol=0, atol=1e-3 * max(xr[1] - xr[0], yr[1] - yr[0])):
            break
        xr, yr = nxr, nyr
    notes = []
    for i in sorted(placed, key=lambda j: j == current):   # the current message drawn last, on top
        ax_, ay_, hx, hy, lx, ly, text = placed[i]
        red = i == current
        notes.append(dict(x=hx, y=hy, ax=ax_, ay=ay_, xref="x", yref="y", axref="x", ayref="y",
                          showarrow=True, arrowhead=3, arrowsize=1.2, arrowwidth=s.line(3.2 if red else 1.8),
                          arrowcolor=SELECT if red else s.text, text=""))
        notes.append(dict(x=ax_, y=ay_, xref="x", yref="y", ax=lx, ay=-ly, showarrow=True, arrowhead=0,
                          arrowwidth=1, arrowcolor=s.muted, standoff=2,
                          font=dict(size=font, color=SELECT if red else s.text),
                          text=f"<b>{text}</b>" if red else text, bgcolor=s.label_bg,
                          bordercolor=SELECT if red else s.faint, borderwidth=1, borderpad=2))
    # set at once: each add_annotation validates every annotation drawn so far again (quadratic:
    # 136 annotation objects built for 16 arrows, 60-90 ms of a lesson step's page run)
    fig.update_layout(xaxis_range=nxr, yaxis_range=nyr, annotations=[*fig.layout.annotations, *notes])
    return fig


def elimination_bars(series: dict, *, title="Size of the table created at each step", log=True,
                     height=340, style: Style | None = None) -> go.Figure:
    """series: name -> list of (vertex name, table size). Bars grouped by step; each bar is
    labelled with its size, and its hover names the vertex eliminated."""
    s = style or current()
    fig = go.Figure()
    for i, (name, steps) in enumerate(series.items()):
        fig.add_bar(x=[f"step {j + 1}" for j in range(len(steps))], y=[sz for _, sz in steps], name=name,
                    marker_color=_label_colour(i), marker_pattern_shape=PATTERNS[i % len(PATTERNS)],
                    text=[f"{sz:,}" for _, sz in steps], textposition="outside",
                    hovertext=[f"eliminate vertex {v}: a table of {sz:,} entries" for v, sz in steps],
                    hoverinfo="text")
    top = max((sz for steps in series.values() for _, sz in steps), default=1)
    yaxis = dict(title="entries of the new table")
    if log:
        # whole powers of ten only (plotly's default log ticks read "2 5 10 2 5"); headroom for labels
        yaxis.update(type="log", dtick=1, range=[-0.05, np.log10(max(top, 1)) + 0.35])
    fig.update_layout(title=title, barmode="group", height=height, yaxis=yaxis,
                      xaxis=dict(title="elimination step", type="category"),
                      margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h", y=-0.3))
    return s.apply(fig)


def work_bar_names(ops: int) -> list[str]:
    """The two bars' names of :func:`work_bars` for ``ops`` operations ("1 BP pass", "3 BP passes")."""
    return ["online (all ops so far)", f"{ops:,} BP pass" + ("" if ops == 1 else "es")]


def work_bars(online_work: int, bp_work: int, ops: int, *, height=220, style: Style | None = None) -> go.Figure:
    s = style or current()
    fig = go.Figure()
    fig.add_bar(y=work_bar_names(ops), x=[online_work, bp_work * max(ops, 1)],
                orientation="h", marker_color=[OKABE_ITO["green"], s.faint],
                marker_pattern_shape=["", "/"],
                text=[f"{online_work:,}", f"{bp_work * max(ops, 1):,}"], textposition="auto")
    spread = bp_work * max(ops, 1) / max(online_work, 1)
    fig.update_layout(title="Multiply-adds: online vs BP", height=height,
                      xaxis=dict(type="log" if spread > 50 or spread < 1 / 50 else "linear"),
                      margin=dict(l=10, r=10, t=40, b=10))
    return s.apply(fig)


def convergence_figure(errors, *, current=None, converged_at=None, height=300,
                       title="Largest |belief − exact| after each iteration",
                       style: Style | None = None) -> go.Figure:
    """The parallel schedule's error, iteration by iteration (line and circles); iteration
    ``current`` is ringed in the selection colour and the first exact iteration ``converged_at``
    carries a star and the word "exact", so neither cue is colour alone."""
    from workbench.figures.style import current as current_style

    s = style or current_style()
    errors = [float(e) for e in errors]
    it = list(range(len(errors)))
    fig = go.Figure(go.Scatter(x=it, y=errors, mode="lines+markers", name="largest error",
                               line=dict(color=s.vertex, width=s.line(2)),
                               marker=dict(size=round(8 * s.scale), color=s.vertex, symbol="circle"),
                               hovertemplate="iteration %{x}: %{y:.3e}<extra></extra>"))
    if converged_at is not None and 0 <= converged_at < len(errors):
        fig.add_scatter(x=[converged_at], y=[errors[converged_at]], mode="markers+text", name="exact",
                        marker=dict(size=round(16 * s.scale), symbol="star", color=OKABE_ITO["green"],
                                    line=dict(width=1, color=s.text)),
                        text=["exact"], textposition="top center", textfont=dict(size=s.font("label")),
                        hovertemplate="exact from iteration %{x}<extra></extra>")
    if current is not None and 0 <= current < len(errors):
        fig.add_scatter(x=[current], y=[errors[current]], mode="markers", name="shown above",
                        marker=dict(size=round(20 * s.scale), symbol="circle-open", color=SELECT,
                                    line=dict(width=s.line(3), color=SELECT)),
                        hovertemplate="iteration %{x} (shown above)<extra></extra>")
    top = max(errors, default=1.0) or 1.0
    fig.update_layout(title=title, height=height, showlegend=False, margin=dict(l=10, r=10, t=40, b=10),
                      xaxis=dict(title="iteration t", dtick=1 if len(errors) <= 20 else None),
                      yaxis=dict(title="largest |belief − exact|", range=[-0.06 * top, 1.2 * top]))
    return s.apply(fig)
