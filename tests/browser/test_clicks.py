"""Browser: the clickable tree (the tree view, workbench.treeview) on Online Marginals. Every click
selects its vertex (ten alternating clicks on two vertices give ten selections), no vertex fades
after a click (each is drawn in the colour the server sent), the selected vertex gets a ring, and
both "pick a vertex by name" boxes (the page's and the view's own search) select as a click does.
Screenshots in tests/browser/screenshots/."""

import pytest

from tests.browser.conftest import (click_view_vertex, record_view_text, show_view, shot, tree_view, view_fills,
                                    view_flagged, view_points, view_texts, wait_for_app, wait_for_selected,
                                    wait_for_view)
from workbench.text import subscript


def marginal(name: str) -> str:
    """The start of the marginal line the page shows for vertex ``name`` ("P(x₄) =")."""
    return f"P({subscript('x', name)}) ="


pytestmark = pytest.mark.browser
KEY = "om_tree"

# the lecture tree (the default tree): names 1..5 at indices 0..4
SHOWN = """(want) => {   // want: marginal("4")
    const main = document.querySelector('[data-testid="stMain"]');
    return main && main.textContent.includes(want);
}"""


def _open_online(page, app_url):
    record_view_text(page)
    page.goto(f"{app_url}/online_marginals")
    wait_for_app(page)
    page.wait_for_function(SHOWN, arg=marginal("1"), timeout=30_000)   # the root is selected at first
    show_view(page, KEY)
    wait_for_selected(page, KEY, "1")


def _drawn_as_sent(page) -> list:
    """The colour of every drawn vertex, after checking that the canvas shows it as the server sent
    it (full colour: nothing faded, nothing drawn over it)."""
    fills = view_fills(page, KEY)
    assert len(fills) == 5, fills
    for name, sent, px in fills:
        assert sent is not None and max(abs(a - b) for a, b in zip(sent, px)) <= 3, (name, sent, px)
    return [sent for _, sent, _ in fills]


def _names_drawn(page) -> set:
    return {text for text, _ in view_texts(page, KEY)}


def test_ten_alternating_clicks_give_ten_selections(page, app_url):
    _open_online(page, app_url)
    before = _drawn_as_sent(page)
    shown = []
    for i in range(10):
        name = "4" if i % 2 == 0 else "5"
        click_view_vertex(page, KEY, name)
        page.wait_for_function(SHOWN, arg=marginal(name), timeout=30_000)
        wait_for_selected(page, KEY, name)
        wait_for_app(page)
        shown.append(name)
    assert shown == ["4", "5"] * 5
    assert _drawn_as_sent(page) == before          # colours unchanged by the clicks (no evidence set)
    assert _names_drawn(page) >= {"1", "2", "3", "4", "5"}
    shot(page, "clicks_alternating")


def test_two_quick_clicks_are_two_clicks(page, app_url):
    """Two vertices clicked at once, the second before the first's answer: the page ends on the
    second (no click lost, no double click)."""
    _open_online(page, app_url)
    for first, second in (("4", "5"), ("3", "4"), ("5", "3")):
        click_view_vertex(page, KEY, first)
        click_view_vertex(page, KEY, second)   # no wait
        page.wait_for_function(SHOWN, arg=marginal(second), timeout=30_000)
        wait_for_selected(page, KEY, second)
        wait_for_app(page)
        wait_for_selected(page, KEY, second)   # and it stays so once every rerun is done
    shot(page, "clicks_quick")


def test_click_keeps_colours_and_names(page, app_url):
    _open_online(page, app_url)
    before = _drawn_as_sent(page)
    rev = tree_view(page, KEY).get_attribute("data-rev")
    page.get_by_role("button", name="Observe label").click()   # evidence at the root: colours change
    wait_for_app(page)
    page.wait_for_function("([el, rev]) => el.dataset.rev !== rev", arg=[tree_view(page, KEY).element_handle(), rev],
                           timeout=30_000)
    wait_for_view(page, KEY)
    coloured = _drawn_as_sent(page)
    assert coloured != before
    assert view_flagged(page, KEY) == ["1"]             # the root ringed as evidence
    click_view_vertex(page, KEY, "3")
    page.wait_for_function(SHOWN, arg=marginal("3"), timeout=30_000)
    wait_for_selected(page, KEY, "3")
    wait_for_app(page)
    assert _drawn_as_sent(page) == coloured             # a query changes no colour, fades nothing
    assert _names_drawn(page) >= {"1", "2", "3", "4", "5"}   # every name still drawn
    assert view_flagged(page, KEY) == ["1"]
    shot(page, "clicks_no_fading")


def test_pick_a_vertex_by_name(page, app_url):
    _open_online(page, app_url)
    box = page.locator("[data-testid='stSelectbox']").filter(has_text="Pick a vertex by name").locator("input")
    box.click()
    page.keyboard.type("5")
    page.keyboard.press("Enter")
    page.wait_for_function(SHOWN, arg=marginal("5"), timeout=30_000)
    wait_for_selected(page, KEY, "5")
    wait_for_app(page)
    # the keyboard route sets evidence too: focus the button and press Enter
    page.get_by_role("button", name="Observe label").focus()
    page.keyboard.press("Enter")
    wait_for_app(page)
    page.wait_for_function("() => document.querySelector('[data-testid=\"stMain\"]').textContent"
                           ".includes('· evidence [1.0, 0.0]')", timeout=30_000)
    # the view's own search box: type, the server suggests, Enter picks the first suggestion
    search = tree_view(page, KEY).locator("input.tv-input")
    search.click()
    page.keyboard.type("2", delay=50)
    tree_view(page, KEY).locator("li.tv-opt").first.wait_for(timeout=30_000)
    assert tree_view(page, KEY).locator("li.tv-opt").first.inner_text() == "2"
    page.keyboard.press("Enter")
    page.wait_for_function(SHOWN, arg=marginal("2"), timeout=30_000)
    wait_for_selected(page, KEY, "2")
    wait_for_app(page)
    assert view_flagged(page, KEY) == ["5"]             # the evidence stays where it was set
    # the sidebar's link follows the address, though only the view's fragment reran
    page.wait_for_function("""() => Array.from(document.querySelectorAll('[data-testid="stSidebar"] code'))
        .some(c => c.textContent.startsWith('/online_marginals?') && c.textContent.includes('vertex=2'))""",
                           timeout=10_000)
    shot(page, "clicks_pick_by_name")


@pytest.mark.parametrize("tree", ["lecture_5_vertices", "random:1000:0"])
def test_a_page_opens_on_the_overview(page, app_url, tree):
    """What a fresh page shows first is what "Fit" shows: the whole tree across the canvas."""
    page.goto(f"{app_url}/online_marginals?tree={tree}")
    wait_for_app(page, timeout=120_000)
    show_view(page, KEY)
    wait_for_app(page)
    first = {name: (x, y) for _, name, x, y in view_points(page, KEY)}
    seq = tree_view(page, KEY).evaluate("(wrap) => wrap.parentNode.__treeview.data.seq")
    tree_view(page, KEY).get_by_role("button", name="Fit the whole tree (0)").click()
    page.wait_for_function("([wrap, seq]) => wrap.parentNode.__treeview.data.seq !== seq",
                           arg=[tree_view(page, KEY).element_handle(), seq], timeout=30_000)
    wait_for_view(page, KEY)
    fitted = {name: (x, y) for _, name, x, y in view_points(page, KEY)}
    shot(page, f"clicks_fit_{tree.split(':')[0]}")
    assert set(first) == set(fitted), (len(first), len(fitted))
    assert all(abs(first[v][0] - fitted[v][0]) <= 2 and abs(first[v][1] - fitted[v][1]) <= 2 for v in first)
