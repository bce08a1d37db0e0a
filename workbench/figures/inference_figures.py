"""Figures of the inference pages: marginal bars, the decomposition tree D with the touched path,
messages drawn on the edges of a tree, and elimination table sizes. Drawing only, no maths."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from workbench.figures.tree_figure import tree_figure

__all__ = ["PROB_SCALE", "probability_colours", "marginal_bars", "difference_bars", "d_figure", "message_figure", "elimination_bars",
           "work_bars"]

_LABEL_COLOURS = ["#4c8bf5", "#f4a261", "#2a9d8f", "#e76f51", "#9b5de5"]

#: a colour scale for probabilities dark enough at every point for white vertex labels
PROB_SCALE = [[0.0, "#b5451b"], [0.5, "#6c5b7b"], [1.0, "#1d4e89"]]


def probability_colours(fig: go.Figure, *, label: str = "P(label 0)") -> go.Figure:
    """Pin a tree figure's colour scale to [0, 1], so the same colour means the same probability
    on every run (an auto-ranged scale paints 0.55 as "low")."""
    for trace in fig.data:
        if getattr(trace, "marker", None) is not None and trace.marker.colorscale is not None:
            trace.marker.update(cmin=0.0, cmax=1.0, colorbar=dict(thickness=12, title=dict(text=label)))
    return fig


def marginal_bars(posterior, prior=None, *, title="Marginal", height=300) -> go.Figure:
    k = len(posterior)
    labels = [f"label {a}" for a in range(k)]
    fig = go.Figure()
    if prior is not None:
        fig.add_bar(x=labels, y=prior, name="prior (no evidence)", marker_color="#c9d3df")
    fig.add_bar(x=labels, y=posterior, name="posterior", marker_color=_LABEL_COLOURS[:k],
                text=[f"{p:.3f}" for p in posterior], textposition="outside")
    fig.update_layout(title=title, barmode="group", height=height, yaxis=dict(range=[0, 1.12]),
                      margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h", y=-0.2))
    return fig


def difference_bars(names, diff, *, title="Posterior − prior, P(label)", height=300) -> go.Figure:
    """diff: (n, k) posterior minus prior; one bar group per vertex."""
    diff = np.asarray(diff)
    fig = go.Figure()
    for a in range(diff.shape[1]):
        fig.add_bar(x=list(names), y=diff[:, a], name=f"label {a}",
                    marker_color=_LABEL_COLOURS[a % len(_LABEL_COLOURS)])
    fig.update_layout(title=title, barmode="group", height=height,
                      xaxis=dict(title="vertex", type="category"),   # names like "10", "2" stay names
                      margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h", y=-0.35))
    return fig


def d_figure(dtree, touched=(), *, title="Decomposition tree D", height=420, kinds=None, layout=None) -> go.Figure:
    """D drawn as a tree; the nodes an operation touched are coloured and ringed."""
    touched = [int(z) for z in touched]
    colour = np.array(["#33415c"] * dtree.n, dtype=object)      # components split at a vertex
    if kinds is not None:
        colour[np.asarray(kinds) == 0] = "#6b7c93"   # edge components (leaves of D)
    colour[touched] = "#e63946"
    fig = tree_figure(dtree, layout=layout, color=list(colour), highlight=touched, title=title, height=height)
    return fig


def message_figure(tree, messages, *, current=None, beliefs=None, title=None, height=480,
                   layout=None) -> go.Figure:
    """``messages``: list of (sender, receiver, values). Each is an arrow along its edge, labelled
    with its normalised values; ``current`` (an index into messages) is drawn in red."""
    from engine.trees.layout import tidy_layout

    x, y = tidy_layout(tree) if layout is None else layout
    colour = None
    hover = None
    if beliefs is not None:
        colour = [float(b[0]) for b in beliefs]
        hover = ["P = [" + ", ".join(f"{p:.3f}" for p in b) + "]" for b in beliefs]
    fig = tree_figure(tree, layout=(x, y), color=colour, colorscale=PROB_SCALE, title=title,
                      height=height, hover=hover)
    if beliefs is not None:
        probability_colours(fig)
    for i, (s, r, vals) in enumerate(messages):
        x0, y0, x1, y1 = x[s], y[s], x[r], y[r]
        # arrow from 25% to 70% of the way, offset sideways by direction so both directions show
        dx, dy = x1 - x0, y1 - y0
        norm = max(np.hypot(dx, dy), 1e-9)
        ox, oy = -dy / norm * 0.12, dx / norm * 0.12
        ax_, ay_ = x0 + 0.25 * dx + ox, y0 + 0.25 * dy + oy
        hx, hy = x0 + 0.70 * dx + ox, y0 + 0.70 * dy + oy
        red = i == current
        fig.add_annotation(x=hx, y=hy, ax=ax_, ay=ay_, xref="x", yref="y", axref="x", ayref="y",
                           showarrow=True, arrowhead=3, arrowwidth=3 if red else 1.6,
                           arrowcolor="#e63946" if red else "#33415c", text="")
        # the label sits a third of the way along, by the sender: two arrows that meet at a
        # vertex from different edges then keep their labels apart
        fig.add_annotation(x=(2 * ax_ + hx) / 3 + ox, y=(2 * ay_ + hy) / 3 + oy, xref="x", yref="y",
                           showarrow=False, font=dict(size=11 if red else 9,
                                                      color="#e63946" if red else "#33415c"),
                           text="[" + ", ".join(f"{v:.2f}" for v in vals) + "]",
                           bgcolor="rgba(255,255,255,0.7)")
    return fig


def elimination_bars(series: dict, *, title="Size of the table created at each step", log=True,
                     height=340) -> go.Figure:
    """series: name -> list of (vertex name, table size). Bars grouped by step; each bar is
    labelled with its size, and its hover names the vertex eliminated."""
    fig = go.Figure()
    for i, (name, steps) in enumerate(series.items()):
        fig.add_bar(x=[f"step {j + 1}" for j in range(len(steps))], y=[sz for _, sz in steps], name=name,
                    marker_color=_LABEL_COLOURS[i % len(_LABEL_COLOURS)],
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
    return fig


def work_bars(online_work: int, bp_work: int, ops: int, *, height=220) -> go.Figure:
    fig = go.Figure()
    fig.add_bar(y=["online (all ops so far)", f"{ops} BP passes"], x=[online_work, bp_work * max(ops, 1)],
                orientation="h", marker_color=["#2a9d8f", "#c9d3df"],
                text=[f"{online_work:,}", f"{bp_work * max(ops, 1):,}"], textposition="auto")
    spread = bp_work * max(ops, 1) / max(online_work, 1)
    fig.update_layout(title="Multiply-adds: online model vs one BP pass per operation", height=height,
                      xaxis=dict(type="log" if spread > 50 or spread < 1 / 50 else "linear"),
                      margin=dict(l=10, r=10, t=40, b=10))
    return fig
