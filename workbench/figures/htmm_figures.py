"""Figures of the hidden tree Markov model page: confusion matrices, training curves, k traces,
and a test tree with its true and predicted labels side by side on one layout (a wrong label is
drawn in the "wrong" colour and marked with a cross)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.trees.layout import tidy_layout
from workbench.figures.style import (
    CATEGORICAL,
    RIGHT,
    SEQUENTIAL_SCALE,
    SYMBOLS,
    WRONG,
    Style,
    current,
)
from workbench.figures.tree_figure import tree_figure

__all__ = [
    "RIGHT",
    "WRONG",
    "confusion_figure",
    "k_trace_figure",
    "labelled_tree_figure",
    "loglik_figure",
]


def confusion_figure(cm, names, *, title: str = "", height: int = 380, style: Style | None = None) -> go.Figure:
    """Counts (true label by predicted label), coloured by the fraction of each true row."""
    s = style or current()
    cm = np.asarray(cm, float)
    rows = cm.sum(axis=1, keepdims=True)
    frac = np.divide(cm, rows, out=np.zeros_like(cm), where=rows > 0)
    names = [str(n) for n in names]
    text = [[f"{int(c)}<br>{100 * f:.0f}%" for c, f in zip(rc, rf)] for rc, rf in zip(cm, frac)]
    fig = go.Figure(go.Heatmap(z=frac, x=names, y=names, text=text if len(names) <= 14 else None,
                               texttemplate="%{text}" if len(names) <= 14 else None,
                               colorscale=SEQUENTIAL_SCALE, zmin=0, zmax=1, showscale=False,
                               xgap=1, ygap=1,
                               hovertemplate="true %{y}, predicted %{x}<br>%{z:.1%} of the row<extra></extra>"))
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=40 if title else 10, b=10),
                      xaxis=dict(title="predicted", type="category", side="bottom", showgrid=False),
                      yaxis=dict(title="true", type="category", autorange="reversed", showgrid=False))
    return s.apply(fig)


def loglik_figure(curve, *, title: str = "Training log-likelihood", height: int = 320,
                  style: Style | None = None) -> go.Figure:
    s = style or current()
    xy = np.asarray(curve, float).reshape(-1, 2)
    fig = go.Figure(go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="lines+markers", marker=dict(size=s.line(5)),
                               line=dict(color=CATEGORICAL[0], width=s.line(2)), name="log-likelihood"))
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=40, b=10),
                      xaxis_title="iteration", yaxis_title="log-likelihood")
    return s.apply(fig)


def k_trace_figure(curves: dict, *, title: str = "Size vector k over iterations", height: int = 340,
                   style: Style | None = None) -> go.Figure:
    s = style or current()
    fig = go.Figure()
    dashes = ["solid", "dash", "dot", "dashdot", "longdash"]
    for i, (name, curve) in enumerate(curves.items()):
        xy = np.asarray(curve, float).reshape(-1, 2)
        fig.add_trace(go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="lines", line_shape="hv", name=name,
                                 line=dict(color=CATEGORICAL[i % len(CATEGORICAL)], width=s.line(2.5),
                                           dash=dashes[i % len(dashes)])))
    fig.update_layout(title=dict(text=title, y=0.97), height=height, margin=dict(l=10, r=10, t=70, b=10),
                      xaxis_title="iteration", yaxis_title="k<sub>l</sub>",
                      legend=dict(orientation="h", x=0, y=1.0, yanchor="bottom", xanchor="left"))
    fig.update_yaxes(dtick=1)   # sizes are whole numbers: no "2.5" tick
    return s.apply(fig)


def labelled_tree_figure(tree, predicted, true, *, title: str | None = None, height: int = 520,
                         style: Style | None = None) -> go.Figure:
    """``tree`` (an ``engine.trees.Tree``) drawn twice on one layout: the true labels on the left,
    the predicted ones on the right, each node showing its label; a wrong prediction is drawn in
    the "wrong" colour as a square, its label followed by a cross. When ``predicted`` is ``true`` (no
    prediction to compare) only the true labels are drawn."""
    s = style or current()
    both = predicted is not true
    predicted = [str(p) for p in predicted]
    true = [str(t) for t in true]
    x, y = tidy_layout(tree)
    slots = tree.positions if tree.positions is not None else [0] * tree.n
    where = [(f" · slot {int(k)}" if k else " · root") for k in slots]
    hover = [f"predicted {p} · true {t}{w}" for p, t, w in zip(predicted, true, where)]
    wrong = np.array([p != t for p, t in zip(predicted, true)], bool)
    panels = [("true labels", true, [RIGHT] * tree.n, [SYMBOLS[0]] * tree.n)]
    if both:
        # a wrong label carries a cross: the mark that does not depend on colour
        panels.append((f"predicted labels ({int(wrong.sum())} wrong ✗)",
                       [f"{p} ✗" if w else p for p, w in zip(predicted, wrong)],
                       [WRONG if w else RIGHT for w in wrong], ["square" if w else SYMBOLS[0] for w in wrong]))
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=[p[0] for p in panels],
                        horizontal_spacing=0.04)
    for c, (_, labels, colours, symbols) in enumerate(panels, start=1):
        sub = tree_figure(tree, layout=(x, y), color=colours, labels=labels, symbols=symbols, hover=hover,
                          height=height, style=s)
        for tr in sub.data:
            fig.add_trace(tr, row=1, col=c)
        fig.update_xaxes(sub.layout.xaxis, row=1, col=c)
        fig.update_yaxes(sub.layout.yaxis, row=1, col=c)
    for ann in fig.layout.annotations:  # the panel titles
        ann.font = dict(size=s.font("label"), color=s.text)
    fig.update_layout(title=title, height=height, showlegend=False, dragmode="pan",
                      margin=dict(l=10, r=10, t=60 if title else 40, b=10))
    return s.apply(fig)
