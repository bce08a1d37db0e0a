"""The Cover Inspector in a real browser: presets, the round slider, and linked clicking between
the tree view and the decomposition tree D."""

import pytest

from tests.browser.conftest import shot, wait_for_app

pytestmark = pytest.mark.browser


def click_last_trace_point(page, plot: int, point: int = 0) -> None:
    """Click a marker of the last marker trace of plot number ``plot`` (at its screen position)."""
    traces = page.locator(".js-plotly-plot").nth(plot).locator(".scatterlayer .trace")
    for k in range(traces.count() - 1, -1, -1):
        pts = traces.nth(k).locator(".point")
        if pts.count() > point:
            box = pts.nth(point).bounding_box()
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            return
    raise AssertionError("no marker to click")


def click_named_trace_point(page, plot: int, name: str, point: int = 0) -> None:
    """Click marker ``point`` of the trace called ``name`` (found in the figure's data)."""
    k = page.evaluate(
        "([p, name]) => document.querySelectorAll('.js-plotly-plot')[p].data.findIndex(d => d.name === name)",
        [plot, name])
    assert k >= 0, name
    pts = page.locator(".js-plotly-plot").nth(plot).locator(".scatterlayer .trace").nth(k).locator(".point")
    box = pts.nth(point).bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def open_preset(page, app_url, preset: str, height: int = 1600, timeout: int = 60_000) -> None:
    """Open the Cover Inspector at 1400 x ``height`` and load one of its preset trees."""
    page.set_viewport_size({"width": 1400, "height": height})
    page.goto(f"{app_url}/cover_inspector")
    wait_for_app(page)
    page.get_by_role("button", name=preset).click()
    wait_for_app(page, timeout=timeout)


def test_cover_inspector_rounds_and_linked_clicks(page, app_url):
    open_preset(page, app_url, "Figure 1", height=1800)
    page.wait_for_selector("text=14 vertices", timeout=30_000)
    # move the round slider with the keyboard
    page.get_by_role("slider").first.focus()
    page.keyboard.press("ArrowRight")
    wait_for_app(page)
    page.wait_for_selector("text=has 5 vertices", timeout=30_000)  # "T₁ has 5 vertices" (LaTeX)
    page.locator(".js-plotly-plot").nth(1).wait_for(timeout=30_000)
    # click a black (mergeable) vertex in the tree view: its chain of ancestors in D appears
    click_last_trace_point(page, 0)
    page.wait_for_selector("text=its chain of ancestors in D", timeout=30_000)
    wait_for_app(page)
    shot(page, "cover_inspector_vertex")
    # click a node of D: the component is described and highlighted in both views
    click_last_trace_point(page, 1)
    page.wait_for_selector("text=boundary ∂T", timeout=30_000)
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    shot(page, "cover_inspector_component")
    # click an edge in the tree view: the component drawn there (present at round 1) is selected
    click_named_trace_point(page, 0, "components", point=0)
    page.wait_for_selector("text=component S² (compress, round 0)", timeout=30_000)
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    shot(page, "cover_inspector_edge_click")


def test_cover_inspector_large_tree(page, app_url):
    open_preset(page, app_url, "Random 20,000", timeout=120_000)
    page.wait_for_selector("text=20,000 vertices", timeout=60_000)
    slider = page.get_by_role("slider").first
    for r in range(1, 5):  # one step at a time: a key pressed while the page reruns can be lost
        slider.focus()
        page.keyboard.press("ArrowRight")
        wait_for_app(page, timeout=120_000)
        page.wait_for_selector(f"text=Round {r}:", timeout=60_000)
    assert page.locator("[data-testid='stException']").count() == 0
    shot(page, "cover_inspector_large")


def test_cover_inspector_table_row_selects_component(page, app_url):
    open_preset(page, app_url, "Figure 1")
    page.get_by_role("tab", name="Components").click()
    grid = page.locator("[data-testid='stDataFrame']").first
    grid.wait_for(timeout=30_000)
    box = grid.bounding_box()
    # the row-selection column is at the left edge; row 2 (below the header) is the component S⁸
    page.mouse.click(box["x"] + 12, box["y"] + 35 + 35 * 1 + 17)
    # the Rounds tab opens by itself with the component selected (the table reports a selection
    # late, up to a second after the click: a tab clicked meanwhile used to be switched back)
    page.wait_for_selector("text=component S⁸ (rake, round 2)", timeout=30_000)   # visible
    assert page.get_by_role("tab", name="Rounds").get_attribute("aria-selected") == "true"
    wait_for_app(page)
    shot(page, "cover_inspector_table_click")
