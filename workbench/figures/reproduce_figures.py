"""Figures and tables of the Reproduce page: a report's figures (``engine.reproduce.report.Figure``,
named series) drawn with the workbench's style, and its rows as a table."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from workbench.figures.style import Style, category_colour, category_symbol, current

__all__ = ["report_figure", "rows_frame", "MAX_MARKED"]

#: a series of more points is a curve, drawn without markers (as in the report's SVG)
MAX_MARKED = 40


def report_figure(spec, style: Style | None = None) -> go.Figure:
    """One figure of a report: a line per series (markers on short ones, each colour with its own
    symbol); reference series (a published level, a bound) dashed, without markers."""
    s = style or current()
    fig = go.Figure()
    for i, (name, (xs, ys)) in enumerate(spec.series.items()):
        dashed = name in spec.dashed
        marked = not dashed and len(xs) <= MAX_MARKED
        fig.add_trace(go.Scatter(
            x=list(xs), y=list(ys), name=name, mode="lines+markers" if marked else "lines",
            line=dict(color=category_colour(i), width=s.line(2.5), dash="dash" if dashed else "solid"),
            marker=dict(symbol=category_symbol(i), size=round(8 * s.scale)),
            hovertemplate=f"{name}<br>{spec.xlabel} = %{{x:.6g}}<br>{spec.ylabel} = %{{y:.6g}}<extra></extra>"))
    fig.update_layout(height=420, margin=dict(l=10, r=10, t=50, b=10), title=dict(text=spec.title, x=0.01),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1))
    fig.update_xaxes(title_text=spec.xlabel, type="log" if spec.logx else "linear", showgrid=True)
    fig.update_yaxes(title_text=spec.ylabel, type="log" if spec.logy else "linear", showgrid=True)
    return s.apply(fig)


def rows_frame(report) -> pd.DataFrame:
    """The report's rows as shown in its Markdown (numbers as text, to the row's decimals)."""
    cols = ["data", "metric", "published", "ours", "spread (sd, n)", "difference", "note"]
    return pd.DataFrame([r.cells() for r in report.rows], columns=cols)
