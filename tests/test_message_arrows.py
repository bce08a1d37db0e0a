"""The sum-product messages drawn on the canvas tree view (Belief Propagation's sequential schedule):
where the arrows and labels go (workbench/figures/arrows.py), what the view sends the browser, and
its SVG download."""

from __future__ import annotations

import numpy as np
import pytest

from engine.inference.belief_propagation import belief_propagation
from engine.inference.messages import message_work
from engine.trees.lod import Viewport
from workbench.figures.arrows import message_text, place_arrows
from workbench.figures.style import Style, text_width
from workbench.figures.view_export import view_svg
from workbench.state import load_sample
from workbench.treeview import drawing_of, view_payload


def _schedule(tree, k=2):
    rng = np.random.default_rng(0)
    phi = rng.random((tree.n, k)) + 0.1
    psi = np.exp(0.8 * np.eye(k))
    exact = belief_propagation(tree, phi, psi, k=k)
    return [(int(w.sender), int(w.receiver), message_text(w.message)) for w in
            message_work(tree, phi, psi, k=k, result=exact)]


def _overlap(a, b) -> float:
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[2], b[2]))


def test_message_text():
    assert message_text([0.3049, 0.6951]) == "[0.30, 0.70]"


def test_both_directions_of_an_edge_run_on_opposite_sides():
    """An edge's two messages are drawn on either side of it (they never lie on each other)."""
    got = {a.index: a for a in place_arrows([0.0, 200.0], [0.0, 0.0], [(0, 1, "[0.5, 0.5]"), (1, 0, "[0.5, 0.5]")])}
    assert got[0].tail[1] > 0 > got[1].tail[1]       # left of the direction of travel
    assert got[0].head[0] > got[0].tail[0] and got[1].head[0] < got[1].tail[0]


def test_the_current_arrow_is_placed_first_and_never_moves():
    arrows = [(0, 1, "[0.50, 0.50]"), (1, 0, "[0.25, 0.75]")]
    alone = place_arrows([0.0, 200.0], [0.0, 0.0], arrows[1:])[0]
    got = place_arrows([0.0, 200.0], [0.0, 0.0], arrows, current=1)
    assert got[0].index == 1 and got[0].offset == alone.offset


@pytest.mark.parametrize("sample", ["lecture_5_vertices", "binary_15"])
def test_canvas_labels_stay_inside_and_cover_no_label(sample):
    """Every message of the schedule on the tree view's overview (the canvas of a page column): the
    labels lie inside the canvas, no two cover each other, and the message just sent is drawn
    last (on top) in the selection colour."""
    tree = load_sample(sample)
    arrows = _schedule(tree)
    drawing = drawing_of(tree, "tidy")
    vp = drawing.overview(560, 480)
    marks = drawing.marks(Viewport(vp.x0, vp.x1, vp.y0, vp.y1), 560, 480)
    style = Style()
    data, pic = view_payload(tree, "bp_tree", drawing, marks, arrows=arrows, current_arrow=3, title="Step 4 of 8",
                             style=style)
    drawn = data["arrows"]
    assert len(drawn) == len(arrows) == 2 * (tree.n - 1)
    assert drawn[-1][7] is True and sum(a[7] for a in drawn) == 1 and drawn[-1][6] == arrows[3][2]
    font = style.font("label")
    boxes = []
    for *_, lx, ly, text, _strong in drawn:
        w = 0.5 * (text_width(text, font) + 8)
        assert w <= lx <= 560 - w and 0 <= ly - 0.7 * font and ly + 0.7 * font <= 480, (text, lx, ly)
        boxes.append((lx - w, lx + w, ly - 0.7 * font, ly + 0.7 * font))
    if tree.n <= 5:   # room for every label on the lecture's tree
        assert all(_overlap(a, b) == 0 for i, a in enumerate(boxes) for b in boxes[i + 1:])
    assert data["title"] == "Step 4 of 8" and data["desc"].startswith("Step 4 of 8. ")
    assert pic.arrows == tuple(tuple(a) for a in drawn)


def test_the_svg_download_draws_the_messages_and_the_title():
    from defusedxml import ElementTree

    tree = load_sample("lecture_5_vertices")
    arrows = _schedule(tree)[:3]
    drawing = drawing_of(tree, "tidy")
    vp = drawing.overview(560, 480)
    marks = drawing.marks(Viewport(vp.x0, vp.x1, vp.y0, vp.y1), 560, 480)
    _, pic = view_payload(tree, "bp_tree", drawing, marks, arrows=arrows, current_arrow=2, title="Step 3 of 8",
                          style=Style())
    text = " ".join(ElementTree.fromstring(view_svg(pic, Style())).itertext())
    assert "Step 3 of 8" in text
    for _, _, label in arrows:
        assert label in text


def test_placed_arrows_are_kept_per_view_arrows_and_style():
    """workbench.treeview._arrows keeps its answer (the sessions of a class on one step share it):
    the same view, arrows and style give the kept answer, equal to placing them afresh; another
    current arrow, another style or another view is placed anew."""
    from workbench import treeview

    tree = load_sample("lecture_5_vertices")
    arrows = _schedule(tree)
    drawing = drawing_of(tree, "tidy")
    vp = drawing.overview(560, 480)
    marks = drawing.marks(Viewport(vp.x0, vp.x1, vp.y0, vp.y1), 560, 480)
    first = treeview._arrows(tree, drawing, marks, arrows, 3, Style())
    assert treeview._arrows(tree, drawing, marks, list(arrows), 3, Style()) is first
    assert first == treeview._place(drawing, marks, tuple(arrows), 3, Style())
    other = treeview._arrows(tree, drawing, marks, arrows, 2, Style())
    assert other != first and [a[6] for a in other if a[7]] == [arrows[2][2]]
    big = treeview._arrows(tree, drawing, marks, arrows, 3, Style(presenter=True))
    assert big == treeview._place(drawing, marks, tuple(arrows), 3, Style(presenter=True))
    wide = drawing.marks(Viewport(vp.x0, vp.x1, vp.y0, vp.y1), 900, 480)
    assert treeview._arrows(tree, drawing, wide, arrows, 3, Style()) == treeview._place(drawing, wide, tuple(arrows), 3,
                                                                                         Style())


def test_the_bytes_sent_are_the_payload_made():
    """The browser is sent the payload's JSON with its geometry spliced in as encoded once per marks
    (workbench.treeview._encode) and named ("geo"): the same object as the payload, on a second
    click too, with names in any script and quotes, values, rings, a selection and a path."""
    import json

    from engine.trees.model import Tree
    from workbench.treeview import _encode, _plain
    from workbench.treeview_data import geometry_id

    names = ["racine", "ünï", 'a "quoted" name', "名前", "x\\y", "e"]
    tree = Tree.from_parent([-1, 0, 0, 1, 1, 2], names=names)
    drawing = drawing_of(tree, "tidy")
    vp = drawing.overview(560, 480)
    marks = drawing.marks(Viewport(vp.x0, vp.x1, vp.y0, vp.y1), 560, 480)
    for selected in (3, 5):   # the second encodes only what a click changes
        data, _ = view_payload(tree, "om_tree", drawing, marks, values=np.linspace(0, 1, tree.n), rings=[4],
                               selected=selected, style=Style())
        sent = json.loads(_encode(tree, marks, data).decode())
        assert sent.pop("geo") == geometry_id(tree, marks)
        assert sent == json.loads(json.dumps(data, default=_plain))
        assert sent["vname"] == names and sent["labelFirst"][0] == list(marks.vertices).index(selected)
