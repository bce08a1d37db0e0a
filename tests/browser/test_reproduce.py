"""The Reproduce page in Chromium: reproduce the optimal cover's Theorem 6 (quick protocol), read the
report with its figure, and find it among the earlier reports."""

import pytest

from tests.browser.conftest import shot, wait_for_app

pytestmark = pytest.mark.browser


def test_reproduce_the_cover_quick(page, app_url):
    page.goto(f"{app_url}/reproduce?paper=cover")
    wait_for_app(page)
    shot(page, "reproduce_open")
    page.get_by_role("button", name="Reproduce").click()
    page.wait_for_selector("text=Reproducing \"Online Sum-Product Computation over Trees\"", timeout=240_000)
    wait_for_app(page, timeout=120_000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("Report as Markdown").count() == 1 and page.get_by_text("Report as HTML").count() == 1
    assert "report=" in page.url
    shot(page, "reproduce_report")
    page.get_by_text("Earlier reports").scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    shot(page, "reproduce_earlier")
