"""Every page in a light and a dark browser: the app follows the browser's theme, no request
leaves 127.0.0.1, no figure text is under 12 px, no Deploy button (:func:`check_page_in_scheme`;
the light browser's pages are checked by ``test_accessibility.test_axe_on_every_page``, which opens
each in one anyway); presenter mode enlarges figures.
Screenshots: tests/browser/screenshots/theme_<scheme>_<page>.png."""

from __future__ import annotations

import pytest

from tests.browser.conftest import (shot, tree_view, view_data, view_points, view_texts, wait_for_app,
                                    wait_for_view, watch_requests)
from workbench.figures.style import FONT_MIN, PRESENTER_SCALE, THEMES
from workbench.declarations.page_table import PAGES

pytestmark = pytest.mark.browser


FIGURE_FONTS = """() => [...document.querySelectorAll('.js-plotly-plot svg text')]
    .filter(t => t.textContent.trim() && t.getBoundingClientRect().width > 0)
    .map(t => [parseFloat(getComputedStyle(t).fontSize), t.textContent.slice(0, 40)])"""


#: the text of a tree view's own controls (search box, buttons, status, colour scale) on screen:
#: ``[[font px, text], ...]``
VIEW_BAR_FONTS = """(wrap) => [...wrap.querySelectorAll('.tv-bar *')]
    .filter(e => e.childElementCount === 0 && (e.textContent.trim() || e.placeholder) && e.getBoundingClientRect().width > 0)
    .map(e => [parseFloat(getComputedStyle(e).fontSize), (e.textContent.trim() || e.placeholder).slice(0, 40)])"""

#: the colour of a tree view canvas's top left pixel (its background)
VIEW_CORNER = """(wrap) => Array.from(wrap.parentNode.__treeview.canvas.getContext('2d')
    .getImageData(1, 1, 1, 1).data.slice(0, 3))"""


def _views(page) -> list[str]:
    """The keys of the tree views on the page, once each is drawn."""
    keys = [k for k in page.locator("div.tv").evaluate_all("els => els.map(e => e.dataset.key)") if k]
    for key in keys:
        wait_for_view(page, key)
    return keys


def _rgb(hex_colour: str) -> str:
    h = hex_colour.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(h[i:i + 2], 16) for i in (0, 2, 4)))


@pytest.fixture
def themed_page(open_page, request):
    scheme = request.param
    pg = open_page(viewport={"width": 1600, "height": 1000}, color_scheme=scheme)
    return scheme, pg, watch_requests(pg)


def check_page_in_scheme(page, scheme: str, name: str, outside: list[str]) -> None:
    """The open page follows the browser's ``scheme``: no exception, the app's and every figure's
    background, no figure text under 12 px (tree views' names and controls included), no Deploy
    button, no request outside 127.0.0.1; a screenshot ``theme_<scheme>_<name>.png``."""
    if page.locator(".js-plotly-plot:visible").count():   # (a figure in a tab not shown stays hidden)
        page.locator(".js-plotly-plot:visible .main-svg").first.wait_for(timeout=30_000)
        page.wait_for_timeout(500)
    assert page.locator("[data-testid='stException']").count() == 0
    bg = page.evaluate("() => getComputedStyle(document.querySelector('[data-testid=\"stApp\"]')).backgroundColor")
    assert bg == _rgb(THEMES[scheme]["background"]), bg
    for plot in range(page.locator(".js-plotly-plot").count()):  # figures drawn in the theme too
        paper = page.evaluate(f"() => document.querySelectorAll('.js-plotly-plot')[{plot}]._fullLayout.paper_bgcolor")
        assert paper.lower() in (THEMES[scheme]["background"].lower(), _rgb(THEMES[scheme]["background"])), paper
    small = [(s, t) for s, t in page.evaluate(FIGURE_FONTS) if s < FONT_MIN]
    assert not small, small[:10]
    background = THEMES[scheme]["background"]
    for key in _views(page):   # the tree views (canvases) too: their background, names and controls
        assert view_data(page, key, "theme")["background"].lower() == background.lower(), key
        assert "rgb({}, {}, {})".format(*tree_view(page, key).evaluate(VIEW_CORNER)) == _rgb(background), key
        texts = view_texts(page, key)
        assert texts, key                    # names drawn
        small = [(s, t) for t, s in texts if s < FONT_MIN] + \
                [(s, t) for s, t in tree_view(page, key).evaluate(VIEW_BAR_FONTS) if s < FONT_MIN]
        assert not small, (key, small[:10])
    assert page.locator("[data-testid='stAppDeployButton']").count() == 0
    shot(page, f"theme_{scheme}_{name}")
    assert not outside, outside


@pytest.mark.xdist_group("tour_dark")   # one test process takes every page: one tab goes through them
@pytest.mark.parametrize("spec", list(PAGES.values()), ids=[p.title for p in PAGES.values()])
def test_page_in_dark(tour, spec):
    """Every page in a dark browser is dark, reached as a person goes from page to page (one tab,
    the sidebar's menu: :class:`tests.browser.conftest.Tour`; the first page loaded dark from its
    first run). The light browser's pages are checked, with the same :func:`check_page_in_scheme`,
    by ``test_accessibility.test_axe_on_every_page``."""
    page = tour.visit(spec, "dark")
    check_page_in_scheme(page, "dark", spec.url_path, page.outside)


@pytest.mark.parametrize("themed_page", ["dark"], indirect=True)
def test_presenter_mode_enlarges_the_figures(themed_page, app_url):
    _, page, outside = themed_page
    page.goto(f"{app_url}/tree_studio")   # "/" is the Lessons landing page
    wait_for_app(page)
    wait_for_view(page, "studio_tree")
    before = min(s for _, s in view_texts(page, "studio_tree"))   # the names of the tree's vertices
    rev = tree_view(page, "studio_tree").get_attribute("data-rev")
    page.get_by_text("Presenter mode").click()
    wait_for_app(page)
    page.wait_for_function("([el, rev]) => el.dataset.rev !== rev",
                           arg=[tree_view(page, "studio_tree").element_handle(), rev], timeout=30_000)
    wait_for_view(page, "studio_tree")
    page.wait_for_function(f"""(wrap) => {{
        const s = (wrap.parentNode.__treeview.canvas.__texts || []).map(t => t[1]);
        return s.length && Math.min(...s) >= {FONT_MIN * PRESENTER_SCALE - 0.5};
    }}""", arg=tree_view(page, "studio_tree").element_handle(), timeout=30_000)
    after = min(s for _, s in view_texts(page, "studio_tree"))
    assert after > before >= FONT_MIN
    shot(page, "presenter_mode")
    assert not outside, outside


@pytest.mark.parametrize("themed_page", ["light"], indirect=True)
def test_presenter_mode_keeps_the_whole_tree_in_view(themed_page, app_url):
    _, page, _ = themed_page
    page.goto(f"{app_url}/tree_studio")
    wait_for_app(page)
    wait_for_view(page, "studio_tree")
    assert sorted(nm for _, nm, _, _ in view_points(page, "studio_tree")) == ["1", "2", "3", "4", "5"]
    rev = tree_view(page, "studio_tree").get_attribute("data-rev")
    page.get_by_text("Presenter mode").click()
    wait_for_app(page)
    page.wait_for_function("([el, rev]) => el.dataset.rev !== rev",
                           arg=[tree_view(page, "studio_tree").element_handle(), rev], timeout=30_000)
    page.wait_for_timeout(1000)   # the canvas's new width, and the view it asks for
    wait_for_view(page, "studio_tree")
    wait_for_app(page)
    shot(page, "presenter_mode_whole_tree")
    assert sorted(nm for _, nm, _, _ in view_points(page, "studio_tree")) == ["1", "2", "3", "4", "5"]


def test_figure_downloads_from_the_buttons(open_page, app_url, tmp_path):
    """The "SVG" and "PDF" buttons under a figure give a valid SVG and a valid one-page PDF,
    drawn on the server (no request outside 127.0.0.1)."""
    import io

    import pypdf
    from defusedxml import ElementTree

    page = open_page(viewport={"width": 1600, "height": 1000})   # (a context accepts downloads by default)
    outside = watch_requests(page)
    page.goto(f"{app_url}/belief_propagation")
    wait_for_app(page)
    download = tree_view(page, "bp_tree").get_by_role("button", name="Download")   # the view's own
    download.wait_for(timeout=30_000)
    download.click()   # the figure's files, shown once asked for
    exports = page.locator(".st-key-bp_tree__exports")
    exports.get_by_role("button", name="PDF").wait_for(timeout=30_000)
    got = {}
    for fmt in ("SVG", "PDF"):
        with page.expect_download(timeout=60_000) as dl:
            exports.get_by_role("button", name=fmt).click()
        path = tmp_path / dl.value.suggested_filename
        dl.value.save_as(path)
        got[fmt] = path
    assert got["SVG"].name == "bp_sequential.svg" and got["PDF"].name == "bp_sequential.pdf"
    root = ElementTree.fromstring(got["SVG"].read_bytes())
    assert root.tag.endswith("svg") and "Message 0 of 8" in " ".join(root.itertext())
    pdf = pypdf.PdfReader(io.BytesIO(got["PDF"].read_bytes()))
    assert len(pdf.pages) == 1 and "Message 0 of 8" in pdf.pages[0].extract_text()
    assert page.locator("[data-testid='stException']").count() == 0
    assert not outside, outside


#: the text of a button, a tab or a widget's label that its box cuts (an ellipsis, or text hidden
#: past the edge): ``[[text, its width, the room it has], ...]``
CUT_LABELS = """() => [...document.querySelectorAll('[data-testid="stMain"] :is(button, [role="tab"], label), '
                                                  + '[data-testid="stMain"] :is(button, [role="tab"], label) *, '
                                                  + '[data-testid="stSidebarNavLink"] *')]
    .filter(e => e.textContent.trim() && e.clientWidth > 0 && !e.closest('.katex-mathml')
                 && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')
    .map(e => [e.textContent.trim().slice(0, 40), e.scrollWidth, e.clientWidth])"""


@pytest.mark.parametrize("presenter", [False, True], ids=["plain", "presenter"])
def test_no_label_cut_on_a_projector(open_page, app_url, presenter):
    """Every page on a 1024 x 768 projector, the sidebar open (the narrowest room a lecturer has
    beside it), plain and in presenter mode (text at 20 px): no button, tab, widget label or page
    name in the sidebar is cut ("S.." for Start, "Pl.." for Play, "Refresh" a letter a line: a
    column of a fixed share was narrower than its label; "Hidden Tree Markov M..."); they take the
    room they need or wrap."""
    page = open_page(viewport={"width": 1024, "height": 768})
    cut = {}
    for spec in PAGES.values():
        page.goto(f"{app_url}{PAGES.address(spec)}")
        wait_for_app(page)
        if presenter:   # a session's switch: each page opened here is a new session
            page.locator("[data-testid='stSidebar'] label").filter(has_text="Presenter mode").click()
            page.wait_for_function("() => getComputedStyle(document.documentElement).fontSize === '20px'",
                                   timeout=30_000)
            wait_for_app(page)
        page.wait_for_timeout(300)   # the lazy elements (tabs, inputs) drawn
        assert page.locator("[data-testid='stException']").count() == 0, spec.url_path
        found = page.evaluate(CUT_LABELS)
        if found:
            cut[spec.url_path] = found
            shot(page, f"projector_cut_{spec.url_path}{'_presenter' if presenter else ''}")
    assert not cut, cut
