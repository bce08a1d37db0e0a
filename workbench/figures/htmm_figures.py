"""Figures of the hidden tree Markov model page: confusion matrices, training curves, k traces,
and a test tree with its predicted labels (wrong ones in red)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from workbench.figures.tree_figure import tree_figure

__all__ = ["confusion_figure", "loglik_figure", "k_trace_figure", "labelled_tree_figure",
           "RIGHT", "WRONG"]

RIGHT = "#2a9d8f"
WRONG = "#e63946"


def confusion_figure(cm, names, *, title: str = "", height: int = 380) -> go.Figure:
    """Counts (true label by predicted label), coloured by the fraction of each true row."""
    cm = np.asarray(cm, float)
    rows = cm.sum(axis=1, keepdims=True)
    frac = np.divide(cm, rows, out=np.zeros_like(cm), where=rows > 0)
    names = [str(n) for n in names]
    text = [[f"{int(c)}<br>{100 * f:.0f}%" for c, f in zip(rc, rf)] for rc, rf in zip(cm, frac)]
    fig = go.Figure(go.Heatmap(z=frac, x=names, y=names, text=text if len(names) <= 14 else None,
                               texttemplate="%{text}" if len(names) <= 14 else None,
                               colorscale="Blues", zmin=0, zmax=1, showscale=False,
                               hovertemplate="true %{y}, predicted %{x}<br>%{z:.1%} of the row<extra></extra>"))
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=40 if title else 10, b=10),
                      xaxis=dict(title="predicted", type="category", side="bottom"),
                      yaxis=dict(title="true", type="category", autorange="reversed"))
    return fig


def loglik_figure(curve, *, title: str = "Training log-likelihood", height: int = 320) -> go.Figure:
    xy = np.asarray(curve, float).reshape(-1, 2)
    fig = go.Figure(go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="lines+markers", marker=dict(size=4),
                               line=dict(color="#4c8bf5"), name="log-likelihood"))
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=40, b=10),
                      xaxis_title="iteration", yaxis_title="log-likelihood")
    return fig


def k_trace_figure(curves: dict, *, title: str = "Size vector k over iterations", height: int = 340) -> go.Figure:
    fig = go.Figure()
    for name, curve in curves.items():
        xy = np.asarray(curve, float).reshape(-1, 2)
        fig.add_trace(go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="lines", line_shape="hv", name=name))
    fig.update_layout(title=dict(text=title, y=0.97), height=height, margin=dict(l=10, r=10, t=70, b=10),
                      xaxis_title="iteration", yaxis_title="k_l",
                      legend=dict(orientation="h", x=0, y=1.0, yanchor="bottom", xanchor="left"))
    return fig


def labelled_tree_figure(tree, predicted, true, *, title: str | None = None, height: int = 520) -> go.Figure:
    """``tree`` (an ``engine.trees.Tree``) with each node showing its predicted label, red where
    it differs from the true label."""
    predicted = [str(p) for p in predicted]
    true = [str(t) for t in true]
    colors = [RIGHT if p == t else WRONG for p, t in zip(predicted, true)]
    slots = tree.positions if tree.positions is not None else [0] * tree.n
    hover = [f"predicted {p} · true {t}" + (f" · slot {int(l)}" if l else " · root")
             for p, t, l in zip(predicted, true, slots)]
    fig = tree_figure(tree, color=colors, hover=hover, title=title, height=height)
    for tr in fig.data:
        if tr.name == "vertices" and tr.text is not None:
            tr.text = predicted
    return fig
