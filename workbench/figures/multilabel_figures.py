"""Figures and tables of the RTA page: Table 1 layout, Figure 1 (certified exact against K), the
sampled spanning trees as small multiples and the learned label-pair weights as a graph."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from workbench.figures.style import (
    CATEGORICAL,
    OKABE_ITO,
    Style,
    current,
    log_ticks,
    rgba,
)

__all__ = [
    "circle_positions",
    "exact_fraction_figure",
    "label_pair_figure",
    "per_fold_table",
    "results_table",
    "spanning_trees_figure",
    "training_figure",
]

_BLUE = CATEGORICAL[0]
_ROOT = OKABE_ITO["orange"]
_GAP = OKABE_ITO["vermillion"]


def circle_positions(l: int):
    """Labels evenly on a circle, label 0 at the top, clockwise."""
    a = np.pi / 2 - 2 * np.pi * np.arange(l) / l
    return np.cos(a), np.sin(a)


def results_table(metrics: dict) -> pd.DataFrame:
    """The layout of the paper's Table 1: one row for the data set, microlabel and 0/1 loss column
    groups, with this run's RTA and SVM beside the paper's numbers (when the data set is in it)."""
    cols, vals = [], []
    paper = metrics.get("paper", {})
    for group, key in (("Microlabel loss (%)", "microlabel_loss"), ("0/1 loss (%)", "zero_one_loss")):
        if f"svm_{key}" in metrics:
            cols.append((group, "SVM (this run)"))
            vals.append(metrics[f"svm_{key}"])
        cols.append((group, "RTA (this run)"))
        vals.append(metrics[key])
        for name in ("SVM", "MMCRF", "MAM", "RTA"):
            if name in paper:
                cols.append((group, f"{name} (paper)"))
                vals.append(paper[name][key])
    # a named index: its header cell is not empty (an empty header is nothing to a screen reader)
    df = pd.DataFrame([vals], index=pd.Index([metrics.get("dataset", "data")], name="data set"),
                      columns=pd.MultiIndex.from_tuples(cols))
    return df.round(1)


def per_fold_table(metrics: dict) -> pd.DataFrame:
    rows = []
    for f in metrics.get("per_fold", []):
        r = {"fold": f["fold"], "C": f["C"], "microlabel %": round(f["microlabel_loss"], 1),
             "0/1 %": round(f["zero_one_loss"], 1), "certified exact %": round(100 * f["exact_fraction"], 1),
             "mean K": round(f["mean_k"], 1), "passes": f["passes"], "seconds": round(f["seconds"], 1)}
        if "svm_zero_one_loss" in f:
            r["SVM microlabel %"] = round(f["svm_microlabel_loss"], 1)
            r["SVM 0/1 %"] = round(f["svm_zero_one_loss"], 1)
        rows.append(r)
    return pd.DataFrame(rows).set_index("fold") if rows else pd.DataFrame()


def exact_fraction_figure(curve, n_labels: int, *, n_trees: int | None = None, height: int = 380,
                          style: Style | None = None) -> go.Figure:
    """Figure 1 of the paper: percentage of test examples whose best candidate is certified exact
    (Lemma 7) against K (log scale), each K also shown as a percentage of the number of labels l."""
    s = style or current()
    k = np.array([c[0] for c in curve], float)
    frac = np.array([c[1] for c in curve], float) * 100
    x = np.log2(k)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=x, y=frac, mode="lines+markers", line=dict(color=_BLUE, width=s.line(3)),
                             marker=dict(size=s.line(9)), customdata=np.stack([k, 100 * k / n_labels], axis=1),
                             hovertemplate="K = %{customdata[0]:.0f} (%{customdata[1]:.0f} % of l)<br>"
                                           "certified exact: %{y:.1f} %<extra></extra>",
                             name=f"{n_trees} trees" if n_trees else "this run"))
    xl = float(np.log2(n_labels))
    fig.add_shape(type="line", x0=xl, x1=xl, y0=0, y1=100, line=dict(color=s.muted, dash="dot"))
    fig.add_annotation(x=xl, y=4, text=f" K = l = {n_labels}", showarrow=False, xanchor="left", font=dict(color=s.muted))
    fig.add_shape(type="line", x0=x.min(), x1=x.max(), y0=90, y1=90, line=dict(color=_GAP, dash="dash"))
    fig.add_annotation(x=x.max(), y=90, text="90 %", showarrow=False, yanchor="bottom", xanchor="right",
                       font=dict(color=_GAP))
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=40, b=10), showlegend=False,
                      # short titles: in presenter mode the figure is half a page wide at 1.4x text
                      title=dict(text=f"Certified exact vs K{f', {n_trees} trees' if n_trees else ''}", x=0),
                      xaxis=dict(title="K, length of the K-best lists",
                                 tickvals=x.tolist(), ticktext=[f"{kk:.0f}" for kk in k], tickangle=0),
                      yaxis=dict(title="test examples certified exact (%)", range=[0, 103]))
    return s.apply(fig)


def spanning_trees_figure(parents, label_names, *, max_trees: int = 12, per_row: int = 4, height_per_row: int = 230,
                          style: Style | None = None) -> go.Figure:
    """The sampled spanning trees of K_l as small multiples on one layout: every label at the same
    place on a circle in every tree; each tree's root is an orange square."""
    s = style or current()
    parents = np.asarray(parents)[:max_trees]
    n, l = parents.shape
    rows = math.ceil(n / per_row)
    cols = min(per_row, n)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[f"tree {t + 1}" for t in range(n)],
                        horizontal_spacing=0.03, vertical_spacing=0.08)
    x, y = circle_positions(l)
    short = [str(s)[:10] for s in label_names]
    for t in range(n):
        r, c = t // cols + 1, t % cols + 1
        v = np.flatnonzero(parents[t] >= 0)
        ex = np.full(3 * len(v), np.nan)
        ey = np.full(3 * len(v), np.nan)
        ex[0::3], ex[1::3] = x[v], x[parents[t, v]]
        ey[0::3], ey[1::3] = y[v], y[parents[t, v]]
        fig.add_trace(go.Scatter(x=ex, y=ey, mode="lines", line=dict(color=s.text, width=s.line(2)), hoverinfo="skip",
                                 showlegend=False), row=r, col=c)
        root = int(np.flatnonzero(parents[t] < 0)[0])
        colors = [(_ROOT if i == root else _BLUE) for i in range(l)]
        textc = ["#000000" if i == root else "#ffffff" for i in range(l)]
        fig.add_trace(go.Scatter(x=x, y=y, mode="markers+text" if l <= 16 else "markers",
                                 marker=dict(size=s.line(22 if l <= 10 else 12), color=colors,
                                             symbol=["square" if i == root else "circle" for i in range(l)],
                                             line=dict(width=1, color=s.outline)),
                                 text=[str(i) for i in range(l)] if l <= 10 else None,
                                 textfont=dict(color=textc, size=s.font("small")),
                                 hovertext=[f"{short[i]}" + (" (root)" if i == root else "") for i in range(l)],
                                 hoverinfo="text", showlegend=False), row=r, col=c)
    fig.update_xaxes(visible=False, range=[-1.25, 1.25])
    fig.update_yaxes(visible=False, range=[-1.25, 1.25], scaleanchor="x", scaleratio=1)
    fig.update_layout(height=rows * height_per_row + 30, margin=dict(l=5, r=5, t=30, b=5))
    for ann in fig.layout.annotations:  # the subplot titles
        ann.font = dict(size=s.font("label"), color=s.text)
    return s.apply(fig)


def label_pair_figure(weights, label_names, frequencies=None, *, height: int = 380,
                      style: Style | None = None) -> go.Figure:
    """Learned label-pair weights as a graph on the labels: an edge for every pair some tree holds,
    its width and colour the norm of the learned weights; node size the label frequency."""
    s = style or current()
    W = np.asarray(weights, float)
    l = W.shape[0]
    x, y = circle_positions(l)
    iu = np.triu_indices(l, 1)
    w = W[iu]
    top = w.max() if w.size and w.max() > 0 else 1.0
    fig = go.Figure()
    order = np.argsort(w)
    for k in order:
        if w[k] <= 0:
            continue
        a, b = iu[0][k], iu[1][k]
        w_k = w[k] / top
        col = rgba(_BLUE, round(0.25 + 0.75 * w_k, 2))
        fig.add_trace(go.Scatter(x=[x[a], x[b]], y=[y[a], y[b]], mode="lines",
                                 line=dict(color=col, width=1 + 9 * w_k), hoverinfo="skip", showlegend=False))
        fig.add_trace(go.Scatter(x=[(x[a] + x[b]) / 2], y=[(y[a] + y[b]) / 2], mode="markers",
                                 marker=dict(size=8, color="rgba(0,0,0,0)"), showlegend=False,
                                 hovertext=f"{label_names[a]} – {label_names[b]}: {w[k]:.3g}", hoverinfo="text"))
    freq = np.asarray(frequencies, float) if frequencies is not None else np.full(l, 0.5)
    fig.add_trace(go.Scatter(
        x=x, y=y, mode="markers+text", text=[str(n)[:14] for n in label_names],
        textposition=["top center" if yy >= 0 else "bottom center" for yy in y],
        textfont=dict(size=s.font("label"), color=s.text),
        # opacity 1: Plotly draws markers of varying size (a bubble chart) at 0.7, the edges showing through
        marker=dict(size=14 + 30 * freq, color=OKABE_ITO["yellow"], opacity=1.0, line=dict(width=1.5, color=s.outline)),
        hovertext=[f"{n}: on in {100 * f:.0f} % of examples" for n, f in zip(label_names, freq)],
        hoverinfo="text", showlegend=False))
    fig.update_xaxes(visible=False, range=[-1.5, 1.5])
    fig.update_yaxes(visible=False, range=[-1.4, 1.4], scaleanchor="x", scaleratio=1)
    fig.update_layout(height=height, margin=dict(l=5, r=5, t=40, b=5),
                      title=dict(text="Learned label-pair weights", x=0))
    return s.apply(fig)


def training_figure(dual, gap, *, height: int = 320, style: Style | None = None) -> go.Figure:
    """Dual objective and Frank-Wolfe duality gap per pass (the first fold's final model); the gap
    on a log axis with 1-2-5 ticks."""
    s = style or current()
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    if dual:
        fig.add_trace(go.Scatter(x=[d[0] for d in dual], y=[d[1] for d in dual], mode="lines+markers",
                                 name="dual objective", line=dict(color=_BLUE, width=s.line(2)),
                                 marker=dict(symbol="circle", size=s.line(7))), secondary_y=False)
    if gap:
        fig.add_trace(go.Scatter(x=[d[0] for d in gap], y=[d[1] for d in gap], mode="lines+markers",
                                 name="duality gap (right axis)", line=dict(color=_GAP, dash="dot", width=s.line(2)),
                                 marker=dict(symbol="square", size=s.line(7))), secondary_y=True)
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=40, b=10),
                      title=dict(text="Training (fold 1): block-coordinate Frank-Wolfe", x=0),
                      legend=dict(orientation="h", y=-0.3))
    fig.update_xaxes(title="pass over the training set", dtick=1)
    fig.update_yaxes(title="dual objective", secondary_y=False)
    g = [d[1] for d in gap or [] if d[1] is not None and d[1] > 0]
    ticks = log_ticks(min(g), max(g)) if g else None
    fig.update_yaxes(title="duality gap", type="log", secondary_y=True, showgrid=False,
                     tickvals=ticks, ticktext=[f"{v:g}" for v in ticks] if ticks else None)
    return s.apply(fig)
