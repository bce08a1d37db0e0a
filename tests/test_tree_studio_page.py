"""Tree Studio in AppTest: loading from every source, errors shown with st.error, edits and undo."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from engine.trees import read_tree
from tests.conftest import ROOT, open_tab, shown_stats


@pytest.fixture
def at():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    app.run()                     # the landing page (Lessons)
    app.switch_page("workbench/pages/tree_studio.py")
    app.run()
    assert not app.exception
    return app


def tree_of(at):
    return at.session_state["tree"]


def errors(at):
    return [e.value for e in at.error]


def test_opens_with_the_lecture_tree(at):
    t = tree_of(at)
    assert t.n == 5 and set(t.names) == {"1", "2", "3", "4", "5"}
    assert not errors(at)
    # 1-2, 1-3, 2-4, 2-5: leaves 3, 4, 5; the longest path 4-2-1-3
    assert shown_stats(at) == {"vertices": "5", "leaves": "3", "diameter": "3", "radius": "2", "max degree": "3",
                           "height": "2"}


@pytest.mark.parametrize("name,content,message", [
    ("bad.nwk", b"((A,B);", "bad.nwk: the '(' at line 1, column 1 is never closed"),
    ("cycle.csv", b"a,b\nb,c\nc,a\n", "closes the cycle"),
    ("bomb.xml", b"<!DOCTYPE x [<!ENTITY a 'b'>]><x>&a;</x>", "bomb.xml: XML: entity declarations are refused"),
    ("t.jsonl", b'{"children": [[2], [-1]]}\n', "t.jsonl: tree index 3 is out of range: the file has 1 trees"),
])
def test_bad_upload_shows_an_error_and_keeps_the_tree(at, name, content, message):
    before = tree_of(at)
    open_tab(at, "studio_source", "Upload")   # only the open tab is drawn
    if name.endswith(".jsonl"):
        at.number_input(key="studio_index").set_value(3).run()
    at.file_uploader(key="studio_upload").set_value((name, content, "application/octet-stream")).run()
    assert not at.exception
    assert any(message in e for e in errors(at)), errors(at)
    assert tree_of(at) is before


def test_good_upload_replaces_the_tree(at):
    data = (ROOT / "sample_trees" / "bookstore.xml").read_bytes()
    open_tab(at, "studio_source", "Upload")
    at.file_uploader(key="studio_upload").set_value(("bookstore.xml", data, "text/xml")).run()
    assert not at.exception and not errors(at)
    assert tree_of(at) == read_tree(ROOT / "sample_trees" / "bookstore.xml")


def test_paste_newick_and_bad_text(at):
    open_tab(at, "studio_source", "Paste")
    at.text_area(key="studio_paste").input("((A,B)AB,C)R;").run()
    at.button(key="studio_paste_go").click().run()
    assert set(tree_of(at).names) == {"R", "AB", "A", "B", "C"}
    at.text_area(key="studio_paste").input("a,b\nb,b\n").run()
    at.button(key="studio_paste_go").click().run()
    assert any("edge (b, b) is a self-loop" in e for e in errors(at))
    assert tree_of(at).n == 5


def test_sample_and_generate(at):
    at.selectbox(key="studio_sample").select("primates.nwk").run()
    at.button(key="studio_load_sample").click().run()
    assert tree_of(at).name(tree_of(at).root) == "Catarrhini"
    open_tab(at, "studio_source", "Generate")
    at.selectbox(key="studio_kind").select("star-of-paths").run()
    at.slider(key="studio_k").set_value(3).run()
    at.slider(key="studio_m").set_value(4).run()
    at.button(key="studio_generate").click().run()
    t = tree_of(at)
    assert t.n == 13 and t.degree[0] == 3
    summary = shown_stats(at)
    assert (summary["vertices"], summary["leaves"], summary["diameter"]) == ("13", "3", "8")
    at.selectbox(key="studio_kind").select("random").run()
    at.slider(key="studio_n").set_value(10_000).run()
    at.button(key="studio_generate").click().run()
    assert not at.exception and tree_of(at).n == 10_000
    # above 5,000 vertices the vertex is typed (or clicked), not picked from a menu
    at.text_input(key="studio_tree__box").input("77").run()
    assert at.session_state["studio_tree__vertex"] == "77"
    at.text_input(key="studio_tree__box").input("nope").run()
    assert "no vertex is named nope" in errors(at)


def test_edit_then_undo(at):
    at.selectbox(key="studio_tree__box").select("4").run()
    at.text_input(key="studio_child_name").input("six").run()
    at.button(key="studio_add").click().run()
    assert ("4", "six") in tree_of(at).named_edges()
    at.selectbox(key="studio_tree__box").select("3").run()
    at.button(key="studio_delete").click().run()
    assert "3" not in tree_of(at).names
    at.selectbox(key="studio_tree__box").select("2").run()
    at.button(key="studio_reroot").click().run()
    assert tree_of(at).name(tree_of(at).root) == "2"
    at.text_input(key="studio_rename_to").input("5").run()
    at.button(key="studio_rename").click().run()
    assert any("a vertex is already named '5'" in e for e in errors(at))
    at.button(key="studio_undo").click().run()
    assert tree_of(at).name(tree_of(at).root) == "1" and "3" not in tree_of(at).names
    at.button(key="studio_undo").click().run()
    at.button(key="studio_undo").click().run()
    assert tree_of(at).n == 5 and "six" not in tree_of(at).names
    assert not at.exception


def test_edge_table_edit_is_validated(at):
    assert not at.data_editor      # the table waits for its tab (Summary opens first)
    open_tab(at, "studio_tab", "Edge table")
    key = "studio_table_0_0"  # tree version 0 (the opening tree), its table's first sitting
    # a cycle through the table: add the edge 4-5
    at.session_state[key] = {"edited_rows": {}, "added_rows": [{"parent": "4", "child": "5"}], "deleted_rows": []}
    at.button(key="studio_apply_table").click().run()
    assert any("closes the cycle" in e for e in errors(at)), errors(at)
    assert tree_of(at).n == 5


def test_edge_table_edit_applies(at):
    # row 3 is the edge (2, 5): move 5 under 3
    open_tab(at, "studio_tab", "Edge table")
    at.session_state["studio_table_0_0"] = {"edited_rows": {"3": {"parent": "3"}}, "added_rows": [], "deleted_rows": []}
    at.button(key="studio_apply_table").click().run()
    assert not errors(at)
    assert {frozenset(e) for e in tree_of(at).named_edges()} == {frozenset(e) for e in
                                                               [("1", "2"), ("1", "3"), ("2", "4"), ("3", "5")]}


@pytest.mark.parametrize("kind,sliders,n", [
    ("complete", {"studio_n": 40, "studio_b": 3}, 40),
    ("caterpillar", {"studio_n": 30, "studio_spine": 10}, 30),
    ("spider", {"studio_n": 30, "studio_legs": 4}, 30),
])
def test_generator_sliders(at, kind, sliders, n):
    open_tab(at, "studio_source", "Generate")
    at.selectbox(key="studio_kind").select(kind).run()
    for key, value in sliders.items():
        at.slider(key=key).set_value(value).run()
    at.button(key="studio_generate").click().run()
    t = tree_of(at)
    assert not at.exception and t.n == n
    if kind == "complete":
        assert t.degree[t.root] == 3
    if kind == "spider":
        assert t.degree[0] == 4
    if kind == "caterpillar":
        assert (t.degree > 1).sum() == 10


def test_copy_as_newick_and_tikz(at):
    from engine.trees.formats import parse_tree_text

    at.selectbox(key="studio_sample").set_value("primates.nwk").run()
    at.button(key="studio_load_sample").click().run()
    tree = tree_of(at)
    open_tab(at, "studio_tab", "Copy as Newick / TikZ")
    assert not at.code                                   # nothing is written until a format is picked
    at.segmented_control(key="studio_copy_as").set_value("Newick").run()
    back = parse_tree_text(at.code[0].value, "newick")
    assert back.n == tree.n and sorted(back.names) == sorted(tree.names)
    at.segmented_control(key="studio_copy_as").set_value("TikZ").run()
    tikz = at.code[0].value
    assert tikz.count(r"\node[vertex]") == tree.n and r"\begin{tikzpicture}" in tikz
    at.segmented_control(key="studio_copy_as").set_value("LaTeX document").run()
    assert r"\documentclass" in at.code[0].value
    # above the TikZ limit: its one-line refusal, no text
    open_tab(at, "studio_source", "Generate")
    at.selectbox(key="studio_kind").set_value("random").run()
    at.slider(key="studio_n").set_value(2001).run()
    at.button(key="studio_generate").click().run()
    at.segmented_control(key="studio_copy_as").set_value("TikZ").run()
    assert not at.code and any("up to 2,000 vertices" in i.value for i in at.info), [i.value for i in at.info]
    at.segmented_control(key="studio_copy_as").set_value("Newick").run()
    assert at.code and at.code[0].value.rstrip().endswith(";")


def test_belief_propagation_after_adding_a_vertex_is_exact(at):
    """A child added under the root of the lecture tree (whose other children have children)
    used to be put last in the tree's order, and the Belief Propagation page then showed wrong
    marginals (0.03 off): the page's marginals must equal brute-force enumeration."""
    from engine.inference.brute_force import brute_force

    # nothing picked yet: the editor shows the root as selected, and "Add child" adds under it
    # (it used to refuse with "select a vertex first" while showing the root selected)
    at.text_input(key="studio_child_name").input("six").run()
    at.button(key="studio_add").click().run()
    tree = tree_of(at)
    assert ("1", "six") in tree.named_edges()
    at.switch_page("workbench/pages/belief_propagation.py")
    at.run()
    at.slider(key="bp_messages").set_value(at.slider(key="bp_messages").max).run()
    assert not at.exception, at.exception
    model = at.session_state["bp_model"]
    want = brute_force(tree, model.node_potentials, model.edge_potentials, k=model.k).marginals
    shown = next(d.value for d in at.dataframe if "P(label 0)" in d.value.columns)
    assert list(shown.index) == list(tree.names)
    np.testing.assert_allclose(shown.to_numpy(dtype=float), want, rtol=1e-12, atol=1e-15)


def test_only_the_open_tabs_are_drawn_and_a_closed_tab_keeps_its_values(at):
    # a fresh page draws the samples and the summary: no uploader, no generator, no data editor
    assert not at.file_uploader and not at.data_editor and not at.slider
    open_tab(at, "studio_source", "Generate")
    at.selectbox(key="studio_kind").select("complete").run()
    at.slider(key="studio_n").set_value(40).run()
    at.slider(key="studio_b").set_value(4).run()
    open_tab(at, "studio_source", "Paste")
    assert not at.slider
    at.text_area(key="studio_paste").input("((A,B)AB,C)R;").run()
    open_tab(at, "studio_tab", "Download")
    at.selectbox(key="studio_down_fmt").select("newick").run()
    open_tab(at, "studio_source", "Samples")
    open_tab(at, "studio_tab", "Summary")
    open_tab(at, "studio_source", "Generate")
    assert (at.selectbox(key="studio_kind").value, at.slider(key="studio_n").value,
            at.slider(key="studio_b").value) == ("complete", 40, 4)
    at.button(key="studio_generate").click().run()
    assert tree_of(at).n == 40 and tree_of(at).degree[tree_of(at).root] == 4
    open_tab(at, "studio_source", "Paste")
    assert at.text_area(key="studio_paste").value == "((A,B)AB,C)R;"
    open_tab(at, "studio_tab", "Download")
    assert at.selectbox(key="studio_down_fmt").value == "newick"
    assert not at.exception and not at.warning


def test_edits_not_yet_applied_survive_another_tab(at):
    open_tab(at, "studio_tab", "Edge table")
    # row 3 is the edge (2, 5): move 5 under 3, then look at the summary before applying
    at.session_state["studio_table_0_0"] = {"edited_rows": {"3": {"parent": "3"}}, "added_rows": [], "deleted_rows": []}
    open_tab(at, "studio_tab", "Summary")
    assert tree_of(at).n == 5 and shown_stats(at)["diameter"] == "3"     # nothing applied yet
    open_tab(at, "studio_tab", "Edge table")
    shown = at.data_editor[0].value
    assert list(map(tuple, shown.to_numpy())) == [("1", "2"), ("1", "3"), ("2", "4"), ("3", "5")]
    assert any("Your edits not yet applied are kept" in c.value for c in at.caption)
    # a further edit in the new editor (key: the second sitting), then apply both
    at.session_state["studio_table_0_1"] = {"edited_rows": {}, "added_rows": [{"parent": "4", "child": "6"}],
                                            "deleted_rows": []}
    at.button(key="studio_apply_table").click().run()
    assert not errors(at)
    assert {frozenset(e) for e in tree_of(at).named_edges()} == {frozenset(e) for e in
                                                               [("1", "2"), ("1", "3"), ("2", "4"), ("3", "5"),
                                                                ("4", "6")]}
    assert not any("kept" in c.value for c in at.caption)
    open_tab(at, "studio_tab", "Summary")
    assert shown_stats(at)["vertices"] == "6" and shown_stats(at)["diameter"] == "5"


def test_a_forged_table_state_is_ignored_not_a_traceback(at):
    """Rows no table has (a hand-made websocket message) are left out, on Apply and on a tab switch."""
    open_tab(at, "studio_tab", "Edge table")
    at.session_state["studio_table_0_0"] = {"edited_rows": {"99": {"parent": "x"}, "-1": {}, "a": {}},
                                            "added_rows": ["junk"], "deleted_rows": [42, "z"]}
    open_tab(at, "studio_tab", "Summary")
    assert not at.exception
    open_tab(at, "studio_tab", "Edge table")
    at.button(key="studio_apply_table").click().run()
    assert not at.exception and tree_of(at).n == 5
