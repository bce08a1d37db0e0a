"""Tree Studio in Chromium: click a vertex and edit it, upload a bad file, draw a 10,000-vertex tree."""

import pytest

from tests.browser.conftest import (click_view_vertex, show_view, shot, tree_view, view_data,
                                    view_marks, view_points, view_sent_and_drawn, wait_for_app, wait_for_drawn,
                                    wait_for_selected, wait_for_view)

pytestmark = pytest.mark.browser


def sidebar_text(page) -> str:
    return page.locator("[data-testid='stSidebar']").inner_text()


def _add_child_to_4(page, app_url):
    """Tree Studio on the lecture tree: click "4", press "Add child"; the new child's name."""
    page.goto(f"{app_url}/tree_studio")   # "/" is the Lessons landing page
    wait_for_app(page)
    show_view(page, "studio_tree")
    assert "5 vertices" in sidebar_text(page)
    click_view_vertex(page, "studio_tree", "4")
    page.wait_for_selector("text=Selected vertex: 4", timeout=60_000)
    wait_for_app(page)
    wait_for_selected(page, "studio_tree", "4")
    shot(page, "tree_studio_selected")
    page.get_by_role("button", name="Add child").click()
    page.wait_for_function("() => document.querySelector('[data-testid=\"stSidebar\"]').innerText.includes('6 vertices')",
                           timeout=30_000)
    wait_for_app(page)
    # the view receives the new tree (the old one lingers a moment while it is replaced)
    page.wait_for_function("(el) => el.dataset.vertices === '6'", arg=tree_view(page, "studio_tree").element_handle(),
                           timeout=30_000)
    wait_for_view(page, "studio_tree")
    (new,) = set(view_data(page, "studio_tree", "vname")) - {"1", "2", "3", "4", "5"}
    return new


def test_click_a_vertex_then_add_a_child_and_undo(page, app_url):
    _add_child_to_4(page, app_url)
    show_view(page, "studio_tree")
    shot(page, "tree_studio_child_added")
    page.get_by_role("button", name="Undo last change").click()
    page.wait_for_function("() => document.querySelector('[data-testid=\"stSidebar\"]').innerText.includes('5 vertices')",
                           timeout=30_000)
    page.wait_for_function("(el) => el.dataset.vertices === '5'", arg=tree_view(page, "studio_tree").element_handle(),
                           timeout=30_000)
    assert page.locator("[data-testid='stException']").count() == 0


def test_a_new_child_is_drawn(page, app_url):
    """After "Add child" the view shows the new tree whole: all six vertices, the child below its parent."""
    new = _add_child_to_4(page, app_url)
    show_view(page, "studio_tree")
    try:
        wait_for_drawn(page, "studio_tree", 6, timeout=20_000)
    finally:
        shot(page, "tree_studio_child_drawn")
    xy = {name: (x, y) for _, name, x, y in view_points(page, "studio_tree")}
    assert xy[new][1] > xy["4"][1], xy   # a child is drawn below its parent


def test_bad_upload_shows_an_error(page, app_url, tmp_path):
    page.goto(f"{app_url}/tree_studio")   # "/" is the Lessons landing page
    wait_for_app(page)
    page.get_by_role("tab", name="Upload").click()
    bad = tmp_path / "broken.nwk"
    bad.write_text("((A,B);")
    page.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(str(bad))
    page.wait_for_selector("text=broken.nwk: the '(' at line 1, column 1 is never closed", timeout=30_000)
    wait_for_app(page)
    shot(page, "tree_studio_bad_upload")
    assert "5 vertices" in sidebar_text(page)


def test_generate_and_draw_10000_vertices(page, app_url):
    page.goto(f"{app_url}/tree_studio")   # "/" is the Lessons landing page
    wait_for_app(page)
    page.get_by_role("tab", name="Generate").click()
    page.locator("[data-testid='stSelectbox']").filter(has_text="Family").click()
    page.get_by_role("option", name="random", exact=True).click()
    wait_for_app(page)
    slider = page.locator("[data-testid='stSlider']").filter(has_text="Vertices n").get_by_role("slider")
    slider.focus()
    page.keyboard.press("End")
    page.wait_for_selector("text=10000", timeout=30_000)
    wait_for_app(page)
    done = "() => document.querySelector('[data-testid=\"stSidebar\"]').innerText.includes('10,000 vertices')"
    page.get_by_role("button", name="Generate", exact=True).click()
    try:
        page.wait_for_function(done, timeout=120_000)
    finally:
        shot(page, "tree_studio_after_generate")
    wait_for_app(page)
    wait_for_view(page, "studio_tree", timeout=120_000)
    page.wait_for_function("(el) => el.dataset.vertices === '10000'",
                           arg=tree_view(page, "studio_tree").element_handle(), timeout=120_000)
    wait_for_view(page, "studio_tree", timeout=120_000)
    # drawn at the level of detail the canvas can show: vertices and collapsed groups, never all 10,000
    show_view(page, "studio_tree")
    shot(page, "tree_studio_random_10000")
    assert page.locator("[data-testid='stException']").count() == 0
    pts, marks = view_points(page, "studio_tree"), view_marks(page, "studio_tree")
    assert 0 < len(pts) < 10_000 and marks, (len(pts), len(marks))
    sent, drawn = view_sent_and_drawn(page, "studio_tree")
    assert drawn == sent, (sent, drawn)    # the new tree's overview, whole on the canvas
