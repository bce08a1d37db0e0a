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


def test_the_sidebar_link_follows_the_view_and_is_copied(page, app_url):
    """The sidebar's link follows a click in a tree view (a fragment's rerun, which does not draw
    the sidebar again), and "Copy link" copies the exact address and says so."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url)
    page.goto(f"{app_url}/tree_studio?tree=lecture_5_vertices")
    wait_for_app(page)
    show_view(page, "studio_tree")
    click_view_vertex(page, "studio_tree", "4")
    wait_for_selected(page, "studio_tree", "4")
    note = page.locator("[data-testid='stSidebar'] p.tw-link-note code")
    page.wait_for_function("() => document.querySelector(\"[data-testid='stSidebar'] p.tw-link-note code\")"
                           ".textContent.endsWith('vertex=4')", timeout=30_000)
    assert note.inner_text() == "/tree_studio?tree=lecture_5_vertices&vertex=4"
    button = page.locator("[data-testid='stSidebar'] button.tw-copy-link")
    button.click()
    page.wait_for_function("() => document.querySelector('button.tw-copy-link').textContent.includes('Link copied')",
                           timeout=10_000)
    assert page.evaluate("navigator.clipboard.readText()") == page.url
    assert page.url.endswith("/tree_studio?tree=lecture_5_vertices&vertex=4")
    page.wait_for_function("() => document.querySelector('button.tw-copy-link').textContent.includes('Copy link')",
                           timeout=10_000)   # the label comes back
