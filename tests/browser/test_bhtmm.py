"""The Hidden Tree Markov Models page in Chromium: launch a small synthetic run, look at it."""

import pytest

from tests.browser.conftest import press_and_wait, shot, wait_for_app

pytestmark = pytest.mark.browser


def test_bhtmm_synthetic_run(page, app_url):
    press_and_wait(page, f"{app_url}/bhtmm", "Train and evaluate", "Generated accuracy", shot_name="bhtmm_start",
                   timeout=180_000)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator(".js-plotly-plot").count() >= 4  # confusion, log-likelihood, k, tree
    page.set_viewport_size({"width": 1400, "height": 3300})  # the app scrolls inside its own pane
    wait_for_app(page)
    shot(page, "bhtmm_result")
    page.get_by_text("most probable", exact=True).click()
    wait_for_app(page)
    shot(page, "bhtmm_result_most_probable")


def test_bhtmm_sp_as_the_authors_code(page, app_url):
    """Choose SP-BHTMM run as the authors' code; its column appears beside Table III."""
    page.goto(f"{app_url}/bhtmm")
    wait_for_app(page)
    page.get_by_text("SP-BHTMM", exact=True).click()
    page.locator("[data-testid='stSelectbox']").filter(has_text="SP-BHTMM implementation").click()
    page.get_by_role("option", name="authors' code, step for step (the published numbers)").click()
    wait_for_app(page)
    page.get_by_role("button", name="Train and evaluate").click()
    page.wait_for_selector("text=Generated accuracy", timeout=180_000)
    wait_for_app(page, timeout=180_000)
    assert page.locator("[data-testid='stException']").count() == 0
    page.wait_for_selector("text=SP-BHTMM (authors' code)", timeout=30_000)
    page.set_viewport_size({"width": 1400, "height": 2400})
    wait_for_app(page)
    shot(page, "bhtmm_sp_authors_code")
