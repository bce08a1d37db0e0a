"""A tree view's geometry goes to the browser once (workbench.treeview_data.encode): a click that
recolours the view sends its colours and the geometry's name, which treeview.js fills in from the
geometries it kept, and asks for again when it lacks it (the component's "geo" trigger)."""

from __future__ import annotations

import json
import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.trees.generators import random_tree
from engine.trees.lod import TreeDrawing
from tests.conftest import GEOMETRY_KEYS, ROOT, open_app_page, tree_views, view_data
from workbench import treeview_data

ONLINE = "workbench/pages/online_marginals.py"


def _marks(n: int, seed: int):
    tree = random_tree(n, seed=seed)
    drawing = TreeDrawing(tree, "tidy")
    return tree, drawing, drawing.marks(drawing.overview(800, 500), 800, 500)


def test_a_payload_names_its_geometry_and_carries_it_only_when_asked():
    tree, drawing, marks = _marks(300, 1)
    data, _ = treeview_data.view_payload(tree, "v", drawing, marks, values=[0.5] * tree.n)
    whole = json.loads(treeview_data.encode(tree, marks, data))
    named = json.loads(treeview_data.encode(tree, marks, data, geometry=False))
    gid = treeview_data.geometry_id(tree, marks)
    assert whole["geo"] == named["geo"] == gid
    assert set(GEOMETRY_KEYS) <= set(whole) and not set(GEOMETRY_KEYS) & set(named)
    assert {k: v for k, v in whole.items() if k not in GEOMETRY_KEYS} == named   # the rest is the same
    other_tree, _, other_marks = _marks(300, 2)
    assert treeview_data.geometry_id(other_tree, other_marks) != gid


def test_the_browser_keeps_the_fields_the_server_calls_geometry():
    tree, _, marks = _marks(50, 3)
    js = (ROOT / "workbench" / "assets" / "treeview.js").read_text(encoding="utf-8")
    kept = re.search(r"const GEO_KEYS = \[([^\]]*)\]", js).group(1)
    assert [k.strip().strip('"') for k in kept.split(",")] == list(GEOMETRY_KEYS)
    assert set(treeview_data._geometry(tree, marks)) == set(GEOMETRY_KEYS)


def test_a_click_sends_the_colours_and_a_lost_geometry_is_sent_again(monkeypatch):
    monkeypatch.setattr(treeview_data, "SEND_GEOMETRY_ONCE", True)   # as workbench.serve does
    at = open_app_page(ONLINE)
    first = _sent(at, "om_tree")
    assert "vxy" in first and len(view_data(at, "om_tree")["vid"]) > 0
    next(b for b in at.button if b.key == "om_observe").click()
    at.run()
    assert not at.exception, at.exception
    again = _sent(at, "om_tree")
    assert "vxy" not in again and again["geo"] == first["geo"] and again["vfill"] != first["vfill"]
    assert len(view_data(at, "om_tree")["vid"]) == len(view_data(at, "om_tree")["vxy"]) // 2 > 0
    del at.session_state["om_tree__geo"]   # what the component's "geo" trigger does (treeview.js lacks it)
    at.run()
    assert "vxy" in _sent(at, "om_tree")


def _sent(at, key: str) -> dict:
    el = next(el for el in tree_views(at) if el.key == key)
    return json.loads(el.proto.bytes or el.proto.json)


def test_a_fresh_session_is_drawn_at_the_width_the_browsers_reported(monkeypatch):
    """The served app (``treeview.LEARN_WIDTHS``): a session's first view of a key is drawn at the
    canvas width a browser last reported for that key, not at 900 px (which every 668 px canvas
    asked to have drawn again: a second run of the page's fragment); a test harness keeps 900."""
    from workbench import treeview

    kept: dict = {}

    class Element:   # a session's element state (workbench.session.ElementState), in a dict
        def __init__(self, key):
            object.__setattr__(self, "key_", key)

        def __getattr__(self, name):
            return kept.get((self.key_, name))

        def __setattr__(self, name, value):
            kept[(self.key_, name)] = value

    monkeypatch.setattr(treeview, "ElementState", Element)
    monkeypatch.setattr(treeview, "_widths", {})
    monkeypatch.setattr(treeview, "_event", lambda key, kind: {"vp": None, "w": 668, "h": 520, "seq": 2, "fit": True})
    for learn in (False, True):
        monkeypatch.setattr(treeview, "LEARN_WIDTHS", learn)
        kept.clear()   # a new session
        assert treeview.view_state("om_tree").width == treeview.DEFAULT_WIDTH
        treeview._on_view("om_tree")   # its browser reports its canvas
        assert treeview.view_state("om_tree").width == 668
        kept.clear()   # the next new session
        assert treeview.view_state("om_tree").width == (668 if learn else treeview.DEFAULT_WIDTH)
        assert treeview.view_state("om_d").width == treeview.DEFAULT_WIDTH   # another view: not reported


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 40), max_size=60), st.sets(st.integers(-3, 40), max_size=12))
def test_membership_answers_as_numpys_isin(items, members):
    """treeview_data._member (the rings and highlighted edges of every click's view) agrees with
    ``np.isin`` for any items against any sorted set, the empty one and out-of-range items included."""
    a = np.asarray(items, np.int64)
    s = np.asarray(sorted(members), np.int64)
    assert np.array_equal(treeview_data._member(a, s), np.isin(a, s))
