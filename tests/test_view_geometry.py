"""A tree view's geometry goes to the browser once (workbench.treeview_data.encode): a click that
recolours the view sends its colours and the geometry's name, which treeview.js fills in from the
geometries it kept, and asks for again when it lacks it (the component's "geo" trigger)."""

from __future__ import annotations

import json
import re

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
