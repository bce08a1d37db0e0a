"""The TREE-HEDGE page in Chromium: launch a small run, scrub the time slider, screenshot."""

import pytest

from tests.browser.conftest import shot, wait_for_app

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
    assert page.locator(".js-plotly-plot").count() == 4
    shot(page, "tree_hedge_run")
    page.get_by_text("Cumulative loss", exact=True).click()
    wait_for_app(page)
    shot(page, "tree_hedge_cumulative")
    # scrub back to the start with the keyboard
    slider = page.get_by_role("slider").last
    slider.focus()
    page.keyboard.press("Home")
    # the rerun may not have started when the page first looks idle: wait for its result
    page.wait_for_selector("text=favourite action after trial 0", timeout=60_000)
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    shot(page, "tree_hedge_scrubbed")
