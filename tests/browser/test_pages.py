"""The real browser opens every page of the navigation and saves a screenshot of each."""

import pytest

from tests.browser.conftest import click_view_vertex, show_view, shot, wait_for_app, wait_for_selected
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
    show_view(page, "studio_tree")
    wait_for_selected(page, "studio_tree", "1")   # the root is selected at first
    click_view_vertex(page, "studio_tree", "4")
    page.wait_for_function("() => document.body.innerText.includes('Selected vertex: 4,')", timeout=30_000)
    wait_for_selected(page, "studio_tree", "4")
    shot(page, "tree_studio_clicked")
