"""The notebook widget (workbench.notebook.TreeView) without a browser, and the notebooks per paper.

The widget is driven as a browser drives it, through its traits: each request (a view, a pick, a
search, a collapsed mark opened) is an ``_event``, each answer a new ``_payload`` (the JSON that
workbench/assets/treeview.js draws). The notebooks under notebooks/ are executed with nbclient
and each one's headline number, printed as ``headline: {...}`` by its last cell, is checked
against the published number within the tolerance stated here (:data:`HEADLINES`).
"""

from __future__ import annotations

import base64
import itertools
import json
import subprocess
import sys

import numpy as np
import pytest

from engine.cover import optimal_cover
from engine.errors import InvalidParameterError
from engine.trees.generators import random_tree
from engine.trees.lod import DEFAULT_BUDGET
from tests.conftest import ROOT

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
notebook = pytest.importorskip("workbench.notebook")
TreeView = notebook.TreeView

NOTEBOOKS = ROOT / "notebooks"
REQUESTS = itertools.count(1)

#: notebook -> (published number, tolerance, why that tolerance): the headline each reproduces
HEADLINES = {
    # Theorem 6, checked by brute force over every leaf root: a count, exact
    "online_sum_product.ipynb": (100.0, 0.0, "covers of height chi^2_s, the brute-force minimum (%)"),
    # an exact algorithm against enumeration: floating point within 1e-9
    "sum_product_lecture_notes.ipynb": (0.0, 1e-9, "largest |BP - brute force|"),
    # the data folder's reference Chow-Liu value, given to 3 decimals
    "ofde_chow_liu.ipynb": (-6.759, 5e-4, "CL: average test log-likelihood, nltcs (nats)"),
    # Table 1 (5 folds, 10 trees, C by validation; sd over folds 0.6) against the quick protocol
    # (2 folds, 5 trees, 10 passes, C = 0.5), which gives 19.6
    "rta.ipynb": (18.8, 1.5, "RTA: microlabel loss, emotions (%)"),
    # Table I (100 iterations, 5 runs; sd 0.27) against 10 iterations and one seed, which give 94.74
    "bhtmm.ipynb": (95.10, 1.5, "TF-BHTMM: accuracy, inex05, C = 6 (%)"),
}


def payload(view) -> dict:
    return json.loads(view._payload)


def send(view, name: str, value) -> dict:
    """A request from the browser (as treeview.js makes it); the answer sent back."""
    view._event = {"name": name, "value": value, "n": f"test:{next(REQUESTS)}"}
    return payload(view)


def array(data: dict, name: str, dtype) -> np.ndarray:
    return np.frombuffer(base64.b64decode(data.get(name) or ""), dtype=dtype)


# ------------------------------------------------------------------ the widget
def test_the_module_example_runs():
    import doctest

    assert doctest.testmod(notebook, verbose=False).failed == 0


def test_importing_the_notebook_widget_does_not_import_streamlit():
    code = "import sys, workbench.notebook; assert 'streamlit' not in sys.modules, 'streamlit imported'"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_widget_and_the_app_load_one_script():
    """One drawing code: the widget's module is the app's component file itself (treeview.js), whose
    default export gives the anywidget its render when called without arguments."""
    from workbench import treeview

    script = treeview._ASSETS / "treeview.js"
    esm = str(TreeView._esm)   # anywidget reads the file
    assert esm == script.read_text(encoding="utf-8")
    assert "if (component === undefined) return notebookWidget();" in esm


def test_a_large_tree_is_sent_marks_bounded_by_the_budget_not_by_n():
    tree = random_tree(200_000, seed=3)
    view = TreeView(tree)
    data = payload(view)
    drawn = len(array(data, "vid", np.int32))
    collapsed = len(array(data, "gcount", np.int32))
    assert data["count"] == tree.n and data["overview"] and drawn + collapsed <= DEFAULT_BUDGET
    assert drawn + int(array(data, "gcount", np.int32).sum()) <= tree.n


def test_a_view_request_is_answered_with_the_marks_of_that_view():
    view = TreeView(random_tree(5_000, seed=1))
    whole = payload(view)
    x0, x1, y0, y1 = whole["vp"]
    part = [x0, x0 + (x1 - x0) / 8, y0, y1]
    got = send(view, "view", {"vp": part, "w": 700, "h": 400, "seq": 3, "fit": False})
    assert (got["w"], got["h"], got["seq"], got["overview"]) == (700, 400, 3, False)
    assert got["vp"][1] < x1 and got["rev"] != whole["rev"]
    assert send(view, "view", {"vp": None, "w": 700, "h": 400, "seq": 4, "fit": True})["overview"]
    before = payload(view)
    send(view, "view", {"vp": ["a"], "w": "wide", "seq": 5})   # malformed: the view is kept
    assert payload(view) == before


def test_a_click_selects_a_vertex_readable_from_python():
    tree = random_tree(300, seed=2)
    view = TreeView(tree)
    seen = []
    view.observe(lambda change: seen.append(change["new"]), "selected")
    data = send(view, "pick", {"id": 17})
    assert view.selected == 17 and seen == [17] and data["selName"] == tree.name(17)
    assert len(array(data, "path", np.float32)) >= 4   # its path to the root is drawn
    send(view, "pick", {"id": tree.n + 5})   # not a vertex: ignored
    assert view.selected == 17
    view.selected = 3   # and from Python
    assert payload(view)["selName"] == tree.name(3)


def test_new_values_recolour_the_same_marks():
    tree = random_tree(20_000, seed=4)
    view = TreeView(tree, values=np.zeros(tree.n), value_title="p(x = 1)")
    send(view, "view", {"vp": payload(view)["vp"], "w": 640, "h": 480, "seq": 2})
    first = payload(view)
    marks = view._shown
    view.values = np.linspace(0, 1, tree.n)
    second = payload(view)
    assert view._shown is marks   # not drawn again: the same marks, new colours
    for geometry in ("vxy", "vid", "ep", "gp", "gcount"):
        assert second[geometry] == first[geometry]
    assert second["vfill"] != first["vfill"] and second["rev"] != first["rev"] and second["seq"] == first["seq"]
    with pytest.raises(InvalidParameterError, match="3 values for a tree of 20,000 vertices"):
        view.values = [0.1, 0.2, 0.3]
    view.set_values(np.full(tree.n, 5.0), lo=0.0, hi=10.0, value_title="score")
    third = payload(view)
    assert third["legend"]["hi"] == 10.0 and third["value"] == "score" and third["vxy"] == first["vxy"]
    view.rings = [5, 6]
    assert int(array(payload(view), "gflag", np.int32).sum() + array(payload(view), "vflag", np.uint8).sum()) == 2


def test_search_suggests_names_and_a_choice_zooms_to_the_vertex():
    tree = random_tree(3_000, seed=5)
    view = TreeView(tree)
    got = send(view, "query", "12")
    assert got["query"] == "12" and got["suggest"][0] == {"id": tree.index("12"), "name": "12"}
    seq = got["seq"]
    chosen = send(view, "choose", {"name": "1234"})
    assert view.selected == tree.index("1234") and chosen["seq"] > seq and not chosen["overview"]
    missing = send(view, "choose", {"name": "no such vertex"})
    assert "No vertex is named no such vertex." in missing["title"]


def test_a_collapsed_mark_opened_zooms_into_it():
    view = TreeView(random_tree(50_000, seed=6))
    whole = payload(view)
    assert len(array(whole, "gcount", np.int32)) > 0
    got = send(view, "open", {"g": 0, "rev": whole["rev"], "seq": 7})
    assert got["seq"] == 7 and not got["overview"]
    (a0, a1, _, _), (b0, b1, _, _) = whole["vp"], got["vp"]
    assert b1 - b0 < a1 - a0


def test_the_layout_button_switches_the_layout():
    view = TreeView(random_tree(2_000, seed=7), layout="tidy")
    assert payload(view)["layout"] == "tidy"
    assert send(view, "layout", "radial")["layout"] == "radial"
    assert send(view, "layout", "sideways")["layout"] == "radial"


def test_a_cover_is_drawn_round_by_round_with_its_decomposition_tree_linked():
    tree = random_tree(400, seed=8)
    cover = optimal_cover(tree, int(tree.leaves[0]))
    view = TreeView(tree, cover=cover)
    assert view.rounds == cover.rounds and view.round == 0 and view.tree.root == cover.s
    merged = np.asarray(cover.vertex_round)
    assert sorted(view.rings.tolist()) == np.flatnonzero(merged == 0).tolist()
    view.round = 2
    assert sorted(view.rings.tolist()) == np.flatnonzero(merged == 2).tolist()
    assert payload(view)["flagName"] == "merged in round 2"
    with pytest.raises(Exception, match=f"round {cover.rounds + 1} is outside 0..{cover.rounds}"):
        view.round = cover.rounds + 1
    d = view.decomposition()
    assert d is view.decomposition() and d.tree.n == cover.m
    assert sorted(d.rings.tolist()) == np.flatnonzero(np.asarray(cover.round) == 2).tolist()
    v = int(np.flatnonzero(merged >= 0)[0])
    view.selected = v   # a vertex of T: its chain of ancestors in D
    assert d.highlight.tolist() == cover.ancestors(cover.node_of_vertex(v)).tolist()
    z = int(cover.node_of_vertex(v))
    d.selected = z      # a node of D: its component's vertices in T
    assert view.highlight.tolist() == cover.vertices_of(z).tolist()
    with pytest.raises(InvalidParameterError, match="no cover"):
        TreeView(tree).decomposition()


# ------------------------------------------------------------------ the notebooks
def test_every_notebook_has_a_stated_headline():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(HEADLINES)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HEADLINES))
def test_a_notebook_runs_and_reproduces_its_headline(name, data_dir):
    """Each notebook runs top to bottom (well under 30 s on a quiet machine: docs/notebooks.md), shows a
    tree view where it draws one, and prints its headline within the tolerance of :data:`HEADLINES`."""
    book = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbclient.NotebookClient(book, timeout=240, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    outputs = [o for cell in book.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    lines = [line for line in text.splitlines() if line.startswith("headline: ")]
    assert len(lines) == 1, text[-2000:]
    got = json.loads(lines[0].removeprefix("headline: "))
    published, tolerance, metric = HEADLINES[name]
    assert got["metric"] == metric and got["published"] == pytest.approx(published, abs=1e-12)
    assert abs(got["ours"] - published) <= tolerance, got
    widgets = [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert widgets, "no tree view was shown"
    if name == "online_sum_product.ipynb":
        assert got["online_vs_bp"] <= 1e-9   # online marginals against belief propagation
    if name == "sum_product_lecture_notes.ipynb":
        assert got["flooding_within_diameter"] == 1.0
