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


def _type_in_cell(page, row: int, col: int, text: str, attempts: int = 3) -> None:
    """Type ``text`` into the data editor's cell (``row`` from 0, ``col`` from 1) and commit it with
    Enter; typed again (at most ``attempts`` times) until the grid's own table shows it."""
    grid = page.locator("[data-testid='stDataFrame'] canvas").first
    cell = page.get_by_test_id(f"glide-cell-{col}-{row}")
    for _ in range(attempts):
        box = grid.bounding_box()
        # the first cell (past the 36 px header and the rows' 33 px check boxes), then the arrow keys
        page.mouse.click(box["x"] + 60, box["y"] + 36 + 17)
        page.wait_for_timeout(300)
        for key, times in (("ArrowDown", row), ("ArrowRight", col - 1)):
            for _ in range(times):
                page.keyboard.press(key)
        page.keyboard.type(text)
        page.keyboard.press("Enter")
        try:
            page.wait_for_function("([el, t]) => el.textContent === t", arg=[cell.element_handle(), text],
                                   timeout=5_000)
            return
        except Exception:   # the grid took the click as a scroll or before it was ready: again
            page.keyboard.press("Escape")
    raise AssertionError(f"the cell ({row}, {col}) never showed {text!r}: {cell.text_content()!r}")


def test_edits_not_yet_applied_survive_another_tab(page, app_url):
    """A student edits the edge table, looks at another tab, comes back: the edit is still there,
    and applying it changes the tree (the tabs under the drawing are drawn only when open)."""
    page.goto(f"{app_url}/tree_studio")
    wait_for_app(page)
    assert page.locator("[data-testid='stDataFrame']").count() == 0     # Summary opens first
    page.get_by_role("tab", name="Edge table").click()
    page.wait_for_selector("[data-testid='stDataFrame'] canvas", timeout=30_000)
    wait_for_app(page)
    _type_in_cell(page, 3, 1, "3")          # row 3 is the edge (2, 5): move 5 under 3
    wait_for_app(page)
    page.get_by_role("tab", name="Download").click()
    page.wait_for_selector("text=Download tree", timeout=30_000)
    wait_for_app(page)
    page.get_by_role("tab", name="Edge table").click()
    page.wait_for_selector("text=Your edits not yet applied are kept", timeout=30_000)
    wait_for_app(page)
    assert page.get_by_test_id("glide-cell-1-3").text_content() == "3"
    shot(page, "tree_studio_edits_kept")
    page.get_by_role("button", name="Apply table").click()
    wait_for_app(page)
    page.get_by_role("tab", name="Summary").click()
    # 4-2-1-3-5: the diameter grew from 3 to 4
    page.wait_for_selector("dl.wb-stats dt:text-is('diameter') + dd:text-is('4')", timeout=30_000)
    assert page.locator("[data-testid='stException']").count() == 0


def test_every_loading_tab_whole_on_a_projector(open_page, app_url):
    """On a 1024 x 768 projector the loading tabs' column beside the drawing is about 130 px wide:
    their row wraps, so each of the four labels is shown whole inside the column (not scrolled away
    behind an arrow), and the last one opens with a click; the vertex editor's buttons (300 px) too."""
    page = open_page(viewport={"width": 1024, "height": 768})
    page.goto(f"{app_url}/tree_studio")
    wait_for_app(page)
    tabs = page.locator(".st-key-studio_source [role='tablist']")
    box = tabs.bounding_box()
    for name in ("Samples", "Upload", "Paste", "Generate"):
        tab = tabs.get_by_role("tab", name=name)
        b, text = tab.bounding_box(), tab.locator("p").evaluate("e => [e.scrollWidth, e.clientWidth]")
        assert box["x"] - 0.5 <= b["x"] and b["x"] + b["width"] <= box["x"] + box["width"] + 0.5, (name, b, box)
        assert text[0] <= text[1], (name, text)   # the label is not cut inside its tab
    # the vertex editor's buttons beside the drawing: every label whole too ("Delete leaf", not "D...")
    for name in ("Add child", "Rename", "Delete leaf", "Make root", "Undo last change"):
        label = page.get_by_role("button", name=name).locator("p")
        assert label.evaluate("e => e.scrollWidth <= e.clientWidth"), (name, label.bounding_box())
    tabs.get_by_role("tab", name="Generate").click()
    page.get_by_role("button", name="Generate").wait_for(timeout=30_000)
    shot(page, "tree_studio_projector_tabs")
