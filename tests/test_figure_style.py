"""The figures' style: one palette module, fonts >= 12 px everywhere, colour cues doubled, themes
matching the app's, labels that fit, real sub/superscripts, shared layouts for comparisons."""

from __future__ import annotations

import re
import tomllib

import numpy as np
import pytest

from engine.trees import read_tree
from tests.conftest import ROOT
from tests.figure_gallery import gallery
from workbench.figures import style as S
from workbench.figures.style import (
    FONT_MIN,
    Style,
    colour_at,
    log_ticks,
    rich,
    text_width,
)
from workbench.figures.tree_figure import NOMINAL_WIDTH, tree_figure

STYLES = [Style("light"), Style("dark"), Style("light", presenter=True)]


@pytest.fixture(scope="module", params=STYLES, ids=["light", "dark", "presenter"])
def figures(request):
    return request.param, gallery(request.param)


def _font_sizes(obj, path=""):
    """Every (path, size) of a font in a figure's JSON (layout, axes, traces, annotations)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = f"{path}.{k}"
            if k in ("font", "textfont", "tickfont", "insidetextfont", "outsidetextfont") and isinstance(v, dict):
                size = v.get("size")
                if size is not None:
                    for s in np.atleast_1d(size):
                        yield p, float(s)
            if k != "template":
                yield from _font_sizes(v, p)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _font_sizes(v, f"{path}[{i}]")


def _texts(fig):
    """Every text a reader sees: titles, trace names, point texts, annotations, axis titles."""
    out = []
    lay = fig.layout
    for t in [lay.title.text] + [a.text for a in lay.annotations]:
        out.append(t)
    for ax in [lay[k] for k in lay if k.startswith(("xaxis", "yaxis"))]:
        out.append(ax.title.text if ax.title else None)
    for tr in fig.data:
        out.append(tr.name)
        txt = getattr(tr, "text", None)
        if txt is not None:
            out.extend(np.atleast_1d(np.asarray(txt, dtype=object)).ravel().tolist())
    return [str(t) for t in out if t is not None]


def test_every_figure_text_is_at_least_12px(figures):
    style, figs = figures
    for name, fig in figs.items():
        sizes = list(_font_sizes(fig.to_plotly_json()))
        assert sizes, name
        small = [(p, s) for p, s in sizes if s < FONT_MIN * style.scale - 1e-9]
        assert not small, (name, small[:5])


def test_presenter_mode_enlarges_fonts_and_markers():
    a, b = Style(), Style(presenter=True)
    assert b.font("tick") > a.font("tick") >= FONT_MIN
    assert b.marker(10) > a.marker(10)
    assert b.line(2) > a.line(2)


def test_no_literal_caret_or_underscore_subscripts(figures):
    _, figs = figures
    for name, fig in figs.items():
        for t in _texts(fig):
            assert not re.search(r"[A-Za-z]\^\w", t), (name, t)
            assert not re.search(r"\b[A-Za-z]_\{?\w", t), (name, t)


def test_rich_writes_real_sub_and_superscripts():
    assert rich("T_1 on the tree T") == "T<sub>1</sub> on the tree T"
    assert rich("S^4 and M_{12}") == "S<sup>4</sup> and M<sub>12</sub>"
    assert rich("edges_of a run") == "edges_of a run"  # a word with an underscore stays a word


def test_figures_follow_the_theme(figures):
    style, figs = figures
    for name, fig in figs.items():
        assert fig.layout.paper_bgcolor == style.background, name
        assert fig.layout.font.color == style.text, name


def test_theme_colours_match_the_app_config():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    for theme in ("light", "dark"):
        assert cfg["theme"][theme]["backgroundColor"].lower() == S.THEMES[theme]["background"].lower()
        assert cfg["theme"][theme]["textColor"].lower() == S.THEMES[theme]["text"].lower()
    assert cfg["client"]["toolbarMode"] == "viewer"
    assert cfg["client"]["showErrorLinks"] is False
    assert cfg["client"]["showErrorDetails"] in ("type", "none")


def _simulate(hex_colour, kind):
    """Colour as seen with a full protan/deutan/tritan deficiency (Machado, Oliveira & Fernandes
    2009, severity 1), in linear RGB."""
    m = {"protan": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
         "deutan": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
         "tritan": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]]}[kind]
    rgb = np.array([int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return np.clip(np.array(m) @ lin, 0, 1)


@pytest.mark.parametrize("kind", ["protan", "deutan", "tritan"])
def test_the_first_categories_stay_apart_for_colour_blind_readers(kind):
    cols = S.CATEGORICAL[:4]
    sim = [_simulate(c, kind) ** (1 / 2.2) for c in cols]
    gaps = [np.linalg.norm(a - b) for i, a in enumerate(sim) for b in sim[i + 1:]]
    assert min(gaps) > 0.12, gaps


def test_categories_have_a_colour_and_a_symbol_each():
    assert len(set(S.CATEGORICAL)) == len(S.CATEGORICAL) == len(set(S.SYMBOLS))


def test_probability_scale_is_uniform_in_lightness():
    # viridis: lightness rises steadily, so 0.45 and 0.55 are as far apart as 0.05 and 0.15
    lum = [S._luminance(colour_at(v)) for v in np.linspace(0, 1, 21)]
    assert all(b > a for a, b in zip(lum, lum[1:]))
    d_mid = abs(S._luminance(colour_at(0.55)) ** (1 / 3) - S._luminance(colour_at(0.45)) ** (1 / 3))
    d_low = abs(S._luminance(colour_at(0.15)) ** (1 / 3) - S._luminance(colour_at(0.05)) ** (1 / 3))
    assert d_mid > 0.5 * d_low > 0


def test_probability_tree_pins_the_scale_and_shows_the_number_on_hover():
    from workbench.figures.inference_figures import PROB_SCALE, probability_colours

    t = read_tree(ROOT / "sample_trees" / "lecture_5_vertices.csv")
    fig = probability_colours(tree_figure(t, color=[0.45, 0.55, 0.5, 0.1, 0.9], colorscale=PROB_SCALE))
    v = [d for d in fig.data if d.name == "vertices"][0]
    assert (v.marker.cmin, v.marker.cmax) == (0.0, 1.0)
    assert "%{marker.color:.3f}" in v.hovertemplate


def test_contrast_text_reads_on_light_and_dark_fills():
    assert S.contrast_text("#fde725") == "#000000"  # viridis' yellow end
    assert S.contrast_text("#440154") == "#ffffff"  # its purple start


def _boxes(fig):
    """The px boxes of every vertex label, from the figure's own ranges at the nominal width."""
    v = [d for d in fig.data if d.name == "vertices"][0]
    xr, yr = fig.layout.xaxis.range, fig.layout.yaxis.range
    h = fig.layout.height - (fig.layout.margin.t + fig.layout.margin.b)
    ppx, ppy = (NOMINAL_WIDTH - 20) / (xr[1] - xr[0]), h / (yr[1] - yr[0])
    size = v.marker.size
    out = []
    for x, y, t, p in zip(v.x, v.y, v.text, v.textposition):
        w, th = text_width(t, v.textfont.size), 1.2 * v.textfont.size
        cx, cy = (x - xr[0]) * ppx, (y - yr[0]) * ppy
        r = size / 2 + 2
        left = cx - (w / 2 if "center" in p else (r + w if "left" in p else -r))
        bottom = cy - (th / 2 if "middle" in p else (r + th if "bottom" in p else -r))
        out.append((t, p, left, left + w, bottom, bottom + th))
    return out, (xr[1] - xr[0]) * ppx, (yr[1] - yr[0]) * ppy


def test_primates_every_name_is_readable_and_inside_the_plot():
    t = read_tree(ROOT / "sample_trees" / "primates.nwk")
    fig = tree_figure(t, selected=t.root, height=460)
    v = [d for d in fig.data if d.name == "vertices"][0]
    for name, pos in zip(v.text, v.textposition):
        inside = pos == "middle center"
        assert inside == (text_width(name, v.textfont.size) <= v.marker.size - 5), name
    assert "Human" in v.text and v.textposition[list(v.text).index("Human")] != "middle center"
    boxes, W, H = _boxes(fig)
    for name, _, lo, r, b, top in boxes:
        assert lo >= -1 and r <= W + 1 and b >= -1 and top <= H + 1, (name, lo, r, b, top, W, H)


def test_short_names_sit_inside_their_vertex():
    t = read_tree(ROOT / "sample_trees" / "lecture_5_vertices.csv")
    v = [d for d in tree_figure(t).data if d.name == "vertices"][0]
    assert set(v.textposition) == {"middle center"}


def test_rta_gap_axis_has_sensible_ticks():
    assert log_ticks(74.8, 283.2) == [100.0, 150.0, 200.0]
    assert log_ticks(2, 7.5) == [2.0, 3.0, 5.0, 7.0]
    assert log_ticks(0.5, 2000) == [1.0, 10.0, 100.0, 1000.0]
    fig = gallery(Style())["rta_training"]
    ticks = fig.layout.yaxis2.tickvals
    assert list(ticks) == [100.0, 150.0, 200.0] and list(fig.layout.yaxis2.ticktext) == ["100", "150", "200"]


def test_comparisons_share_one_layout():
    from engine.trees import Tree
    from workbench.figures.forest_figures import forest_layout, structure_figure
    from workbench.figures.htmm_figures import labelled_tree_figure

    cl = [(0, 1), (1, 2), (1, 3), (0, 4), (4, 5)]
    ours = [(0, 1), (1, 2), (2, 3), (0, 4), (3, 5)]
    shared = forest_layout(6, cl)
    a = structure_figure(6, ours, layout=shared)
    b = structure_figure(6, cl, layout=shared)
    va = [d for d in a.data if d.name == "variables"][0]
    vb = [d for d in b.data if d.name == "variables"][0]
    assert np.allclose(va.x, vb.x) and np.allclose(va.y, vb.y)
    assert a.layout.xaxis.range == b.layout.xaxis.range

    tree = Tree.from_parent(np.array([-1, 0, 0, 1, 1, 2]))
    fig = labelled_tree_figure(tree, ["1", "2", "2", "3", "1", "1"], ["1", "2", "3", "3", "1", "1"])
    left, right = [d for d in fig.data if d.name == "vertices"]
    assert np.allclose(left.x, right.x) and np.allclose(left.y, right.y)
    assert list(left.text) == ["1", "2", "3", "3", "1", "1"]
    # the wrong one: the "wrong" colour, a square and a cross in its label
    assert right.marker.color[2] == S.WRONG and right.marker.symbol[2] == "square" and "✗" in right.text[2]
    assert right.marker.symbol[1] == "circle" and "✗" not in right.text[1]


def test_bp_message_labels_sit_by_their_sender_with_a_leader_line():
    fig = gallery(Style())["bp_messages"]
    arrows = [a for a in fig.layout.annotations if not a.text]
    labels = [a for a in fig.layout.annotations if a.text]
    assert len(arrows) == len(labels) == 6
    for arr, lab in zip(arrows, labels):
        # the label points at the arrow's tail (by the sender), with a line and no head
        assert (lab.x, lab.y) == (arr.ax, arr.ay) and lab.showarrow and lab.arrowhead == 0
        assert lab.font.size >= FONT_MIN


def test_style_apply_keeps_what_a_figure_set():
    import plotly.graph_objects as go

    fig = go.Figure(go.Scatter(x=[1], y=[1]))
    fig.update_layout(font=dict(size=20), xaxis=dict(title=dict(text="x", font=dict(size=30))))
    Style("dark").apply(fig)
    assert fig.layout.font.size == 20 and fig.layout.xaxis.title.font.size == 30
    assert fig.layout.font.color == S.THEMES["dark"]["text"]


def test_current_style_outside_a_session_is_light():
    assert S.current() == Style()
    with pytest.raises(ValueError, match="theme"):
        Style("sepia")


@pytest.mark.parametrize("module", ["workbench.figures.style", "workbench.figures.export",
                                    "engine.trees.formats.tikz"])
def test_docstring_examples(module):
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert res.failed == 0 and res.attempted > 0


def test_presenter_mode_draws_figures_taller_without_touching_the_cached_one():
    import plotly.graph_objects as go

    from workbench.components import Spec, as_shown, as_spec

    fig = go.Figure(layout=dict(height=400))
    assert as_shown(fig, Style()) is fig
    shown = as_shown(fig, Style(presenter=True))
    assert shown.layout.height == round(400 * S.PRESENTER_HEIGHT) and fig.layout.height == 400
    spec = Spec(as_spec(fig))
    assert as_shown(spec, Style(presenter=True)).to_dict()["layout"]["height"] == round(400 * S.PRESENTER_HEIGHT)
    assert spec.to_dict()["layout"]["height"] == 400


def test_work_bars_name_one_pass_in_the_singular():
    from workbench.figures.inference_figures import work_bar_names, work_bars

    assert work_bar_names(1)[1] == "1 BP pass" and work_bar_names(3)[1] == "3 BP passes"
    assert list(work_bars(30, 58, 1).data[0].y) == ["online (all ops so far)", "1 BP pass"]


def test_label_pair_nodes_hide_the_edges_behind_them():
    """Plotly draws markers of varying size at opacity 0.7 unless told: the nodes are opaque."""
    from workbench.figures.multilabel_figures import label_pair_figure

    fig = label_pair_figure(np.ones((4, 4)), ["a", "b", "c", "d"], [0.1, 0.5, 0.9, 0.3])
    assert fig.data[-1].marker.opacity == 1.0


def test_ofde_level_names_sit_left_one_above_one_below_with_room_on_top():
    """The online curve reaches the batch levels at the right: their names sit at the left, the
    higher above its line, the lower below; the y range leaves room above the highest name."""
    from workbench.figures.forest_figures import learning_curve_figure

    fig = learning_curve_figure({"OFDE": [[1, -9.0], [1000, -5.19]]}, {"Chow-Liu": -5.155, "CLT": -5.2})
    anns = {a.text.split()[0]: a for a in fig.layout.annotations}
    assert anns["Chow-Liu"].x == 0 and anns["Chow-Liu"].yanchor == "bottom"
    assert anns["CLT"].x == 0 and anns["CLT"].yanchor == "top"
    lo, hi = fig.layout.yaxis.range
    assert lo < -9.0 and hi > -5.155 + 0.1 * (9.0 - 5.155)


def test_size_vector_axis_has_whole_ticks():
    from workbench.figures.htmm_figures import k_trace_figure

    fig = k_trace_figure({"k[1]": [[1, 4], [9, 3]], "k[2]": [[1, 1], [5, 2]]})
    assert fig.layout.yaxis.dtick == 1
