"""Messages drawn on the edges of a tree: where each arrow and its label go, in screen pixels.

One placement for every drawing of the sum-product messages of the lecture notes "Inferences on
trees: sum-product algorithm" (section 8.2): the Plotly figure (:func:`workbench.figures.inference_figures.message_figure`,
kept for the parallel schedule and the downloads) and the canvas tree view
(:mod:`workbench.treeview`, the sequential schedule). Drawing only, no maths and no Plotly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from workbench.figures.style import text_width

__all__ = ["PlacedArrow", "place_arrows", "message_text"]


def message_text(values) -> str:
    """A message's label: its normalised values to two places, ``[0.31, 0.69]``."""
    return "[" + ", ".join(f"{float(v):.2f}" for v in values) + "]"


@dataclass(frozen=True)
class PlacedArrow:
    """One message, in px with y up: the arrow from ``tail`` to ``head`` (beside its edge, on the
    left of its direction of travel), and its label centred at ``tail + offset``; ``box`` is the
    label's (x0, x1, y0, y1)."""

    index: int
    tail: tuple[float, float]
    head: tuple[float, float]
    offset: tuple[float, float]
    text: str
    box: tuple[float, float, float, float]


def place_arrows(vx, vy, arrows: Sequence[tuple[int, int, str]], *, current: int | None = None, font: float = 13,
                 radius: float = 15, scale: float = 1.0, bounds: tuple | None = None) -> list[PlacedArrow]:
    """Arrows and labels for ``arrows`` (``(sender, receiver, text)``) between vertices at px
    ``(vx, vy)`` (y up), vertices drawn as discs of ``radius`` px. The two directions of an edge
    never overlap (each runs on its own side); a label sits beside its sender's end, at the first
    spot, outwards along the perpendicular, that covers no label and no vertex (else the spot that
    covers least). ``current`` (an index into ``arrows``) is placed first: it never moves away
    from its arrow. ``bounds`` (x0, x1, y0, y1): the canvas, when it cannot grow to fit the labels
    (a spot that leaves it counts as covering what it leaves out). Returned in placement order."""
    vx = np.asarray(vx, float)
    vy = np.asarray(vy, float)
    order = ([current] if current is not None and 0 <= current < len(arrows) else []) + \
        [i for i in range(len(arrows)) if i != current]
    taken = [(a - radius, a + radius, b - radius, b + radius) for a, b in zip(vx, vy)]
    out = []
    for i in order:
        snd, rcv, text = arrows[i]
        dx, dy = vx[rcv] - vx[snd], vy[rcv] - vy[snd]
        norm = max(float(np.hypot(dx, dy)), 1e-9)
        ux, uy = dx / norm, dy / norm
        nx, ny = -uy, ux                                  # the perpendicular, left of the direction
        off = 9 * scale
        tx, ty = vx[snd] + 0.22 * dx + nx * off, vy[snd] + 0.22 * dy + ny * off
        hx, hy = vx[snd] + 0.72 * dx + nx * off, vy[snd] + 0.72 * dy + ny * off
        w = text_width(text, font) + 8
        # the label: beside the arrow's tail, pushed outwards along the perpendicular
        lx, ly = 26 * scale * nx + 0.5 * w * np.sign(nx) * (abs(nx) > 0.3), 22 * scale * ny
        # candidate spots, nearest first: further out along the perpendicular, slid along the
        # edge, or one line up or down; the first that covers nothing wins, else the least covering
        along = min(norm, 80.0)
        cand = np.array([(f * lx + t * along * ux, f * ly + t * along * uy + v * (font + 6))
                         for f in (1.0, 1.6, 2.2, 2.8, 3.4) for t in (0.0, 0.35, -0.35, 0.7, -0.7)
                         for v in (0, 1, -1)])
        cand = cand[np.argsort(np.hypot(cand[:, 0] - lx, cand[:, 1] - ly), kind="stable")]
        cx, cy = tx + cand[:, 0], ty + cand[:, 1]
        bc = np.stack([cx - w / 2, cx + w / 2, cy - font * 0.75, cy + font * 0.75], axis=1)
        tk = np.asarray(taken)
        ovx = np.minimum(bc[:, None, 1], tk[None, :, 1]) - np.maximum(bc[:, None, 0], tk[None, :, 0])
        ovy = np.minimum(bc[:, None, 3], tk[None, :, 3]) - np.maximum(bc[:, None, 2], tk[None, :, 2])
        hit = (np.clip(ovx, 0, None) * np.clip(ovy, 0, None)).sum(axis=1)
        if bounds is not None:
            inside = (np.clip(np.minimum(bc[:, 1], bounds[1]) - np.maximum(bc[:, 0], bounds[0]), 0, None)
                      * np.clip(np.minimum(bc[:, 3], bounds[3]) - np.maximum(bc[:, 2], bounds[2]), 0, None))
            hit = hit + 4 * ((bc[:, 1] - bc[:, 0]) * (bc[:, 3] - bc[:, 2]) - inside)
        j = int(np.argmax(hit == 0)) if (hit == 0).any() else int(np.argmin(hit))
        box = tuple(float(b) for b in bc[j])
        taken.append(box)
        out.append(PlacedArrow(i, (float(tx), float(ty)), (float(hx), float(hy)),
                               (float(cand[j, 0]), float(cand[j, 1])), text, box))
    return out
