"""WCAG AA contrast of every vertex label, in both themes and presenter mode (docs/accessibility.md):
a name drawn inside a vertex takes black or white from its fill's luminance, at 4.5:1 or more over
the whole probability scale and every palette of ``workbench.figures.style``; a name drawn beside a
vertex (the tree view's canvas, the figures' outside labels) sits on the theme's label box, which
keeps 4.5:1 even over a vertex of any palette colour."""

from __future__ import annotations

import numpy as np
import plotly.colors
import pytest

from engine.trees import read_tree
from tests.conftest import ROOT
from workbench.figures import style as S
from workbench.figures.style import Style, colour_at, colour_bytes, contrast_ratio, contrast_text
from workbench.figures.tree_figure import tree_figure

AA_TEXT = 4.5
#: the probability scale, finely: 1,001 values from 0 to 1
PROBS = np.linspace(0.0, 1.0, 1001)


def _hex(rgb) -> str:
    return "#" + "".join(f"{int(c):02x}" for c in rgb)


#: every fill a vertex can take: each palette of the style module and each theme's vertex colour
PALETTES = {
    "probability": [colour_at(p) for p in PROBS],
    "probability (bytes)": [_hex(c) for c in colour_bytes(PROBS)],
    "sequential": [colour_at(p, S.SEQUENTIAL_SCALE) for p in PROBS],
    "viridis stops": list(S.VIRIDIS),
    "categorical": list(S.CATEGORICAL),
    "okabe-ito": list(S.OKABE_ITO.values()),
    "semantic": [S.NEUTRAL, S.SELECT, S.WRONG, S.RIGHT],
    "theme vertices": [t["vertex"] for t in S.THEMES.values()],
}


def test_contrast_ratio_is_wcag():
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)   # WCAG's own example
    assert contrast_ratio("#ffffff", "#767676") == contrast_ratio("#767676", "#ffffff")


@pytest.mark.parametrize("palette", list(PALETTES))
def test_a_label_inside_a_vertex_reads_on_every_fill(palette):
    worst = min((contrast_ratio(contrast_text(c), c), c) for c in PALETTES[palette])
    assert worst[0] >= AA_TEXT, f"{palette}: a label on {worst[1]} has contrast {worst[0]:.2f}"


def _over(box: str, under: str) -> str:
    """The colour of the semi-transparent ``box`` (rgba) drawn over ``under``."""
    parts = [float(p) for p in box[box.index("(") + 1:-1].split(",")]
    a = parts[3] if len(parts) > 3 else 1.0
    u = S._rgb(under)
    return _hex(round(a * parts[i] + (1 - a) * 255 * u[i]) for i in range(3))


@pytest.mark.parametrize("theme", list(S.THEMES))
def test_a_label_beside_a_vertex_reads_over_anything_its_box_covers(theme):
    """The tree view draws each name on the theme's label box (``label_bg``, not quite opaque) in
    the theme's text colour: over the background, an edge, or any vertex it overlaps."""
    t = S.THEMES[theme]
    under = [c for p in PALETTES.values() for c in p] + [t["background"], t["edge"], t["outline"], "#000000",
                                                         "#ffffff"]
    worst = min((contrast_ratio(t["text"], _over(t["label_bg"], c)), c) for c in under)
    assert worst[0] >= AA_TEXT, f"{theme}: a name over {worst[1]} has contrast {worst[0]:.2f}"


@pytest.mark.parametrize("style", [Style("light"), Style("dark"), Style("dark", presenter=True)],
                         ids=["light", "dark", "presenter"])
@pytest.mark.parametrize("scale", [None, "Viridis", "RdBu", "Cividis"])
def test_tree_figure_labels_read_on_their_vertices(style, scale):
    """The figures' own labels, as drawn: every name inside a vertex reads on that vertex's fill,
    over the whole probability scale (the lecture tree's 5 vertices, 41 colourings, every vertex through 41 values of the scale)."""
    t = read_tree(ROOT / "sample_trees" / "lecture_5_vertices.csv")
    resolved = S.PROBABILITY_SCALE if scale is None else plotly.colors.get_colorscale(scale)
    checked = 0
    for start in np.linspace(0.0, 1.0, 41):
        values = (start + np.array([0.0, 0.2, 0.4, 0.6, 0.8])) % 1.0
        fig = tree_figure(t, color=values, colorscale=scale, cmin=0.0, cmax=1.0, style=style)
        v = next(d for d in fig.data if d.name == "vertices")
        pos = [v.textposition] * t.n if isinstance(v.textposition, str) else list(v.textposition)
        for i, p in enumerate(pos):
            if p != "middle center":
                continue
            fill = colour_at(values[i], resolved)
            ratio = contrast_ratio(v.textfont.color[i], fill)
            assert ratio >= AA_TEXT, (scale, values[i], fill, v.textfont.color[i], ratio)
            checked += 1
    assert checked >= 5 * 41 // 2   # most names fit inside the lecture tree's vertices
