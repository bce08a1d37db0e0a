"""The RTA page in Chromium: launch a small synthetic run, see the results and the figures."""

import pytest

from tests.browser.conftest import shot, wait_for_app

pytestmark = pytest.mark.browser


def _set_number(page, label, value):
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")
    wait_for_app(page)


def test_rta_small_synthetic_run(page, app_url):
    page.goto(f"{app_url}/rta")
    wait_for_app(page)
    shot(page, "rta_open")
    _set_number(page, "Examples", 120)
    _set_number(page, "Folds", 2)
    _set_number(page, "Passes", 5)
    page.get_by_text("fixed", exact=True).click()
    wait_for_app(page)
    page.get_by_role("button", name="Run cross-validation").click()
    page.wait_for_selector("text=Results in the layout of the paper's Table 1", timeout=240_000)
    wait_for_app(page, timeout=120_000)
    page.locator(".js-plotly-plot").nth(2).wait_for(timeout=60_000)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator("[data-testid='stMetric']").count() == 4
    shot(page, "rta_results")
    page.get_by_text("The sampled spanning trees").scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    page.screenshot(path=str(shot.__globals__["SHOTS"] / "rta_trees.png"))
