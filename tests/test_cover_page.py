"""The Cover Inspector page, headless (streamlit AppTest): presets, round slider, inspection,
variants, best root, the Definition 1 check and error paths. The engine is the oracle."""

import math

import pytest
from streamlit.testing.v1 import AppTest

from engine.cover import brute_force_optima, figure1_tree, optimal_cover, rake_only_cover
from engine.trees.generators import path_tree, star_tree
from tests.conftest import open_app_page, open_tab, shown_stats, view_data

PAGE = "workbench/pages/cover_inspector.py"


def open_page(tree=None) -> AppTest:
    at = open_app_page(PAGE, timeout=180, state=None if tree is None else {"tree": tree, "tree_source": "test"})
    assert not at.exception, at.exception
    return at


def root_box(at):
    return [sb for sb in at.selectbox if sb.label == "Root s (a leaf)"][0]


def text(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_default_tree_metrics_match_engine_and_brute_force():
    at = open_page()
    tree = at.session_state["tree"]
    s = tree.index(root_box(at).value)
    m = shown_stats(at)
    o = brute_force_optima(tree, s)
    assert m["(2,s)-cover height"] == str(optimal_cover(tree, s).height)
    assert m["Rake-only height"] == str(rake_only_cover(tree, s).height)
    assert m["⌈log₂ n⌉"] == str(math.ceil(math.log2(tree.n)))
    assert m["χ²ₛ (brute force)"] == str(o.chi_2s) and m["χ* (brute force)"] == str(o.chi_star)


def test_star_preset_has_height_one():
    at = open_page()
    at.button(key="cover_preset_Star").click().run()
    assert not at.exception
    assert at.session_state["tree"] == star_tree(16)
    assert shown_stats(at)["(2,s)-cover height"] == "1"  # the paper: the star's only cover has height 1


def test_slider_shows_each_round_of_figure1():
    at = open_page()
    at.button(key="cover_preset_Figure 1").click().run()
    cover = optimal_cover(figure1_tree(), "1")
    for t in range(cover.rounds + 1):
        at.slider(key="cover_t").set_value(t).run()
        assert not at.exception
        tr = cover.trace(t)
        assert (f"**Round {t}:** $T_{{{t}}}$ has {tr.vertices.size} vertices, {int(tr.mergeable.sum())} "
                f"of them mergeable") in text(at)



def test_only_the_open_tab_is_computed_and_the_round_survives_another_tab():
    at = open_page()
    at.button(key="cover_preset_Figure 1").click().run()
    at.slider(key="cover_t").set_value(2).run()
    assert not at.get("plotly_chart")      # the icicle and the growth curve wait for their tabs
    open_tab(at, "cover_tab", "Icicle of D")
    assert not at.exception, at.exception
    assert [c.key for c in at.get("plotly_chart")] == ["cover_icicle"]
    assert not at.get("slider") or "cover_t" not in {s.key for s in at.slider}
    open_tab(at, "cover_tab", "Rounds")
    assert at.slider(key="cover_t").value == 2

def test_inspect_component_and_vertex():
    at = open_page()
    at.button(key="cover_preset_Figure 1").click().run()
    tree = figure1_tree()
    cover = optimal_cover(tree, "1")
    z = int(cover.vertex_node[tree.index("10")])
    at.selectbox(key="cover_pick").set_value("component S¹⁰ (compress, round 0)").run()
    assert not at.exception
    body = text(at)
    assert "boundary ∂T = {8, 12}" in body
    assert f"{cover.vertices_of(z).size} vertices" in body
    at.selectbox(key="cover_pick").set_value("vertex 13").run()
    chain = " → ".join(cover.node_name(int(x)) for x in cover.ancestors(cover.node_of_vertex(tree.index("13"))))
    assert chain in text(at)
    assert at.session_state["cover_sel"] == ("vertex", tree.index("13"))


def test_rake_only_variant_and_root_choice():
    at = open_page(path_tree(9))
    root_box(at).set_value("8").run()
    at.radio(key="cover_cover").set_value("Rake-only (section 4)").run()
    assert not at.exception
    # the slider now runs over the rake-only rounds
    assert at.slider(key="cover_t").max == rake_only_cover(path_tree(9), 8).rounds


def test_best_root_and_definition_check():
    at = open_page(figure1_tree())
    open_tab(at, "cover_tab", "Optimality & best root")
    at.button(key="cover_try_roots").click().run()
    assert not at.exception
    tree = figure1_tree()
    hs = {tree.name(int(s)): optimal_cover(tree, int(s)).height for s in tree.leaves}
    best = min(hs, key=lambda k: (hs[k], list(hs).index(k)))
    assert f"Best root **{best}** with height **{hs[best]}**" in text(at)
    at.button(key="cover_use_best").click().run()
    at.button(key="cover_check").click().run()
    assert not at.exception
    assert any("Valid" in s.value for s in at.success)


def test_one_vertex_tree_is_an_error_not_a_traceback():
    at = open_page(path_tree(1))
    assert any("at least one edge" in e.value for e in at.error)


@pytest.mark.parametrize("preset", ["Path", "Star of paths", "Random 20,000"])
def test_presets_run(preset):
    at = open_page()
    at.button(key=f"cover_preset_{preset}").click().run()
    assert not at.exception
    at.slider(key="cover_t").set_value(2).run()
    assert not at.exception


def test_views_ring_each_rounds_mergeable_vertices():
    """T is coloured by the round each vertex is merged in and rings those of round t; D draws
    every node (a small tree), by kind."""
    at = open_app_page("workbench/pages/cover_inspector.py")
    at.button(key="cover_preset_Figure 1").click().run()
    cover = optimal_cover(figure1_tree(), "1")
    for t in range(cover.rounds + 1):
        at.slider(key="cover_t").set_value(t).run()
        assert not at.exception, at.exception
        tv = view_data(at, "cover_t_view")
        ringed = sorted(int(v) for v, f in zip(tv["vid"], tv["vflag"]) if f)
        tr = cover.trace(t)
        assert ringed == sorted(tr.vertices[tr.mergeable].tolist()) if t < cover.rounds else ringed == []
        assert sorted(tv["vid"].tolist()) == list(range(cover.tree.n))   # every vertex drawn
    dv = view_data(at, "cover_d_view")
    assert sorted(dv["vid"].tolist()) == list(range(cover.m))
