"""The live class's poll as the projector shows it: one bar per choice, or per bucket of numbers,
with the engine's answer marked once the lecturer reveals it."""

from __future__ import annotations

import plotly.graph_objects as go

from workbench.figures.style import NEUTRAL, RIGHT, Style

__all__ = ["poll_figure", "poll_text"]

#: The bars' height in pixels (a row of the chart), before presenter mode's enlargement.
ROW_PX = 46


def poll_figure(rows: list[tuple[str, int, bool]], *, revealed: bool, style: Style) -> go.Figure:
    """Horizontal bars of ``rows`` (label, count, holds the engine's answer), the first row on top;
    after the reveal the right rows take the palette's "right" colour and a tick."""
    marked = [right and revealed for _, _, right in rows]
    labels = [f"✓ {label}" if m else label for (label, _, _), m in zip(rows, marked)]
    counts = [n for _, n, _ in rows]
    colours = [RIGHT if m else NEUTRAL for m in marked]
    # the count and a tick: "n · engine's answer" ran past the chart in the console's column (the
    # caption under the chart and the ticked label say whose answer it is)
    text = [f"{n} ✓" if m else str(n) for n, m in zip(counts, marked)]
    fig = go.Figure(go.Bar(x=counts, y=labels, orientation="h", marker_color=colours, text=text,
                           textposition="outside", cliponaxis=False, hovertemplate="%{y}: %{x}<extra></extra>",
                           textfont={"size": style.font("title") + 4}))
    top = max(counts, default=0)
    fig.update_layout(height=int((80 + ROW_PX * max(len(rows), 3)) * (1.3 if style.presenter else 1.0)),
                      margin={"l": 10, "r": 40, "t": 10, "b": 30}, bargap=0.25, showlegend=False,
                      xaxis={"range": [0, max(1, top) * (1.3 if any(marked) else 1.18)], "dtick": max(1, round(top / 5)) if top else 1,
                             "title": None},
                      yaxis={"autorange": "reversed", "title": None, "automargin": True})
    style.apply(fig, legend=False)
    fig.update_yaxes(tickfont={"size": style.font("title") + 2})
    return fig


def poll_text(rows: list[tuple[str, int, bool]], total: int, *, revealed: bool) -> str:
    """The chart in one sentence (for a screen reader, and the back row's second look)."""
    if not rows:
        return "No answers yet."
    parts = [f"{label}: {n}" + (" (the engine's answer)" if right and revealed else "") for label, n, right in rows]
    return f"{total} answer{'s' if total != 1 else ''}: " + "; ".join(parts) + "."
