"""A click on Tree Studio's tree in the real browser. Every page of the navigation is opened (no
exception, a screenshot) in a light and a dark browser by ``test_presentation`` and checked with
axe-core in three modes by ``test_accessibility``."""

import pytest

from tests.browser.conftest import click_view_vertex, show_view, shot, wait_for_app, wait_for_selected

pytestmark = pytest.mark.browser


def test_tree_studio_click_selects_vertex(page, app_url):
    page.goto(f"{app_url}/tree_studio")   # "/" is the Lessons landing page
    wait_for_app(page)
    show_view(page, "studio_tree")
    wait_for_selected(page, "studio_tree", "1")   # the root is selected at first
    click_view_vertex(page, "studio_tree", "4")
    page.wait_for_function("() => document.body.innerText.includes('Selected vertex: 4,')", timeout=30_000)
    wait_for_selected(page, "studio_tree", "4")
    shot(page, "tree_studio_clicked")
