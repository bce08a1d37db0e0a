"""The real browser opens every page of the navigation and saves a screenshot of each."""

import pytest

from tests.browser.conftest import click_vertex, shot, wait_for_app
from engine.pagespecs import PAGES

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("spec", list(PAGES.values()), ids=[p.title for p in PAGES.values()])
def test_every_page_opens(page, app_url, spec):
    page.goto(f"{app_url}{PAGES.address(spec)}")
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    shot(page, f"page_{spec.url_path}")


def test_tree_studio_click_selects_vertex(page, app_url):
    page.goto(f"{app_url}/tree_studio")   # "/" is the Lessons landing page
    wait_for_app(page)
    plot = page.locator(".js-plotly-plot").first
    plot.wait_for(timeout=30_000)
    # the root ("1") is selected at first; point 3 is vertex "4" of the lecture tree
    click_vertex(page, 3)
    page.wait_for_function("() => document.body.innerText.includes('Selected vertex: 4,')", timeout=30_000)
    shot(page, "tree_studio_clicked")
