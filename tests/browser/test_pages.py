"""The real browser opens every page of the navigation and saves a screenshot of each."""

import pytest

from tests.browser.conftest import click_vertex, shot, wait_for_app
from workbench.navigation import PAGES, url_path

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("script", [p[1] for p in PAGES], ids=[p[2] for p in PAGES])
def test_every_page_opens(page, app_url, script):
    page.goto(f"{app_url}/{url_path(script)}")
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    shot(page, f"page_{script.rsplit('/', 1)[-1].removesuffix('.py')}")


def test_tree_studio_click_selects_vertex(page, app_url):
    page.goto(f"{app_url}/tree_studio")   # "/" is the Lessons landing page
    wait_for_app(page)
    plot = page.locator(".js-plotly-plot").first
    plot.wait_for(timeout=30_000)
    # the root ("1") is selected at first; point 3 is vertex "4" of the lecture tree
    click_vertex(page, 3)
    page.wait_for_function("() => document.body.innerText.includes('Selected vertex: 4,')", timeout=30_000)
    shot(page, "tree_studio_clicked")
