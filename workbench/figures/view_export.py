"""SVG and PDF of a tree view as it is shown (the marks of its current view, in its colours), drawn
on the server with matplotlib like every other figure's export (:mod:`workbench.figures.export`).

The canvas in the browser (``workbench/assets/treeview.js``) and this file draw the same marks: the
collapsed groups (filled with the colour of their mean value, outlined), the edges, the drawn
vertices with their names where they fit, the path to the root and the selection.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from workbench.figures.export import _LOCK, _RC
from workbench.figures.style import Style

__all__ = ["ViewPicture", "view_svg", "view_pdf"]

#: names are written beside the drawn vertices up to this many (more would only overlap)
NAME_LIMIT = 300


@dataclass(frozen=True, eq=False)
class ViewPicture:
    """What a tree view shows, in px of its canvas (origin top left, y down).

    vertex_fill / outline_fill : RGB bytes (k, 3) / (g, 3) or None (the theme's colours);
    names : the drawn vertices' names; path : the path to the root as a polyline, or None;
    arrows : messages drawn on the edges (:func:`workbench.figures.arrows.place_arrows`), the
    strong one (the message just sent) in the selection colour.
    """

    width: int
    height: int
    marker: float
    vertex_xy: np.ndarray
    vertex_fill: np.ndarray | None
    names: list
    edge_points: np.ndarray
    edge_offsets: np.ndarray
    outline_points: np.ndarray
    outline_offsets: np.ndarray
    outline_fill: np.ndarray | None
    counts: np.ndarray
    path: np.ndarray | None = None
    selected: tuple | None = None
    highlight_xy: np.ndarray | None = None
    title: str = ""
    #: messages on the edges: ``(tail x, tail y, head x, head y, label x, label y, text, strong)``
    arrows: tuple = ()


def _draw(pic: ViewPicture, style: Style, select: str, highlight: str):
    import matplotlib
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.figure import Figure

    dpi = 100
    fig = Figure(figsize=(pic.width / dpi, pic.height / dpi), dpi=dpi, facecolor=style.background)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, pic.width)
    ax.set_ylim(pic.height, 0)
    ax.set_axis_off()
    ax.set_facecolor(style.background)
    to = matplotlib.colors.to_rgba
    polys = [pic.outline_points[a:b] for a, b in zip(pic.outline_offsets[:-1], pic.outline_offsets[1:]) if b - a >= 3]
    if polys:
        fill = (pic.outline_fill / 255.0 if pic.outline_fill is not None else [to(style.faint)] * len(polys))
        ax.add_collection(PolyCollection(polys, facecolors=[(*c[:3], 0.55) for c in fill], edgecolors=style.edge,
                                         linewidths=0.8))
        for poly, c in zip(polys, pic.counts[[i for i, (a, b) in enumerate(zip(pic.outline_offsets[:-1],
                                                                              pic.outline_offsets[1:])) if b - a >= 3]]):
            x0, y0 = poly.min(axis=0)
            x1, y1 = poly.max(axis=0)
            text = f"{int(c):,}"
            if x1 - x0 > 8 * len(text):
                ax.text(poly[:, 0].mean(), y0 + 0.62 * (y1 - y0), text, ha="center", va="center",
                        fontsize=style.font("small") * 0.75, color=style.text)
    segs = [pic.edge_points[a:b] for a, b in zip(pic.edge_offsets[:-1], pic.edge_offsets[1:])]
    if segs:
        ax.add_collection(LineCollection(segs, colors=style.edge, linewidths=0.8))
    if pic.path is not None and len(pic.path) > 1:
        ax.plot(pic.path[:, 0], pic.path[:, 1], color=select, linewidth=2.2)
    xy = pic.vertex_xy
    if len(xy):
        fill = pic.vertex_fill / 255.0 if pic.vertex_fill is not None else style.vertex
        size = (0.75 * (pic.marker - 1)) ** 2
        ax.scatter(xy[:, 0], xy[:, 1], s=size, c=fill, edgecolors=style.outline, linewidths=0.6, zorder=3)
        if len(xy) <= NAME_LIMIT:
            for (x, y), name in zip(xy, pic.names):
                ax.text(x + 0.5 * pic.marker + 2, y, str(name), va="center", fontsize=style.font("label") * 0.75,
                        color=style.text, zorder=4)
    if pic.highlight_xy is not None and len(pic.highlight_xy):
        ax.scatter(pic.highlight_xy[:, 0], pic.highlight_xy[:, 1], s=(0.75 * (pic.marker + 4)) ** 2,
                   facecolors="none", edgecolors=highlight, linewidths=2, zorder=5)
    if pic.selected is not None:
        ax.scatter([pic.selected[0]], [pic.selected[1]], s=(0.75 * (pic.marker + 12)) ** 2, facecolors="none",
                   edgecolors=select, linewidths=2.5, zorder=6)
    for tx, ty, hx, hy, lx, ly, text, strong in sorted(pic.arrows, key=lambda a: a[7]):
        colour = select if strong else style.text
        ax.annotate("", xy=(hx, hy), xytext=(tx, ty), zorder=7,
                    arrowprops=dict(arrowstyle="-|>", color=colour, linewidth=2.4 if strong else 1.3, mutation_scale=12))
        ax.plot([tx, lx], [ty, ly], color=style.muted, linewidth=0.8, zorder=7)
        ax.text(lx, ly, text, ha="center", va="center", fontsize=style.font("label") * 0.75, color=colour, zorder=8,
                fontweight="bold" if strong else "normal",
                bbox=dict(boxstyle="square,pad=0.2", facecolor=(*to(style.background)[:3], 0.85), edgecolor=select if strong else style.faint,
                          linewidth=1))
    if pic.title:
        ax.text(6, 6, pic.title, va="top", ha="left", fontsize=style.font("title") * 0.75, color=style.text)
    return fig


def _save(pic: ViewPicture, fmt: str, style: Style, select: str, highlight: str) -> bytes:
    import matplotlib

    with _LOCK, matplotlib.rc_context(_RC):
        fig = _draw(pic, style, select, highlight)
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, facecolor=fig.get_facecolor(), metadata={"Creator": "Tree Inference Workbench"})
        return buf.getvalue()


def view_svg(pic: ViewPicture, style: Style, *, select: str = "#D55E00", highlight: str = "#D55E00") -> bytes:
    """The view as an SVG document (names kept as text)."""
    return _save(pic, "svg", style, select, highlight)


def view_pdf(pic: ViewPicture, style: Style, *, select: str = "#D55E00", highlight: str = "#D55E00") -> bytes:
    """The view as a one-page vector PDF."""
    return _save(pic, "pdf", style, select, highlight)
