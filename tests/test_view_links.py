"""The region a tree view shows is part of its page's link (``region=LAYOUT:x0,x1,y0,y1``): the
codec reads and writes it, a link opens its page on that region, and the page's address names the
region on screen (nothing for the whole tree)."""

import pytest
from streamlit.testing.v1 import AppTest

from engine.errors import InvalidParameterError
from engine.trees.lod import LAYOUTS
from tests.conftest import ROOT, view_data
from workbench.declarations.page_table import PAGES
from workbench.declarations.value_formats import REGION_LAYOUTS, format_region, parse_region

TREE_PAGES = ("tree_studio", "cover_inspector", "online_marginals", "belief_propagation", "tree_hedge")


def test_regions_read_back_and_name_the_layouts_the_views_draw():
    assert REGION_LAYOUTS == LAYOUTS
    for region in [("tidy", 0.0, 12.5, -3.0, 0.5), ("radial", -1.234567891, 1e-9, -5e5, 7e5)]:
        back = parse_region(format_region(region))
        assert back[0] == region[0]
        assert all(abs(a - b) <= 1e-7 * max(1.0, abs(b)) for a, b in zip(back[1:], region[1:]))
    for page in TREE_PAGES:
        assert PAGES[page].setting("region").view   # a region never makes a page's results stale


@pytest.mark.parametrize("text, culprit", [
    ("tidy:1,0,0,1", "x0 < x1"), ("tidy:0,1,1,1", "y0 < y1"), ("polar:0,1,0,1", "LAYOUT one of"),
    ("tidy:0,1,0", "four numbers"), ("tidy:0,1,0,inf", "finite"), ("radial:0,1e13,0,1", "finite"),
    ("0,1,0,1", "LAYOUT:x0,x1,y0,y1"), ("tidy:", "four numbers"),
])
def test_bad_regions_are_one_line(text, culprit):
    with pytest.raises(InvalidParameterError) as exc:
        parse_region(text, what="parameter region")
    assert culprit in str(exc.value) and "\n" not in str(exc.value)


def _open(query: dict) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    at.switch_page("workbench/pages/online_marginals.py")
    at.query_params.clear()
    for name, text in query.items():
        at.query_params[name] = text
    at.run()
    assert not at.exception, at.exception
    return at


def _param(at, name):
    v = at.query_params.get(name)
    return v[0] if isinstance(v, list) else v


def test_a_link_opens_online_marginals_on_its_region_and_the_address_follows():
    at = _open({"tree": "random:3000:1"})
    whole = view_data(at, "om_tree")
    assert _param(at, "region") is None              # the overview: the link names no region
    x0, x1, y0, y1 = whole["vp"]
    wanted = (whole["layout"], x0 + 0.45 * (x1 - x0), x0 + 0.55 * (x1 - x0), y0 + 0.4 * (y1 - y0), y1)
    text = format_region(wanted)
    at = _open({"tree": "random:3000:1", "region": text})
    zoomed = view_data(at, "om_tree")
    assert zoomed["layout"] == wanted[0]
    drawn = zoomed["vp"]
    if wanted[0] == "tidy":                          # a radial view widens the region to the canvas
        assert all(abs(a - b) <= 1e-6 * (x1 - x0) for a, b in zip(drawn, wanted[1:]))
    else:
        assert drawn[0] <= wanted[1] + 1e-9 and drawn[1] >= wanted[2] - 1e-9
    assert parse_region(_param(at, "region"))[0] == wanted[0]   # the address names the region drawn
    assert not [w for w in at.warning if "region" in w.value]


def test_a_bad_region_in_a_link_is_one_warning_and_the_whole_tree():
    at = _open({"tree": "random:300:1", "region": "tidy:5,1,0,1"})
    assert any("region" in w.value and "x0 < x1" in w.value for w in at.warning)
    assert _param(at, "region") is None
