"""The real browser opens every page of the navigation and saves a screenshot of each."""

import pytest

from engine.pagespecs import PAGES
from tests.browser.conftest import click_view_vertex, show_view, shot, wait_for_app, wait_for_selected

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
    show_view(page, "studio_tree")
    wait_for_selected(page, "studio_tree", "1")   # the root is selected at first
    click_view_vertex(page, "studio_tree", "4")
    page.wait_for_function("() => document.body.innerText.includes('Selected vertex: 4,')", timeout=30_000)
    wait_for_selected(page, "studio_tree", "4")
    shot(page, "tree_studio_clicked")
