"""Figures of the Runs page: the curves of several runs overlaid, a metric compared across runs."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from workbench.figures.style import CATEGORICAL, Style, current

__all__ = ["curves_figure", "metric_figure", "run_name"]

_COLORS = CATEGORICAL
#: each run's line also has a dash pattern of its own (runs are told apart without colour)
_DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]


def run_name(rec) -> str:
    """``#12 hedge · eta=0.1`` (id, algorithm and label)."""
    return f"#{rec.id} {rec.algorithm}" + (f" · {rec.label}" if rec.label else "")


def curves_figure(records: Sequence, curve: str, *, log_x: bool = False, style: Style | None = None) -> go.Figure:
    """The curve ``curve`` of every run that has it, one line per run (a point is ``[x, y]``)."""
    s = style or current()
    fig = go.Figure()
    for i, rec in enumerate(records):
        pts = rec.curves.get(curve)
        if not pts:
            continue
        xs = [p[0] if isinstance(p, (list, tuple)) else j for j, p in enumerate(pts)]
        ys = [p[1] if isinstance(p, (list, tuple)) else p for p in pts]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=run_name(rec),
                                 line=dict(width=s.line(2.5), color=_COLORS[i % len(_COLORS)],
                                           dash=_DASHES[(i // len(_COLORS) + i) % len(_DASHES)]),
                                 hovertemplate=f"{run_name(rec)}<br>x=%{{x}}<br>{curve}=%{{y:.6g}}<extra></extra>"))
    fig.update_layout(height=420, margin=dict(l=10, r=10, t=40, b=10),
                      title=dict(text=curve.replace("_", " "), x=0.01), hovermode="x unified",
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="right", x=1))
    fig.update_xaxes(type="log" if log_x else "linear", showgrid=True, dtick=1 if log_x else None)
    fig.update_yaxes(showgrid=True)
    return s.apply(fig)


def metric_figure(records: Sequence, metric: str, style: Style | None = None) -> go.Figure:
    """A bar per run: the value of ``metric`` (runs without it are left out); each bar is named on
    its axis, so its colour is a convenience only."""
    s = style or current()
    recs = [r for r in records if isinstance(r.metrics.get(metric), (int, float))
            and not isinstance(r.metrics.get(metric), bool)]
    fig = go.Figure(go.Bar(x=[run_name(r) for r in recs], y=[r.metrics[metric] for r in recs],
                           marker_color=[_COLORS[i % len(_COLORS)] for i in range(len(recs))],
                           text=[f"{r.metrics[metric]:.4g}" for r in recs], textposition="outside",
                           hovertemplate="%{x}<br>" + metric + "=%{y:.6g}<extra></extra>"))
    fig.update_layout(height=320, margin=dict(l=10, r=10, t=40, b=10),
                      title=dict(text=metric.replace("_", " "), x=0.01))
    return s.apply(fig)
