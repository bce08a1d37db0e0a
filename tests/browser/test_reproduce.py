"""The Reproduce page in Chromium: reproduce the optimal cover's Theorem 6 (quick protocol), read the
report with its figure, and find it among the earlier reports."""

import pytest

from tests.browser.conftest import press_and_wait, shot

pytestmark = pytest.mark.browser


def test_reproduce_the_cover_quick(page, app_url):
    press_and_wait(page, f"{app_url}/reproduce?paper=cover", "Reproduce",
                   "Reproducing \"Online Sum-Product Computation over Trees\"", shot_name="reproduce_open",
                   timeout=240_000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("Report as Markdown").count() == 1 and page.get_by_text("Report as HTML").count() == 1
    assert "report=" in page.url
    shot(page, "reproduce_report")
    page.get_by_text("Earlier reports").scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    shot(page, "reproduce_earlier")
