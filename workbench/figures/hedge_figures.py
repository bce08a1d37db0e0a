"""Figures of the TREE-HEDGE page: loss curves with the bound, trees coloured by action, regret heat map."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.trees import Tree
from workbench.figures.tree_figure import tree_figure

__all__ = ["LEARNER_STYLE", "ACTION_COLOURS", "action_colour", "loss_curves_figure", "action_tree_figure",
           "regret_heatmap"]

#: Name, colour and dash of each learner's curve (TREE-HEDGE stands out; baselines are muted).
LEARNER_STYLE = {
    "tree_hedge": ("TREE-HEDGE", "#d62728", "solid", 4),
    "independent_hedge": ("Hedge per task", "#1f77b4", "solid", 2.5),
    "shared_hedge": ("One shared Hedge", "#7f7f7f", "solid", 2.5),
}
ACTION_COLOURS = ["#4c78a8", "#f58518", "#54a24b", "#b279a2", "#e45756", "#72b7b2", "#eeca3b", "#9d755d"]


NO_FAVOURITE = "#9e9e9e"


def action_colour(a: int) -> str:
    """The colour of action ``a`` (0-based); -1 (tied, no favourite) is light grey."""
    return NO_FAVOURITE if a < 0 else ACTION_COLOURS[int(a) % len(ACTION_COLOURS)]


def loss_curves_figure(curves: dict, *, excess: bool, t: int | None = None, height: int = 430) -> go.Figure:
    """Cumulative loss of the three learners and the Theorem 9 bound (``excess``: above the best comparator)."""
    fig = go.Figure()
    suffix = "_excess" if excess else "_loss"
    bound = curves["bound_excess" if excess else "bound"]
    bx, by = zip(*bound)
    fig.add_trace(go.Scatter(x=bx, y=by, mode="lines", name="Theorem 9 bound",
                             line=dict(color="#2b2b2b", dash="dash", width=2.5)))
    if not excess:
        cx, cy = zip(*curves["best_comparator_loss"])
        fig.add_trace(go.Scatter(x=cx, y=cy, mode="lines", name="best comparator L(μ*)",
                                 line=dict(color="#2ca02c", dash="dot", width=2)))
    for key in ("shared_hedge", "independent_hedge", "tree_hedge"):
        name, colour, dash, width = LEARNER_STYLE[key]
        xs, ys = zip(*curves[key + suffix])
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=name, line=dict(color=colour, dash=dash, width=width)))
    if t is not None:
        fig.add_vline(x=t, line=dict(color="#888", width=1, dash="dot"))
    fig.update_layout(
        height=height, margin=dict(l=10, r=10, t=20, b=10), plot_bgcolor="white",
        xaxis=dict(title="trial", gridcolor="#eee"),
        yaxis=dict(title="loss above the best comparator" if excess else "cumulative loss", gridcolor="#eee",
                   zeroline=True, zerolinecolor="#bbb"),
        # below the axis: above the plot, a two-line legend ran under Plotly's mode bar
        legend=dict(orientation="h", yanchor="top", y=-0.18, x=0), hovermode="x unified")
    return fig


def action_tree_figure(tree: Tree, actions, k: int, *, title: str, layout=None, height: int = 380,
                       hover=None, mark=()) -> go.Figure:
    """The tree with each task coloured by an action (a legend of the k actions); ``mark``: ringed tasks."""
    fig = tree_figure(tree, layout=layout, color=[action_colour(a) for a in actions], title=title,
                      height=height, hover=hover, highlight=mark)
    shown = list(range(k)) + ([-1] if any(a < 0 for a in actions) else [])
    for a in shown:
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=f"action {a + 1}" if a >= 0 else "tied",
                                 marker=dict(size=11, color=action_colour(a)), showlegend=True))
    fig.update_layout(showlegend=True, legend=dict(orientation="h", yanchor="top", y=0.0, x=0),
                      title=dict(text=title, x=0.01, font=dict(size=15)))
    return fig


def regret_heatmap(snapshot_trials, regret, task_names, order, *, t: int | None = None, height: int = 420,
                   title: str = "") -> go.Figure:
    """Per-task regret over time. ``regret``: (snapshots, n); rows of the map are tasks in ``order``."""
    z = np.asarray(regret, dtype=float)[:, np.asarray(order)].T
    names = [str(task_names[v]) for v in order]
    fig = go.Figure(go.Heatmap(
        x=list(snapshot_trials), y=names, z=z, colorscale="YlOrRd", zmin=0,
        colorbar=dict(title="regret", thickness=12),
        hovertemplate="task %{y}<br>after trial %{x}<br>regret %{z:.2f}<extra></extra>"))
    if t is not None:
        fig.add_vline(x=t, line=dict(color="#1f77b4", width=2))
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=40 if title else 10, b=10), title=title,
                      xaxis=dict(title="trial"),
                      yaxis=dict(title="task (depth-first order)", autorange="reversed", type="category",
                                 showticklabels=len(names) <= 40))
    return fig
