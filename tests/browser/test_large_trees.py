"""Browser: large trees you can read (the tree view, workbench.treeview).

A 10^5-vertex tree on Online Marginals: find a vertex by name, zoom, set evidence and read its
marginal, open a collapsed mark. A real wide tree (the element tree of Debian's MIME database,
41,997 vertices, one vertex of degree 851; where that file is absent, a synthetic tree with a
vertex of degree 1,000) uploaded in Tree Studio is drawn readably there, on Cover Inspector and on
Online Marginals. Screenshots in tests/browser/screenshots/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.conftest import (click_view_vertex, record_view_text, shot, tree_view, view_data, view_mark_spots,
                                    view_marks, view_points, view_text_boxes, wait_for_app, wait_for_view)
from workbench.text import subscript

pytestmark = [pytest.mark.browser, pytest.mark.slow]

XML = Path("/usr/share/mime/packages/freedesktop.org.xml")


def _rev(page, key):
    return tree_view(page, key).get_attribute("data-rev")


def _wait_new_view(page, key, old, timeout=60_000):
    page.wait_for_function("([el, old]) => el.dataset.rev !== old && !!el.parentNode.__treeview.m",
                           arg=[tree_view(page, key).element_handle(), old], timeout=timeout)
    wait_for_view(page, key, timeout)


def _search(page, key: str, name: str) -> None:
    box = tree_view(page, key).locator("input.tv-input")
    box.click()
    box.fill("")
    page.keyboard.type(name, delay=30)
    # the server suggests names as they are typed; Enter picks the first (the exact match)
    tree_view(page, key).locator("li.tv-opt").first.wait_for(timeout=60_000)
    page.keyboard.press("Enter")


def test_online_marginals_on_a_tree_of_100000_vertices(page, app_url):
    page.goto(f"{app_url}/online_marginals?tree=random:100000:3")
    wait_for_view(page, "om_tree", timeout=240_000)
    wait_for_app(page, timeout=240_000)
    assert tree_view(page, "om_tree").get_attribute("data-vertices") == "100000"
    drawn = view_points(page, "om_tree")
    assert 0 < len(drawn) <= 4000 and len(view_marks(page, "om_tree")) > 0   # a summary, not every vertex
    shot(page, "large_om_overview")

    # find a vertex by name: the view zooms to it and draws its path to the root
    _search(page, "om_tree", "77777")
    page.wait_for_function("(el) => el.dataset.selected === '77777'", arg=tree_view(page, "om_tree").element_handle(),
                           timeout=60_000)
    main = page.locator("[data-testid='stMain']")
    main.get_by_text(f"P({subscript('x', '77777')})").first.wait_for(timeout=60_000)
    wait_for_view(page, "om_tree")
    assert any(nm == "77777" for _, nm, _, _ in view_points(page, "om_tree")), "the found vertex is drawn"

    # zoom in about it (the wheel): new marks arrive for the narrower view
    canvas = tree_view(page, "om_tree").locator("canvas")
    box = canvas.bounding_box()
    old = _rev(page, "om_tree")
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, -300)
    _wait_new_view(page, "om_tree", old)

    # the region on screen is in the page's link: opened in another tab, the page shows it again
    page.wait_for_function("() => new URLSearchParams(location.search).has('region')", timeout=30_000)
    region = tree_view(page, "om_tree").evaluate("(wrap) => wrap.parentNode.__treeview.data.vp")
    other = page.context.new_page()
    other.goto(page.url)
    wait_for_view(other, "om_tree", timeout=240_000)
    wait_for_app(other, timeout=240_000)
    again = tree_view(other, "om_tree").evaluate("(wrap) => wrap.parentNode.__treeview.data.vp")
    span = region[1] - region[0]
    assert all(abs(a - b) <= 1e-5 * span for a, b in zip(region, again)), (region, again)
    shot(other, "large_om_region_link")
    other.close()

    # evidence on it: its marginal becomes the observed label
    page.get_by_role("button", name="Observe label").click()
    main.get_by_text(f"P({subscript('x', '77777')}) = [1.0000, 0.0000]").first.wait_for(timeout=60_000)
    wait_for_app(page)
    shot(page, "large_om_evidence")

    # open a collapsed mark: back to the whole tree, click the largest group; the view zooms into it
    tree_view(page, "om_tree").get_by_role("button", name="Fit the whole tree (0)").click()
    wait_for_view(page, "om_tree")
    page.wait_for_timeout(500)
    assert view_marks(page, "om_tree"), "the overview of 10^5 vertices has collapsed marks"
    marks = sorted(view_mark_spots(page, "om_tree"), key=lambda m: -m[0])
    assert marks, "a collapsed mark has a spot a click opens"
    count, x, y = marks[0]
    whole = tree_view(page, "om_tree").evaluate("(wrap) => wrap.parentNode.__treeview.data.vp")
    selected = tree_view(page, "om_tree").get_attribute("data-selected")
    old = _rev(page, "om_tree")
    page.mouse.click(x, y)
    _wait_new_view(page, "om_tree", old)
    opened = tree_view(page, "om_tree").evaluate("(wrap) => wrap.parentNode.__treeview.data.vp")
    # the view zoomed into the group (its first level drawn); the click picked no vertex
    assert opened[1] - opened[0] < 0.5 * (whole[1] - whole[0]), (whole, opened)
    assert tree_view(page, "om_tree").get_attribute("data-selected") == selected
    shot(page, "large_om_opened_mark")


def _wide_tree_file(tmp_path: Path) -> Path:
    """The MIME database's XML when installed, else an edge list with a vertex of degree 1,000."""
    if XML.is_file():
        return XML
    lines = []
    for c in range(1000):
        lines.append(f"root,t{c}")
        lines += [f"t{c},t{c}.{j}" for j in range(40)]
    p = tmp_path / "wide.csv"
    p.write_text("\n".join(lines) + "\n")
    return p


def test_a_wide_real_tree_is_readable_on_three_pages(page, app_url, tmp_path):
    src = _wide_tree_file(tmp_path)
    record_view_text(page)
    page.goto(f"{app_url}/tree_studio?source=upload")   # the uploader's tab open (only it is drawn)
    wait_for_app(page)
    page.locator("[data-testid='stFileUploader'] input[type='file']").first.set_input_files(str(src))
    page.get_by_text("41,997 vertices" if src == XML else "41,001 vertices").first.wait_for(timeout=120_000)
    wait_for_view(page, "studio_tree", timeout=120_000)
    wait_for_app(page)
    pts, marks = view_points(page, "studio_tree"), view_marks(page, "studio_tree")
    assert pts and len(marks) >= 10, (len(pts), len(marks))
    # the collapsed marks' counts (centred; the names are drawn beside their vertices) are shown
    # for many of the groups, and no two of them overlap, not even near the radial overview's centre
    counts = set(view_data(page, "studio_tree", "gtext"))
    boxes = [b for b in view_text_boxes(page, "studio_tree") if b[1] == "center" and b[0] in counts]
    assert len(boxes) >= 10, len(boxes)
    clash = [(a[0], b[0]) for i, a in enumerate(boxes) for b in boxes[i + 1:]
             if a[2] < b[4] and b[2] < a[4] and a[3] < b[5] and b[3] < a[5]]
    assert not clash, clash[:10]
    shot(page, "wide_tree_studio")
    # a group of siblings opens into named vertices
    big = max(view_mark_spots(page, "studio_tree"), key=lambda m: m[0])
    old = _rev(page, "studio_tree")
    page.mouse.click(big[1], big[2])
    _wait_new_view(page, "studio_tree", old)
    for _ in range(3):   # zoom in until vertices of that group are drawn and named
        if len(view_points(page, "studio_tree")) > 20:
            break
        big = max(view_mark_spots(page, "studio_tree"), key=lambda m: m[0])
        old = _rev(page, "studio_tree")
        page.mouse.click(big[1], big[2])
        _wait_new_view(page, "studio_tree", old)
    assert len(view_points(page, "studio_tree")) > 20
    shot(page, "wide_tree_studio_zoomed")
    v, name = click_view_vertex(page, "studio_tree")
    page.get_by_text(f"Selected vertex: {name}").first.wait_for(timeout=30_000)

    # the same session moves on (the sidebar's links keep the uploaded tree; a reload would not)
    for title, keys, shot_name in (("Cover Inspector", ("cover_t_view", "cover_d_view"), "wide_tree_cover"),
                                   ("Online Marginals", ("om_tree", "om_d"), "wide_tree_online")):
        page.locator("[data-testid='stSidebarNav']").get_by_role("link", name=title).click()
        page.locator("[data-testid='stMain'] h1").filter(has_text=title).wait_for(timeout=60_000)
        for key in keys:
            wait_for_view(page, key, timeout=180_000)
            assert view_points(page, key) or view_marks(page, key)
        wait_for_app(page, timeout=180_000)
        shot(page, shot_name)
