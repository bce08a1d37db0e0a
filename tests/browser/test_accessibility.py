"""axe-core (the accessibility engine behind Lighthouse) on every page, light and dark, and in
presenter mode: no serious or critical violation caused by the project's own choices (theme
colours, captions, the markup it writes, the tree view component).

axe-core is the npm package pinned in ``tests/browser/axe/package.json``; when its folder has no
``node_modules`` the fixture installs it once with ``npm ci`` (the lock file's exact version). The
violations that come from Streamlit's own markup, which the project cannot change, are allowed by
rule id and node below, each with its reason; ``docs/accessibility.md`` lists them. Every run
writes what it found to ``tests/browser/screenshots/axe_<mode>_<page>.json``.

After its main action (a run, a step, an answer, a report) a page is checked in every mode on the
page already open: the browser's colour scheme and the presenter switch change in place, each with
the rerun that restyles the page (:func:`switch_mode`), so the action is not done three times.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import SHOTS, shot, wait_for_app, wait_for_view
from tests.browser.test_presentation import check_page_in_scheme
from workbench.declarations.lessons import load_lessons
from workbench.declarations.page_table import PAGES

pytestmark = pytest.mark.browser

#: axe's run: the violations, each with its rule, impact and the nodes it was found on
RUN_AXE = """async () => {
    const r = await axe.run(document, {resultTypes: ['violations']});
    return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => ({target: n.target.map(t => Array.isArray(t) ? t.join(' >> ') : t).join(' | '),
                                  html: n.html.slice(0, 300), summary: (n.failureSummary || '').slice(0, 300)}))}));
}"""

#: the modes every page is checked in: (name, browser colour scheme, presenter mode)
MODES = {"light": ("light", False), "dark": ("dark", False), "presenter": ("dark", True)}


#: Violations inside Streamlit's own markup, which no page of the project writes: rule id -> the
#: CSS selector (axe's ``target``) each node of that rule must match. docs/accessibility.md lists
#: each with its upstream issue.
STREAMLIT_OWN = {
    # the sidebar's page menu (st.navigation with sections): Streamlit puts each section's header
    # and its items in <div>s directly inside the <ul>, so the <ul> has non-<li> children...
    "list": "[data-testid='stSidebarNavItems']",
    # ... and its <li>s are not direct children of a <ul>
    "listitem": "[data-testid='stSidebarNavItems']",
    # st.file_uploader's drop zone: a <section role="presentation"> with an aria-label (minor)
    "presentation-role-conflict": "[data-testid='stFileUploaderDropzone']",
    # st.json's viewer (Runs: a run's config) colours numbers with its own palette, not the theme's:
    # #859900 on white (3.2:1) in the light theme. Any other node with low contrast still fails.
    "color-contrast": "[data-testid='stJson']",
}

#: which of the nodes axe named match a selector (axe's targets are CSS selectors, shadow roots
#: joined by " >> ")
MATCHES = """([targets, sel]) => targets.map(t => {
    let root = document, el = null;
    for (const part of t.split(' >> ')) { el = root.querySelector(part); if (!el) return false; root = el.shadowRoot || el; }
    return !!(el.matches(sel) || el.closest(sel));
})"""


def own_violations(page, found: list[dict]) -> list[tuple]:
    """The violations the project causes: ``(rule, impact, node html, why)`` for each node that is
    not in :data:`STREAMLIT_OWN`."""
    out = []
    for v in found:
        nodes = v["nodes"]
        sel = STREAMLIT_OWN.get(v["id"])
        keep = [True] * len(nodes) if sel is None else \
            [not ok for ok in page.evaluate(MATCHES, [[n["target"] for n in nodes], sel])]
        out += [(v["id"], v["impact"], n["html"][:160], n["summary"][-200:]) for n, k in zip(nodes, keep) if k]
    return out


def axe_violations(page, axe_source: str) -> list[dict]:
    if not page.evaluate("() => typeof axe !== 'undefined'"):   # once per document (reruns keep it)
        page.add_script_tag(content=axe_source)
    return page.evaluate(RUN_AXE)


#: the window the pages are checked in
WINDOW = {"width": 1600, "height": 1000}


def _wait_for_figures(page) -> None:
    if page.locator(".js-plotly-plot:visible").count():
        page.locator(".js-plotly-plot:visible .main-svg").first.wait_for(timeout=30_000)
    for key in [k for k in page.locator("div.tv").evaluate_all("els => els.map(e => e.dataset.key)") if k]:
        wait_for_view(page, key)
    page.wait_for_timeout(500)


@pytest.mark.xdist_group("tour_light")   # one test process takes every page: one tab goes through them
@pytest.mark.parametrize("spec", list(PAGES.values()), ids=[p.url_path for p in PAGES.values()])
def test_axe_on_every_page(tour, axe_source, spec):
    """Every page in a light browser, reached as a person goes from page to page (one tab, the
    sidebar's menu: :class:`tests.browser.conftest.Tour`): its theme, fonts and requests
    (:func:`check_page_in_scheme`), then in light, presenter and dark mode (switched in place, as a
    person does: :func:`switch_mode`): no violation of the project's own, the page's language, one h1."""
    page = tour.visit(spec, "light")
    switch_mode(page, "light")   # the page before left the tab in dark presenter mode
    _wait_for_figures(page)
    check_page_in_scheme(page, "light", spec.url_path, page.outside)
    # structure: the page's language, exactly one h1 (the page's title), headings in order (axe)
    assert page.evaluate("() => document.documentElement.lang").startswith("en")
    own = axe_in_every_mode(page, axe_source, spec.url_path, prefix="axe")
    assert not any(own.values()), {m: v[:10] for m, v in own.items() if v}


#: the link setting that is a page's main action where it has no run (a message sent, a round of
#: the cover, evidence set, a vertex picked)
MAIN_ACTION = {"belief_propagation": "messages", "cover_inspector": "t", "online_marginals": "evidence",
               "tree_studio": "vertex"}


def _acted_steps() -> list[tuple]:
    """For each page a lesson visits, the lesson step that shows it after its main action: its
    first step that starts a run (``run=1``), else its first step whose :data:`MAIN_ACTION` is
    past its start, else the one with the most settings. ``(page, lesson id, step, url, runs)``."""
    best: dict[str, tuple] = {}
    for lesson in load_lessons()[0]:
        for k, step in enumerate(lesson.steps, 1):
            link = PAGES.parse_link(step.url)
            runs = "run" in link.raw
            page = link.page.url_path
            rank = (runs, link.raw.get(MAIN_ACTION.get(page), "0") not in ("0", ""), len(link.raw))
            if page not in best or rank > best[page][0]:
                best[page] = (rank, (page, lesson.id, k, step.url, runs))
    return [best[p][1] for p in sorted(best)]


ACTED = _acted_steps()


#: the app's background in each colour scheme (.streamlit/config.toml)
BACKGROUND = {"light": "rgb(255, 255, 255)", "dark": "rgb(23, 22, 20)"}

#: the page is drawn in a mode: the app's background, the presenter's root size (workbench.state),
#: and the server's dark style sheet (workbench.figures.style.page_css), which shows that the
#: server knows the theme (the figures are drawn in the server's style too)
IN_MODE_JS = """([bg, dark, presenter]) => {
    const app = document.querySelector('[data-testid="stApp"]');
    const big = getComputedStyle(document.documentElement).fontSize === '20px';
    const served = [...document.querySelectorAll('style')].some(s => s.textContent.includes("stBaseButton-primary']"));
    return !!app && getComputedStyle(app).backgroundColor === bg && big === presenter && served === dark;
}"""


def switch_mode(page, mode: str) -> None:
    """Put the open page in ``mode`` (:data:`MODES`) in place: the browser's colour scheme, and
    the sidebar's "Presenter mode" switch. Streamlit's frontend recolours itself when the scheme
    changes, but the server learns the theme (``st.context.theme``: figures, the dark style sheet)
    only with the next rerun, so every switch goes with a click of the presenter switch (light ->
    presenter -> dark, the order :func:`axe_in_every_mode` uses)."""
    scheme, presenter = MODES[mode]
    page.emulate_media(color_scheme=scheme)
    if page.evaluate(IN_MODE_JS, [BACKGROUND[scheme], scheme == "dark", presenter]):
        return   # already in that mode (light, as a page opens): nothing to rerun or redraw
    big = page.evaluate("() => getComputedStyle(document.documentElement).fontSize === '20px'")
    if big != presenter:
        page.get_by_text("Presenter mode", exact=True).click()
    page.wait_for_function(IN_MODE_JS, arg=[BACKGROUND[scheme], scheme == "dark", presenter], timeout=60_000,
                           polling=250)
    wait_for_app(page)
    _wait_for_figures(page)


def axe_in_every_mode(page, axe_source: str, name: str, prefix: str = "axe_after") -> dict[str, list]:
    """axe on the open page in light, presenter and dark mode, switched in place: each mode's
    violations go to ``screenshots/<prefix>_<mode>_<name>.json`` with one screenshot; returns the
    violations of the project's own by mode."""
    own = {}
    for mode in ("light", "presenter", "dark"):
        switch_mode(page, mode)
        assert page.locator("[data-testid='stException']").count() == 0, mode
        found = axe_violations(page, axe_source)
        SHOTS.mkdir(exist_ok=True)
        (SHOTS / f"{prefix}_{mode}_{name}.json").write_text(json.dumps(found, indent=1))
        shot(page, f"{prefix}_{mode}_{name}")
        own[mode] = own_violations(page, found)
        assert page.locator("h1").count() == 1, (mode, page.locator("h1").all_inner_texts())
    return own


@pytest.mark.parametrize("case", ACTED, ids=[c[0] for c in ACTED])
def test_axe_after_the_main_action_in_lesson_mode(open_page, app_url, axe_source, case):
    """Each page a lesson visits, opened from the lesson step that runs its main action (a run, a
    step of the schedule, a round of the cover), with the lesson panel open in the sidebar, in
    light, presenter and dark mode (switched in place): no violation of the project's own, one h1,
    headings in order (the panel's step title comes before the page's h1)."""
    page_path, lesson, k, url, runs = case
    page = open_page(viewport=WINDOW, color_scheme="light")
    page.goto(f"{app_url}{url}{'&' if '?' in url else '?'}lesson={lesson}&step={k}")
    # a run keeps the script running (Streamlit's "Running" sign) until it is done or failed
    wait_for_app(page, timeout=300_000 if runs else 120_000)
    page.locator(".st-key-lesson_panel").wait_for(timeout=30_000)
    if runs:   # the run's end, or the result of the same settings' earlier run (the lessons' runs ahead)
        page.wait_for_function(
            """() => /: (done in|failed|cancelled|the result of)/.test(
                document.querySelector('[data-testid="stMain"]').innerText)""",
            timeout=300_000, polling=500)
        wait_for_app(page)
    _wait_for_figures(page)
    own = axe_in_every_mode(page, axe_source, page_path)
    assert not any(own.values()), {m: v[:10] for m, v in own.items() if v}


def _answer_an_exercise(page, app_url: str) -> None:
    """Practice: a wrong answer to an exercise (the hint and the worked solution open)."""
    page.goto(f"{app_url}/practice?family=cover_round&seed=17")
    wait_for_app(page)
    page.get_by_label("Your answer").fill("1; 1")
    page.get_by_role("button", name="Check").click()
    page.wait_for_selector("text=Not quite", timeout=60_000)


def _launch_a_run(page, app_url: str) -> None:
    """Runs: launch the config the page offers (TREE-HEDGE, ``hedge``, on 31 vertices, 2,000 trials:
    seconds); the page then shows its record, with its curve."""
    page.goto(f"{app_url}/runs")
    wait_for_app(page)
    page.get_by_text("Launch a config or a sweep").click()
    recorded = page.get_by_text("run recorded as run #")
    # the click reached the server: the run's status box (running, queued behind another session's
    # run, or preparing) or already its record
    started = page.get_by_text("Running hedge").or_(recorded)
    for attempt in range(3):
        # one click in about fifty did not start a run in a loop of this action (not reproduced in
        # 30 more; the click's message then left the browser every time): a person who sees no
        # status box after a while clicks again, and so does this test
        wait_for_app(page)
        page.get_by_role("button", name="Run config").click()
        try:
            started.first.wait_for(timeout=20_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
    recorded.wait_for(timeout=240_000)
    page.locator("h2", has_text="Run #").wait_for(timeout=30_000)


def _reproduce_a_paper(page, app_url: str) -> None:
    """Reproduce: the optimal cover's claim, quick protocol (seconds); the report with its figure."""
    page.goto(f"{app_url}/reproduce?paper=cover")
    wait_for_app(page)
    page.get_by_role("button", name="Reproduce").click()
    page.wait_for_selector("text=Reproducing \"Online Sum-Product Computation over Trees\"", timeout=240_000)


#: the pages no lesson visits, and their main action
ACTIONS = {"practice": _answer_an_exercise, "runs": _launch_a_run, "reproduce": _reproduce_a_paper}


@pytest.mark.parametrize("name", list(ACTIONS))
def test_axe_after_the_main_action(open_page, app_url, axe_source, name):
    """Practice (an answer checked), Runs (a run launched, its record shown) and Reproduce (a
    report), after their main action, in light, presenter and dark mode (switched in place): no
    violation of the project's own, one h1."""
    page = open_page(viewport=WINDOW, color_scheme="light")
    ACTIONS[name](page, app_url)
    wait_for_app(page, timeout=120_000)
    _wait_for_figures(page)
    own = axe_in_every_mode(page, axe_source, name)
    assert not any(own.values()), {m: v[:10] for m, v in own.items() if v}


#: Tree Studio draws only its open tabs: the others, each opened as a person does (the loading
#: tabs, then the tabs under the drawing), the second with something in it
STUDIO_TABS = [("Upload", None), ("Paste", None), ("Generate", None), ("Edge table", None), ("Download", None),
               ("Copy as Newick / TikZ", "Newick")]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_on_tree_studios_closed_tabs(open_page, app_url, axe_source, scheme):
    """The tabs a fresh Tree Studio does not draw (the uploader, the paste box, the generator, the
    edge table's data editor, the download, the text to copy), each opened: no violation of the
    project's own."""
    page = open_page(viewport=WINDOW, color_scheme=scheme)
    page.goto(f"{app_url}/tree_studio")
    wait_for_app(page)
    found = {}
    for tab, then in STUDIO_TABS:
        page.get_by_role("tab", name=tab, exact=True).click()
        wait_for_app(page)
        if then:
            page.locator("[data-testid='stButtonGroup']").get_by_text(then, exact=True).click()
            wait_for_app(page)
        page.wait_for_timeout(300)
        found[tab] = own_violations(page, axe_violations(page, axe_source))
    shot(page, f"axe_tree_studio_tabs_{scheme}")
    assert not any(found.values()), {t: v[:5] for t, v in found.items() if v}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_on_online_marginals_tools(open_page, app_url, axe_source, scheme):
    """Online Marginals' tools (random stream, check against BP, scenarios), drawn when their
    expander is opened: no violation of the project's own."""
    page = open_page(viewport=WINDOW, color_scheme=scheme)
    page.goto(f"{app_url}/online_marginals")
    wait_for_app(page)
    assert page.get_by_role("button", name="Play random stream").count() == 0
    page.get_by_text("Random stream, check against BP, scenarios").click()
    wait_for_app(page)
    page.get_by_role("button", name="Play random stream").wait_for(timeout=30_000)
    page.wait_for_timeout(300)
    shot(page, f"axe_online_marginals_tools_{scheme}")
    found = own_violations(page, axe_violations(page, axe_source))
    assert not found, found[:5]
