"""The Hidden Tree Markov Models page in Chromium: launch a small synthetic run, look at it."""

import pytest

from tests.browser.conftest import shot, wait_for_app

pytestmark = pytest.mark.browser


def test_bhtmm_synthetic_run(page, app_url):
    page.goto(f"{app_url}/bhtmm")
    wait_for_app(page)
    shot(page, "bhtmm_start")
    page.get_by_role("button", name="Train and evaluate").click()
    page.wait_for_selector("text=Generated accuracy", timeout=180_000)
    wait_for_app(page, timeout=180_000)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator(".js-plotly-plot").count() >= 4  # confusion, log-likelihood, k, tree
    page.set_viewport_size({"width": 1400, "height": 3300})  # the app scrolls inside its own pane
    wait_for_app(page)
    shot(page, "bhtmm_result")
    page.get_by_text("most probable", exact=True).click()
    wait_for_app(page)
    shot(page, "bhtmm_result_most_probable")
