"""axe-core (the accessibility engine behind Lighthouse) on every page, light and dark, and in
presenter mode: no serious or critical violation caused by the project's own choices (theme
colours, captions, the markup it writes, the tree view component).

axe-core is the npm package pinned in ``tests/browser/axe/package.json``; when its folder has no
``node_modules`` the fixture installs it once with ``npm ci`` (the lock file's exact version). The
violations that come from Streamlit's own markup, which the project cannot change, are allowed by
rule id and node below, each with its reason; ``docs/accessibility.md`` lists them. Every run
writes what it found to ``tests/browser/screenshots/axe_<mode>_<page>.json``.
"""

from __future__ import annotations

import json

import pytest

from engine.lessons import load_lessons
from engine.pagespecs import PAGES
from tests.browser.conftest import SHOTS, shot, wait_for_app, wait_for_view

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
    page.add_script_tag(content=axe_source)
    return page.evaluate(RUN_AXE)


def _open(page, app_url: str, spec, presenter: bool) -> None:
    page.goto(f"{app_url}{PAGES.address(spec)}")
    wait_for_app(page)
    if presenter:
        page.get_by_text("Presenter mode").click()
        wait_for_app(page)
        page.wait_for_timeout(500)
    _wait_for_figures(page)


def _wait_for_figures(page) -> None:
    if page.locator(".js-plotly-plot:visible").count():
        page.locator(".js-plotly-plot:visible .main-svg").first.wait_for(timeout=30_000)
    for key in [k for k in page.locator("div.tv").evaluate_all("els => els.map(e => e.dataset.key)") if k]:
        wait_for_view(page, key)
    page.wait_for_timeout(500)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("spec", list(PAGES.values()), ids=[p.url_path for p in PAGES.values()])
def test_axe_on_every_page(browser, app_url, axe_source, spec, mode):
    scheme, presenter = MODES[mode]
    ctx = browser.new_context(viewport={"width": 1600, "height": 1000}, color_scheme=scheme)
    page = ctx.new_page()
    try:
        _open(page, app_url, spec, presenter)
        assert page.locator("[data-testid='stException']").count() == 0
        found = axe_violations(page, axe_source)
        SHOTS.mkdir(exist_ok=True)
        (SHOTS / f"axe_{mode}_{spec.url_path}.json").write_text(json.dumps(found, indent=1))
        shot(page, f"axe_{mode}_{spec.url_path}")
        own = own_violations(page, found)
        assert not own, own[:10]
        # structure: the page's language, exactly one h1 (the page's title), headings in order (axe)
        assert page.evaluate("() => document.documentElement.lang").startswith("en")
        assert page.locator("h1").count() == 1, page.locator("h1").all_inner_texts()
    finally:
        ctx.close()


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


@pytest.mark.parametrize("case", ACTED, ids=[c[0] for c in ACTED])
def test_axe_after_the_main_action_in_lesson_mode(browser, app_url, axe_source, case):
    """Each page a lesson visits, opened from the lesson step that runs its main action (a run, a
    step of the schedule, a round of the cover), with the lesson panel open in the sidebar (light
    mode only: the colours were checked on every page and mode above): no violation of the
    project's own, one h1, headings in order (the panel's step title comes before the page's h1)."""
    page_path, lesson, k, url, runs = case
    ctx = browser.new_context(viewport={"width": 1600, "height": 1000}, color_scheme="light")
    page = ctx.new_page()
    try:
        page.goto(f"{app_url}{url}{'&' if '?' in url else '?'}lesson={lesson}&step={k}")
        wait_for_app(page, timeout=120_000)
        page.locator(".st-key-lesson_panel").wait_for(timeout=30_000)
        if runs:
            page.wait_for_function(
                """() => /: (done in|failed|cancelled)/.test(document.querySelector('[data-testid="stMain"]').innerText)""",
                timeout=300_000, polling=500)
            wait_for_app(page)
        _wait_for_figures(page)
        assert page.locator("[data-testid='stException']").count() == 0
        found = axe_violations(page, axe_source)
        SHOTS.mkdir(exist_ok=True)
        (SHOTS / f"axe_lesson_{page_path}.json").write_text(json.dumps(found, indent=1))
        shot(page, f"axe_lesson_{page_path}")
        own = own_violations(page, found)
        assert not own, own[:10]
        assert page.locator("h1").count() == 1, page.locator("h1").all_inner_texts()
    finally:
        ctx.close()
