"""The TREE-HEDGE page in Chromium: launch a small run, scrub the time slider, screenshot."""

import pytest

from tests.browser.conftest import (click_view_vertex, show_view, shot, tree_view, view_fills, view_points,
                                    wait_for_app, wait_for_selected, wait_for_view)

pytestmark = pytest.mark.browser


def test_tree_hedge_run(page, app_url):
    page.set_viewport_size({"width": 1400, "height": 2400})  # the whole page in one screenshot
    page.goto(f"{app_url}/tree_hedge")
    wait_for_app(page)
    page.get_by_role("button", name="Use a demo tree (60 tasks)").click()
    page.wait_for_selector("text=the current tree, 60 vertices", timeout=60_000)
    wait_for_app(page)
    page.get_by_role("button", name="Run TREE-HEDGE").click()
    page.wait_for_selector("text=Theorem 9 bound", timeout=120_000)
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator(".js-plotly-plot").count() == 2   # the loss curves and the regret heatmap
    for key in ("hedge_regret_view", "hedge_action_view"):   # the task tree twice: regret, actions
        wait_for_view(page, key)
        assert tree_view(page, key).get_attribute("data-vertices") == "60"
        assert len(view_fills(page, key)) == 60   # every task drawn, in its colour
    shot(page, "tree_hedge_run")
    # a task clicked in the action map is pointed out: described, and ringed in both maps
    show_view(page, "hedge_action_view")
    deepest = max(view_points(page, "hedge_action_view"), key=lambda p: p[3])[1]
    _, task = click_view_vertex(page, "hedge_action_view", deepest)
    page.wait_for_selector(f"text=Task {task} after trial", timeout=60_000)
    wait_for_app(page)
    for key in ("hedge_regret_view", "hedge_action_view"):
        wait_for_selected(page, key, task)
    shot(page, "tree_hedge_task")
    page.get_by_text("Cumulative loss", exact=True).click()
    wait_for_app(page)
    shot(page, "tree_hedge_cumulative")
    # scrub back to the start with the keyboard
    slider = page.get_by_role("slider").last
    slider.focus()
    page.keyboard.press("Home")
    # the rerun may not have started when the page first looks idle: wait for its result
    page.wait_for_function("() => document.querySelector('[data-testid=\"stMain\"]').innerText"
                           ".includes('Regret per task after trial 0:')", timeout=60_000)
    wait_for_app(page)
    wait_for_view(page, "hedge_regret_view")
    assert page.locator("[data-testid='stException']").count() == 0
    shot(page, "tree_hedge_scrubbed")
