"""The Cover Inspector in a real browser: presets, the round slider, and linked clicking between
the tree T and the decomposition tree D (two tree views, workbench.treeview)."""

import pytest

from tests.browser.conftest import (click_view_vertex, show_view, shot, tree_view, view_flagged,
                                    view_highlighted, view_sent_and_drawn, wait_for_app, wait_for_selected,
                                    wait_for_view)

pytestmark = pytest.mark.browser


def open_preset(page, app_url, preset: str, height: int = 1600, timeout: int = 60_000) -> None:
    """Open the Cover Inspector at 1400 x ``height`` and load one of its preset trees."""
    page.set_viewport_size({"width": 1400, "height": height})
    page.goto(f"{app_url}/cover_inspector")
    wait_for_app(page)
    page.get_by_role("button", name=preset).click()
    wait_for_app(page, timeout=timeout)


def _main_text(page) -> str:
    return page.locator("[data-testid='stMain']").inner_text()


def test_cover_inspector_rounds_and_linked_clicks(page, app_url):
    open_preset(page, app_url, "Figure 1", height=1800)
    page.wait_for_selector("text=14 vertices", timeout=30_000)
    # move the round slider with the keyboard
    page.get_by_role("slider").first.focus()
    page.keyboard.press("ArrowRight")
    wait_for_app(page)
    page.wait_for_selector("text=has 5 vertices", timeout=30_000)  # "T₁ has 5 vertices" (LaTeX)
    show_view(page, "cover_t_view")
    wait_for_view(page, "cover_d_view")
    # the vertices merged in round 1 are ringed in T: click one, its chain of ancestors in D appears
    assert sorted(view_flagged(page, "cover_t_view")) == ["12", "5"]
    click_view_vertex(page, "cover_t_view", "5")
    page.wait_for_selector("text=its chain of ancestors in D", timeout=30_000)
    wait_for_app(page)
    wait_for_selected(page, "cover_t_view", "5")
    assert "Vertex 5 — its chain of ancestors in D (2 nodes" in _main_text(page)
    page.wait_for_function("(el) => el.parentNode.__treeview.m.hxy.length === 4",   # D rings its chain 5 → 4
                           arg=tree_view(page, "cover_d_view").element_handle(), timeout=30_000)
    shot(page, "cover_inspector_vertex")
    # click a node of D: the component is described, selected in D and its vertices ringed in T
    click_view_vertex(page, "cover_d_view", "5")
    page.wait_for_selector("text=boundary ∂T", timeout=30_000)
    wait_for_app(page)
    wait_for_selected(page, "cover_d_view", "5")
    assert "component S⁵ (rake, round 1)" in _main_text(page)
    page.wait_for_function("(el) => el.parentNode.__treeview.m.hxy.length === 8",   # S⁵ holds 4, 5, 6, 7
                           arg=tree_view(page, "cover_t_view").element_handle(), timeout=30_000)
    assert view_highlighted(page, "cover_t_view") == 4
    assert page.locator("[data-testid='stException']").count() == 0
    shot(page, "cover_inspector_component")
    # the keyboard route: pick a component by name in the Inspect box; both views follow
    box = page.locator("[data-testid='stSelectbox']").filter(has_text="Inspect").locator("input")
    box.click()
    page.keyboard.type("component S²")
    page.get_by_role("option", name="component S² (compress, round 0)").click()
    page.wait_for_selector("text=component S² (compress, round 0)", timeout=30_000)
    wait_for_app(page)
    wait_for_selected(page, "cover_d_view", "2")
    page.wait_for_function("(el) => el.parentNode.__treeview.m.hxy.length === 8",   # S² holds 1, 2, 3, 4
                           arg=tree_view(page, "cover_t_view").element_handle(), timeout=30_000)
    assert page.locator("[data-testid='stException']").count() == 0
    shot(page, "cover_inspector_edge_click")


def test_cover_inspector_preset_draws_its_tree(page, app_url):
    """A preset replaces the tree: both views show the new T and D whole."""
    open_preset(page, app_url, "Figure 1")
    page.wait_for_selector("text=14 vertices", timeout=30_000)
    for key, n in (("cover_t_view", "14"), ("cover_d_view", "21")):
        page.wait_for_function("([el, n]) => el.dataset.vertices === n",
                               arg=[tree_view(page, key).element_handle(), n], timeout=30_000)
        wait_for_view(page, key)
    show_view(page, "cover_t_view")
    shot(page, "cover_inspector_preset")
    for key in ("cover_t_view", "cover_d_view"):
        sent, drawn = view_sent_and_drawn(page, key)
        assert drawn == sent, (key, sent, drawn)


def test_cover_inspector_large_tree(page, app_url):
    open_preset(page, app_url, "Random 20,000", timeout=120_000)
    page.wait_for_selector("text=20,000 vertices", timeout=60_000)
    wait_for_app(page, timeout=120_000)   # the text comes before the views: the run goes on after it
    slider = page.get_by_role("slider").first
    for r in range(1, 5):  # one step at a time: a key pressed while the page reruns can be lost
        slider.focus()
        page.keyboard.press("ArrowRight")
        wait_for_app(page, timeout=120_000)
        page.wait_for_selector(f"text=Round {r}:", timeout=60_000)
    assert page.locator("[data-testid='stException']").count() == 0
    for key in ("cover_t_view", "cover_d_view"):   # T and D (32,600 nodes) in the same view, at any size
        wait_for_view(page, key, timeout=120_000)
    assert tree_view(page, "cover_t_view").get_attribute("data-vertices") == "20000"
    assert int(tree_view(page, "cover_d_view").get_attribute("data-vertices")) > 20_000
    shot(page, "cover_inspector_large")


def test_cover_inspector_table_row_selects_component(page, app_url):
    open_preset(page, app_url, "Figure 1")
    page.get_by_role("tab", name="Components").click()
    wait_for_app(page)     # the page computes only its open tab: the table comes with this rerun
    grid = page.locator("[data-testid='stDataFrame']:visible").first
    grid.wait_for(timeout=60_000)
    box = grid.bounding_box()
    # the row-selection column is at the left edge; row 2 (below the header) is the component S⁸
    page.mouse.click(box["x"] + 12, box["y"] + 35 + 35 * 1 + 17)
    # the Rounds tab opens by itself with the component selected (the table reports a selection
    # late, up to a second after the click: a tab clicked meanwhile used to be switched back)
    page.wait_for_selector("text=component S⁸ (rake, round 2)", timeout=60_000)   # visible
    assert page.get_by_role("tab", name="Rounds").get_attribute("aria-selected") == "true"
    wait_for_app(page)
    wait_for_selected(page, "cover_d_view", "8")    # and selected in D
    shot(page, "cover_inspector_table_click")
