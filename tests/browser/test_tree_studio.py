"""Tree Studio in Chromium: click a vertex and edit it, upload a bad file, draw a 10,000-vertex tree."""

import pytest

from tests.browser.conftest import click_vertex, shot, wait_for_app

pytestmark = pytest.mark.browser


def sidebar_text(page) -> str:
    return page.locator("[data-testid='stSidebar']").inner_text()


def test_click_a_vertex_then_add_a_child_and_undo(page, app_url):
    page.goto(f"{app_url}/tree_studio")   # "/" is the Lessons landing page
    wait_for_app(page)
    page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
    assert "5 vertices" in sidebar_text(page)
    click_vertex(page, 3)  # vertex index 3 is named "4" in the lecture tree
    page.wait_for_selector("text=Selected vertex: 4", timeout=60_000)
    wait_for_app(page)
    shot(page, "tree_studio_selected")
    page.get_by_role("button", name="Add child").click()
    page.wait_for_function("() => document.querySelector('[data-testid=\"stSidebar\"]').innerText.includes('6 vertices')",
                           timeout=30_000)
    wait_for_app(page)
    # the redrawn figure has six vertex markers (the old figure may linger a moment while it is replaced)
    page.wait_for_function("() => document.querySelectorAll("
                           "'.js-plotly-plot .scatterlayer .trace:nth-child(2) .point').length === 6", timeout=30_000)
    shot(page, "tree_studio_child_added")
    page.get_by_role("button", name="Undo last change").click()
    page.wait_for_function("() => document.querySelector('[data-testid=\"stSidebar\"]').innerText.includes('5 vertices')",
                           timeout=30_000)
    assert page.locator("[data-testid='stException']").count() == 0


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
    page.locator(".js-plotly-plot canvas").first.wait_for(timeout=120_000)  # WebGL
    page.wait_for_timeout(1500)
    assert page.locator("[data-testid='stException']").count() == 0
    shot(page, "tree_studio_random_10000")
