"""Browser: no token in any address. In classroom mode a lecturer signs in (the form on the Lessons
page) and leads a class; a student starts a run (Reproduce, by its link's ``run=1``), queued behind
another browser's long run, and joins the class. Then, on every page of the navigation reached by a
click in the menu, with the class open, the tokens -- the student's owner cookie and the lecturer's
secret and owner cookie -- are in no address the page held (every ``pushState``/``replaceState`` recorded), no link,
no image address, no page text and no cookie a script can read. The owner cookie is ``HttpOnly``
and ``SameSite=Strict``, and a reload keeps the student's run hers while another browser does not
see it."""

from __future__ import annotations

import os
import re

import pytest

from tests.browser.conftest import serve_app, sign_in_lecturer, wait_for_app
from workbench.classroom import SEAT_COOKIE
from workbench.declarations.page_table import PAGES
from workbench.identity import OWNER_COOKIE

pytestmark = pytest.mark.browser

SECRET = "trust-lecturer-secret-8d2e"

#: every address the page holds is recorded, the same-document ones (Streamlit's) included
RECORD_URLS = """
window.__urls = [location.href];
for (const name of ['pushState', 'replaceState']) {
    const orig = history[name].bind(history);
    history[name] = (state, title, url) => { orig(state, title, url); window.__urls.push(location.href); };
}
"""

#: what a user or a script of the page can read: the address, every link and image, the text
SEEN_JS = """() => [
    location.href, ...(window.__urls || []), document.cookie, document.title, document.body.innerText,
    ...Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
    ...Array.from(document.querySelectorAll('img[src], iframe[src]')).map(e => e.src.slice(0, 500)),
    ...Array.from(document.querySelectorAll('input, textarea')).map(e => e.value),
].join('\\n')"""


@pytest.fixture(scope="module")
def trust_url(chromium, tmp_path_factory):
    env = dict(os.environ, TREE_WORKBENCH_DB=str(tmp_path_factory.mktemp("trustdb") / "runs.sqlite"),
               TREE_WORKBENCH_LECTURER_TOKEN=SECRET, TREE_WORKBENCH_CLASSROOM="1", TREE_WORKBENCH_RUN_WORKERS="1")
    with serve_app(env, tmp_path_factory.mktemp("trustlog")) as url:
        yield url


SECRETS: dict[str, str] = {}   # what must show nowhere, filled as the test learns it


def scan(page, where: str) -> None:
    seen = page.evaluate(SEEN_JS)
    for what, tok in SECRETS.items():
        assert tok not in seen, f"{what} shows on {where}"


def _cookie(context, name: str) -> dict | None:
    return next((c for c in context.cookies() if c["name"] == name), None)


def test_no_token_in_any_address_link_or_page(browser, trust_url):
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in range(4)]
    try:
        lect_ctx, stu_ctx, other_ctx, busy_ctx = contexts
        for c in contexts:
            c.add_init_script(RECORD_URLS)
        lect, stu, other, busy = (c.new_page() for c in contexts)
        SECRETS.clear()
        SECRETS["the lecturer's token"] = SECRET

        lect.goto(f"{trust_url}/")
        wait_for_app(lect, timeout=120_000)
        sign_in_lecturer(lect, SECRET)
        lect.locator(".st-key-lesson_lead_first_class button").click()
        lect.wait_for_function("() => document.body.innerText.includes('Your class: ')", timeout=60_000)
        wait_for_app(lect)
        code = re.search(r"Your class: ([A-Z0-9]{6})", lect.locator(".st-key-class_dashboard").inner_text()).group(1)
        lect.locator(".st-key-class_go button").click()   # the lesson starts: the console above its first page
        lect.wait_for_function("() => document.body.innerText.includes('Step 1 of')", timeout=60_000)
        wait_for_app(lect)

        # another browser keeps the one run worker busy (a long TREE-HEDGE run), so that the
        # student's run waits in the queue while her pages are read
        busy.goto(f"{trust_url}/tree_hedge?trials=100000&run=1")
        busy.wait_for_function("() => document.body.innerText.includes('left')", timeout=120_000)
        # a run of the student's, by the Reproduce page's link, before she joins the class (a
        # follower's page is moved to the lecturer's step)
        stu.goto(f"{trust_url}/reproduce?run=1")
        stu.wait_for_function("() => document.body.innerText.includes('queued')", timeout=120_000)
        # the student's browser: its owner cookie, made by the server, out of any script's reach
        owner = _cookie(stu_ctx, OWNER_COOKIE)
        assert owner is not None and owner["httpOnly"] and owner["sameSite"] == "Strict", owner
        assert OWNER_COOKIE not in stu.evaluate("document.cookie")
        SECRETS["the student's owner token"] = owner["value"]
        scan(stu, "Reproduce, the run queued")
        stu.wait_for_function("() => document.body.innerText.includes('Recorded as run')", timeout=300_000)
        run_id = re.search(r"Recorded as run (\d+)", stu.locator("[data-testid='stMain']").inner_text()).group(1)
        scan(stu, "Reproduce, the run done")

        # she joins the class by its link; the seat cookie holds the class's code, no token
        stu.goto(f"{trust_url}/?class={code}")
        wait_for_app(stu, timeout=120_000)
        assert _cookie(stu_ctx, OWNER_COOKIE)["value"] == owner["value"]   # the same browser
        seat = _cookie(stu_ctx, SEAT_COOKIE)
        assert seat is not None and seat["value"] == code, stu_ctx.cookies()
        lect_owner = _cookie(lect_ctx, OWNER_COOKIE)["value"]
        assert lect_owner != owner["value"]
        SECRETS["the lecturer's owner token"] = lect_owner

        scan(stu, "the class's first step")
        scan(lect, "the lecturer's Lessons page")

        # every page, reached as a user does: a click in the menu
        for page, who in ((stu, "the student"), (lect, "the lecturer")):
            for spec in PAGES.values():
                nav = page.locator("[data-testid='stSidebarNav'] a").filter(has_text=spec.title)
                assert nav.count() >= 1, f"no link to {spec.title} in the menu"
                nav.first.click()
                want = "" if spec.url_path == "lessons" else "/" + spec.url_path   # Lessons is the app's root
                page.wait_for_function("(p) => location.pathname.replace(/\\/$/, '') === p", arg=want,
                                       timeout=120_000)
                wait_for_app(page, timeout=120_000)
                scan(page, f"{spec.title} ({who})")

        # a reload keeps the run the student's; another browser does not see it; the lecturer does
        # (the reload rejoins the class, whose step it shows: she then opens Runs from the menu)
        stu.reload()
        wait_for_app(stu, timeout=120_000)
        stu.locator("[data-testid='stSidebarNav'] a").filter(has_text="Runs").first.click()
        stu.wait_for_function("() => location.pathname === '/runs'", timeout=60_000)
        wait_for_app(stu, timeout=120_000)
        assert f"Run #{run_id} " in stu.locator("[data-testid='stMain']").inner_text()
        other.goto(f"{trust_url}/runs")
        wait_for_app(other, timeout=120_000)
        assert "No runs yet" in other.locator("[data-testid='stMain']").inner_text()
        lect.goto(f"{trust_url}/runs")
        wait_for_app(lect, timeout=120_000)
        assert "No runs yet" not in lect.locator("[data-testid='stMain']").inner_text()
        scan(lect, "Runs after a reload (the lecturer)")

        # an old lecturer link: one line, the token gone from the address, nobody signed in
        other.goto(f"{trust_url}/?lecturer={SECRET}")
        wait_for_app(other, timeout=120_000)
        other.wait_for_function("() => !location.href.includes('lecturer=')", timeout=30_000)
        assert "Lecturer links no longer sign in" in other.locator("[data-testid='stMain']").inner_text()
        assert other.locator(".st-key-lecturer_sign_out").count() == 0
    finally:
        for c in contexts:
            c.close()
