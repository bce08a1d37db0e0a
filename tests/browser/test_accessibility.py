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
