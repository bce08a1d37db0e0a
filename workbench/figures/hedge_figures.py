"""Figures of the TREE-HEDGE page: loss curves with the bound, trees coloured by action, regret heat map."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from workbench.figures.style import (
    CATEGORICAL,
    NEUTRAL,
    OKABE_ITO,
    SEQUENTIAL_SCALE,
    SYMBOLS,
    Style,
    current,
)

__all__ = [
    "ACTION_COLOURS",
    "LEARNER_STYLE",
    "action_colour",
    "action_symbol",
    "loss_curves_figure",
    "regret_heatmap",
]

#: Name, colour, dash and width of each learner's curve (TREE-HEDGE stands out; each line also has
#: its own dash pattern, so the curves are told apart without colour).
LEARNER_STYLE = {
    "tree_hedge": ("TREE-HEDGE", OKABE_ITO["vermillion"], "solid", 4),
    "independent_hedge": ("Hedge per task", OKABE_ITO["blue"], "dashdot", 2.5),
    "shared_hedge": ("One shared Hedge", NEUTRAL, "dot", 2.5),
}
ACTION_COLOURS = CATEGORICAL


NO_FAVOURITE = "#BDBDBD"


def action_colour(a: int) -> str:
    """The colour of action ``a`` (0-based); -1 (tied, no favourite) is light grey."""
    return NO_FAVOURITE if a < 0 else ACTION_COLOURS[int(a) % len(ACTION_COLOURS)]


def action_symbol(a: int) -> str:
    """The marker shape of action ``a`` (0-based), a second cue besides its colour; -1 (tied) is
    an open circle."""
    return "circle-open" if a < 0 else SYMBOLS[int(a) % len(SYMBOLS)]


def loss_curves_figure(curves: dict, *, excess: bool, t: int | None = None, height: int = 430,
                       style: Style | None = None) -> go.Figure:
    """Cumulative loss of the three learners and the Theorem 9 bound (``excess``: above the best comparator)."""
    s = style or current()
    fig = go.Figure()
    suffix = "_excess" if excess else "_loss"
    bound = curves["bound_excess" if excess else "bound"]
    bx, by = zip(*bound)
    fig.add_trace(go.Scatter(x=bx, y=by, mode="lines", name="Theorem 9 bound",
                             line=dict(color=s.text, dash="dash", width=s.line(2.5))))
    if not excess:
        cx, cy = zip(*curves["best_comparator_loss"])
        fig.add_trace(go.Scatter(x=cx, y=cy, mode="lines", name="best comparator L(μ*)",
                                 line=dict(color=OKABE_ITO["green"], dash="longdash", width=s.line(2))))
    for key in ("shared_hedge", "independent_hedge", "tree_hedge"):
        name, colour, dash, width = LEARNER_STYLE[key]
        xs, ys = zip(*curves[key + suffix])
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=name,
                                 line=dict(color=colour, dash=dash, width=s.line(width))))
    if t is not None:
        fig.add_vline(x=t, line=dict(color=s.muted, width=1, dash="dot"))
    fig.update_layout(
        height=height, margin=dict(l=10, r=10, t=20, b=10),
        xaxis=dict(title="trial"),
        yaxis=dict(title="loss above the best comparator" if excess else "cumulative loss", zeroline=True),
        # below the axis: above the plot, a two-line legend ran under Plotly's mode bar
        legend=dict(orientation="h", yanchor="top", y=-0.18, x=0), hovermode="x unified")
    return s.apply(fig)




def regret_heatmap(snapshot_trials, regret, task_names, order, *, t: int | None = None, height: int = 420,
                   title: str = "", style: Style | None = None) -> go.Figure:
    """Per-task regret over time. ``regret``: (snapshots, n); rows of the map are tasks in ``order``."""
    s = style or current()
    z = np.asarray(regret, dtype=float)[:, np.asarray(order)].T
    names = [str(task_names[v]) for v in order]
    fig = go.Figure(go.Heatmap(
        x=list(snapshot_trials), y=names, z=z, colorscale=SEQUENTIAL_SCALE, zmin=0,
        colorbar=dict(title="regret", thickness=14),
        hovertemplate="task %{y}<br>after trial %{x}<br>regret %{z:.2f}<extra></extra>"))
    if t is not None:
        fig.add_vline(x=t, line=dict(color=s.text, width=s.line(2), dash="dash"))
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=40 if title else 10, b=10), title=title,
                      xaxis=dict(title="trial"),
                      yaxis=dict(title="task (depth-first order)", autorange="reversed", type="category",
                                 showticklabels=len(names) <= 40))
    return s.apply(fig)
