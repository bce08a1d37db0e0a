"""A running app and Debian's Chromium driven by Playwright (no browser download).

``app_url`` starts ``streamlit run app.py`` on a free port for the session; ``page`` is a fresh
Playwright page. Without Chromium the browser tests skip, except under CI, where they fail.
Screenshots go to ``tests/browser/screenshots/``.
"""

import collections
import contextlib
import fcntl
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT

SHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def chromium_path():
    """Debian's Chromium, the browser a person opens (the benchmarks time clicks in it)."""
    for name in ("chromium", "chromium-browser"):
        p = shutil.which(name)
        if p:
            return p
    return None


def driven_browser_path():
    """What the tests drive: Debian's ``chromium-headless-shell`` where it is installed, else
    :func:`chromium_path`. The shell is built from the same source package (the same Blink and V8)
    without the browser's windowing, the build Playwright itself drives when headless. Chromium was
    half of the suite's CPU (renderers 38 %, its other processes 14 %: 28 November, three test
    processes), and a page opened in a new tab cost the shell 1.8 s of CPU against 2.7 s for
    ``chromium --headless`` (the same five pages, each twice, on a quiet machine)."""
    return shutil.which("chromium-headless-shell") or chromium_path()


@pytest.fixture(scope="session")
def chromium():
    path = driven_browser_path()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing: install Debian's chromium-headless-shell "
                        "(apt-get install chromium-headless-shell)")
        pytest.skip("Chromium is not installed (apt-get install chromium-headless-shell)")
    return path


#: the log of each app this process started, by URL (its end goes with a failed test's report)
SERVER_LOGS: dict[str, Path] = {}


@contextlib.contextmanager
def serve_app(env: dict, log_dir: Path):
    """Run the app (through its warm-up launcher) on a free port with ``env``; yield its URL."""
    from benchmarks.app_client import serve

    try:
        with serve(ROOT, env=env, log_path=log_dir / "streamlit.log", start_timeout=240) as (url, _):
            SERVER_LOGS[url] = log_dir / "streamlit.log"
            yield url
    except RuntimeError as exc:
        pytest.fail(str(exc))


@contextlib.contextmanager
def serve_class_app(tmp_path_factory, name: str, secret: str, **env: str):
    """Run the app for a class: its own run history, the lecturer token ``secret`` and ``env`` (folders
    named after ``name``); yield its URL."""
    full = dict(os.environ, TREE_WORKBENCH_DB=str(tmp_path_factory.mktemp(f"{name}db") / "runs.sqlite"),
                TREE_WORKBENCH_LECTURER_TOKEN=secret, **env)
    with serve_app(full, tmp_path_factory.mktemp(f"{name}log")) as url:
        yield url


@pytest.fixture(scope="session")
def app_url(chromium, tmp_path_factory):
    env = dict(os.environ, TREE_WORKBENCH_DB=str(tmp_path_factory.mktemp("db") / "runs.sqlite"))
    with serve_app(env, tmp_path_factory.mktemp("log")) as url:
        yield url


AXE_DIR = Path(__file__).resolve().parent / "axe"
AXE_JS = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="session")
def axe_source() -> str:
    """The text of axe.min.js (axe-core, pinned in ``tests/browser/axe``), installed from the lock file with
    ``npm ci`` when missing (tests/browser/test_accessibility.py)."""
    if not AXE_JS.exists():
        # one installer at a time: the test processes (pytest-xdist) may all ask at once
        with open(AXE_DIR / ".npm-ci.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not AXE_JS.exists():
                _npm_ci()
    return AXE_JS.read_text(encoding="utf-8")


def _npm_ci() -> None:
    """``npm ci`` in the axe folder (the lock file's exact versions)."""
    npm = shutil.which("npm")
    if npm is None:
        if os.environ.get("CI"):
            pytest.fail("npm is missing: the accessibility test installs axe-core with npm ci (apt-get install npm)")
        pytest.skip("npm is not installed: axe-core cannot be installed (apt-get install npm)")
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=AXE_DIR,
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not AXE_JS.exists():
        pytest.fail(f"npm ci in {AXE_DIR} failed: {(done.stderr or done.stdout).strip()[-500:]}")


@pytest.fixture(scope="session")
def browser(chromium):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def shared_context(browser):
    """One browser context for the tests of this process (a person's browser between visits to the
    app). It keeps its HTTP cache and the code V8 compiled of Streamlit's frontend (about 5 MB of
    JavaScript): a page in a new context costs Chromium 3.5 s of CPU, a page in this one 1.6-1.9 s.
    Each test gets its own page (tab), its own Streamlit session; :func:`open_page` leaves no
    cookie, stored value or tab behind. Tests that need people apart (a lecturer and students,
    a student opening a shared link) open contexts of their own."""
    ctx = browser.new_context(viewport=VIEWPORT)
    yield ctx
    ctx.close()


#: the window of a test's page unless it asks for another
VIEWPORT = {"width": 1400, "height": 1000}

def _console(pg, msg) -> None:
    url = (msg.location or {}).get("url", "")
    if "/_stcore/" in url and "404" in msg.text:
        return   # Streamlit's frontend looking for the app's root from a page's address: not a fault
    pg.events.append(f"{time.strftime('%H:%M:%S')} console.{msg.type}: {msg.text[:300]} {url}".rstrip())


#: what a page of the app kept in the browser, forgotten after each test (the HTTP cache stays)
FORGET_JS = "() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }"


@pytest.fixture
def open_page(shared_context):
    """``open_page(viewport=None, color_scheme=None)``: a new tab in the shared context, of that
    window and colour scheme. After the test: the tabs closed, the app's cookies and stored values
    forgotten."""
    def make(viewport: dict | None = None, color_scheme: str | None = None):
        pg = shared_context.new_page()
        # what the page said in its console, and when its connection to the server closed: the
        # end of it goes with a failed test's report (a lost click: was the socket down?)
        pg.events = collections.deque(maxlen=30)
        pg.on("console", lambda m: _console(pg, m))
        pg.on("websocket", lambda ws: ws.on("close", lambda _: pg.events.append(
            f"{time.strftime('%H:%M:%S')} websocket closed: {ws.url}")))
        if viewport is not None and viewport != VIEWPORT:
            pg.set_viewport_size(viewport)
        if color_scheme is not None:
            pg.emulate_media(color_scheme=color_scheme)
        return pg

    yield make
    for pg in shared_context.pages:
        with contextlib.suppress(Exception):
            if pg.url.startswith("http"):
                pg.evaluate(FORGET_JS)
        with contextlib.suppress(Exception):
            pg.close()
    shared_context.clear_cookies()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """A failed browser test's report carries what its page showed: a screenshot (saved), the
    page's text, its console and socket events, and the end of the app's log. They are added here,
    before the report goes to the pytest-xdist controller (a section added later is not sent)."""
    rep = yield
    tour = item.funcargs.get("tour")
    pg = (item.funcargs.get("page") or getattr(tour, "current", None)) if rep.when == "call" and rep.failed else None
    if pg is not None:
        with contextlib.suppress(Exception):
            SHOTS.mkdir(exist_ok=True)
            pg.screenshot(path=str(SHOTS / f"failed-{item.name}.png"))
            rep.sections.append(("what the page showed",
                                 pg.locator("[data-testid='stMain']").inner_text(timeout=5_000)[:3000]))
        rep.sections.append(("the page's console and socket", "\n".join(getattr(pg, "events", ())) or "(nothing)"))
        log = next((p for url, p in SERVER_LOGS.items() if pg.url.startswith(url)), None)
        if log is not None and log.exists():
            rep.sections.append(("the app's log, last 40 lines",
                                 "\n".join(log.read_text(errors="replace").splitlines()[-40:]) or "(empty)"))
        if tour is not None and pg is tour.current:
            tour.forget(pg)   # the next page starts in a new tab, not in this one's trouble
    return rep


class Tour:
    """One tab per colour scheme that goes from page to page by the sidebar's menu, as a person
    does, for the tests that look at every page in turn: a page reached in the app costs Chromium
    0.1-0.5 s of CPU, a page loaded in a new tab 2.4-2.9 s (its frontend's JavaScript run afresh).
    The first page of each tab is loaded by its address. ``visit(spec, scheme)`` returns the tab
    once the page has run; ``tab.outside`` lists what that page asked for outside 127.0.0.1, and
    what its tree views draw as text is kept (``record_view_text``). A failed test's tab is closed
    (``pytest_runtest_makereport``), so the next page starts afresh. The menu lists all 12 pages
    (Streamlit folds a longer menu behind "View more": a 13th page needs a click there)."""

    def __init__(self, browser, url: str, viewport: dict):
        self.browser, self.url, self.viewport, self.tabs = browser, url, viewport, {}
        self.current = None   # the tab of the last visit (a failed test's report shows it)

    def visit(self, spec, scheme: str = "light"):
        from workbench.declarations.page_table import PAGES

        tab = self.tabs.get(scheme)
        address = PAGES.address(spec)
        if tab is None:
            tab = self.browser.new_context(viewport=self.viewport, color_scheme=scheme).new_page()
            tab.outside = watch_requests(tab)
            tab.events = collections.deque(maxlen=30)
            tab.on("console", lambda m: _console(tab, m))
            self.tabs[scheme] = self.current = tab
            tab.goto(f"{self.url}{address}")
        else:
            self.current = tab
            tab.outside.clear()   # what this page asks for, from its navigation on
            tab.emulate_media(color_scheme=scheme)
            tab.locator("[data-testid='stSidebarNav']").get_by_role("link", name=spec.title, exact=True).click()
            tab.wait_for_function("a => location.pathname.replace(/\\/$/, '') === a.replace(/\\/$/, '')",
                                  arg=address, timeout=60_000)
        wait_for_app(tab)
        return tab

    def forget(self, tab) -> None:
        """Close ``tab`` (after a failed test): the next visit in its scheme starts a new one, so
        one page's failure is not carried to the pages after it."""
        for scheme, t in list(self.tabs.items()):
            if t is tab:
                del self.tabs[scheme]
        with contextlib.suppress(Exception):
            tab.context.close()

    def close(self) -> None:
        for tab in list(self.tabs.values()):
            self.forget(tab)


#: the addresses a page may ask for (nothing leaves this machine)
LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")


def watch_requests(page) -> list[str]:
    """From now on, the addresses the page asks for outside 127.0.0.1 (the list fills as it goes);
    and what each tree view draws as text is kept (``record_view_text``, from the next navigation)."""
    outside: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(LOCAL) else outside.append(r.url))
    record_view_text(page)
    return outside


@pytest.fixture(scope="module")
def tour(browser, app_url):
    """A :class:`Tour` of the app in a 1600 x 1000 window, for the tests of one module."""
    t = Tour(browser, app_url, {"width": 1600, "height": 1000})
    yield t
    t.close()


@pytest.fixture
def page(open_page):
    """A new tab (1400 x 1000) in the shared context; when the test fails, a screenshot, the page's
    text, its console and the app's log go with the failure (``pytest_runtest_makereport``)."""
    return open_page()


def shot(page, name: str, max_height: int = 6000) -> Path:
    """Screenshot of the whole page. Streamlit scrolls inside its own pane, so a full-page shot of
    the document shows only the viewport: grow the viewport to the pane's content height first."""
    SHOTS.mkdir(exist_ok=True)
    p = SHOTS / f"{name}.png"
    vp = page.viewport_size
    h = page.evaluate(
        """() => Math.max(...[...document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"], body')]
                          .map(e => e.scrollHeight))""")
    grown = h > vp["height"]
    if grown:
        page.set_viewport_size({"width": vp["width"], "height": min(int(h) + 40, max_height)})
        page.wait_for_timeout(400)
    page.screenshot(path=str(p), full_page=True)
    if grown:
        page.set_viewport_size(vp)
    return p


def wait_for_app(page, timeout: float = 60_000) -> None:
    """Wait until Streamlit has finished running the script: its app element says it is connected
    and not running (``data-test-script-state``, set for every run, however short: the 'Running...'
    indicator shows only for long ones), with no skeleton placeholder, four polls in a row 100 ms
    apart. The count starts afresh at every call: a click's rerun starts 0.1-0.3 s after the click."""
    page.wait_for_selector("[data-testid='stApp']", timeout=timeout)
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=timeout)
    page.evaluate("window.__idle = 0")
    page.wait_for_function(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            const busy = !app || app.dataset.testScriptState === 'running'
                || app.dataset.testConnectionState !== 'CONNECTED'
                || document.querySelector('[data-testid="stStatusWidget"]')
                || document.querySelector('[data-testid="stSkeleton"]');
            if (busy) { window.__idle = 0; return false; }
            window.__idle = (window.__idle || 0) + 1;
            return window.__idle > 3;
        }""", timeout=timeout, polling=100)


# screen position of the point whose customdata is ``v`` in the first figure with a "vertices" trace
#: a Plotly data array as a plain array (plotly.py sends numpy arrays base64-encoded)
ARR = "const arr = a => a == null ? [] : Array.from(a._inputArray || a);"

POINT_JS = """(v) => {
    """ + ARR + """
    for (const gd of document.querySelectorAll('.js-plotly-plot')) {
        const tr = (gd.data || []).find(t => t.name === 'vertices');
        if (!tr) continue;
        const cd = arr(tr.customdata).map(c => Number(Array.isArray(c) ? c[0] : c));
        const i = cd.indexOf(v);
        if (i < 0) return null;
        const x = arr(tr.x)[i], y = arr(tr.y)[i];
        const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, r = gd.getBoundingClientRect();
        return [r.left + xa._offset + xa.l2p(x), r.top + ya._offset + ya.l2p(y)];
    }
    return null;
}"""


#: the vertex with id ``v`` is under the mouse for Plotly (its hover data names it)
HOVER_JS = """(v) => Array.from(document.querySelectorAll('.js-plotly-plot')).some(gd =>
    (gd._hoverdata || []).some(p => Number(Array.isArray(p.customdata) ? p.customdata[0] : p.customdata) === v))"""


def sign_in_lecturer(page, secret: str) -> None:
    """The lecturer's sign-in on the Lessons page (the page ``page`` shows), by the keyboard as a
    lecturer would: the expander opened, the token typed, Enter."""
    page.get_by_text("Lecturer: sign in").click()
    field = page.get_by_label("The lecturer's token (set when the server was started)")
    field.fill(secret)
    field.press("Enter")
    page.locator(".st-key-lecturer_sign_out").wait_for(timeout=60_000)
    wait_for_app(page)


def says(page, selector: str, text: str, timeout: float = 30_000) -> None:
    """Wait until an element matching ``selector`` shows ``text``."""
    page.wait_for_function(
        "([s, t]) => Array.from(document.querySelectorAll(s)).some(e => e.innerText.includes(t))",
        arg=[selector, text], timeout=timeout, polling=100)


@contextlib.contextmanager
def class_people(browser, name: str, *options: dict):
    """A lecturer and students, each in a browser context of their own (``options``: one dict of
    context options a person, the lecturer first); yields their pages. On a failure every page is
    screenshotted (``failed-<name>-lecturer``, ``failed-<name>-student<i>``); the contexts are closed."""
    contexts = [browser.new_context(**o) for o in options]
    try:
        yield [c.new_page() for c in contexts]
    except Exception:   # what each of them showed when it failed
        for i, c in enumerate(contexts):
            for pg in c.pages:
                with contextlib.suppress(Exception):
                    shot(pg, f"failed-{name}-{'lecturer' if i == 0 else f'student{i}'}")
        raise
    finally:
        for c in contexts:
            c.close()


def join_class(page, app_url: str, code: str, *, by_link: bool, touch: bool = False) -> None:
    """A student joins the class ``code``: by its join link, or on the app's first page by typing the
    code (in lower case) into the join box and pressing Join (``touch``: tapped, as on a phone)."""
    if by_link:
        page.goto(f"{app_url}/?class={code}")
        return
    page.goto(app_url)
    wait_for_app(page, timeout=120_000)
    box, join = page.locator(".st-key-class_join_code input"), page.get_by_role("button", name="Join")
    if touch:
        box.tap()
    box.fill(code.lower())
    join.tap() if touch else join.click()


def press_and_wait(page, url: str, button: str, done: str, *, shot_name: str, timeout: float) -> None:
    """Open ``url`` (a screenshot ``shot_name`` of it), press the button ``button`` and wait until the
    page shows ``done`` and the app is idle again."""
    page.goto(url)
    wait_for_app(page)
    shot(page, shot_name)
    page.get_by_role("button", name=button).click()
    page.wait_for_selector(f"text={done}", timeout=timeout)
    wait_for_app(page, timeout=timeout)


def click_vertex(page, v: int) -> None:
    """Click the vertex with id ``v`` in the first clickable tree of the page (by its data
    coordinates, so it works for SVG and WebGL figures alike) as a person does: point at it, then
    press. Plotly picks the point of its last hover; a press right after a jump of the mouse
    (Playwright moves it in one step) could still carry the previous hover."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.wait_for_function(f"() => ({POINT_JS})({int(v)}) !== null", timeout=30_000)
    x, y = page.evaluate(POINT_JS, int(v))
    page.mouse.move(x, y)
    try:
        page.wait_for_function(HOVER_JS, arg=int(v), timeout=3_000, polling="raf")
    except PlaywrightTimeout:   # a hover label may be switched off: press anyway
        pass
    page.mouse.down()
    page.mouse.up()


# ------------------------------------------------------------------ the tree view (workbench.treeview)
#: a tree view's drawn vertices on screen: ``[[id, name, x, y], ...]`` in page coordinates (the
#: view's state lives on its host element; the component sits in a shadow root, which Playwright's
#: locators enter)
VIEW_POINTS_JS = """(wrap) => {
    const S = wrap.parentNode.__treeview;
    if (!S || !S.m) return [];
    const r = S.canvas.getBoundingClientRect(), t = S.t, m = S.m, out = [];
    for (let i = 0; i < m.vid.length; i++) {
        const x = m.vxy[2 * i] * t.ax + t.bx, y = m.vxy[2 * i + 1] * t.ay + t.by;
        if (x >= 2 && x <= S.width - 2 && y >= 2 && y <= S.h - 2) out.push([m.vid[i], S.data.vname[i], r.left + x, r.top + y]);
    }
    return out;
}"""

#: a tree view's collapsed marks on screen: ``[[count, x, y], ...]`` (a point inside each, page coordinates)
VIEW_MARKS_JS = """(wrap) => {
    const S = wrap.parentNode.__treeview;
    if (!S || !S.m) return [];
    const r = S.canvas.getBoundingClientRect(), t = S.t, m = S.m, out = [];
    for (let g = 0; g < m.gcount.length; g++) {
        const a = m.go[g], b = m.go[g + 1];
        let x = 0, y = 0;
        for (let i = a; i < b; i++) { x += m.gp[2 * i]; y += m.gp[2 * i + 1]; }
        x = (x / (b - a)) * t.ax + t.bx; y = (y / (b - a)) * t.ay + t.by;
        if (x >= 4 && x <= S.width - 4 && y >= 4 && y <= S.h - 4) out.push([m.gcount[g], r.left + x, r.top + y]);
    }
    return out;
}"""


def tree_view(page, key: str):
    """The locator of the tree view ``key`` (its ``div.tv``)."""
    return page.locator(f"div.tv[data-key='{key}']")


def wait_for_view(page, key: str, timeout: float = 60_000) -> None:
    """Wait until the tree view ``key`` has drawn marks and asks for nothing more."""
    view = tree_view(page, key)
    view.wait_for(timeout=timeout)
    page.wait_for_function(
        """(el) => { const S = el.parentNode.__treeview;
                     return !!(S && S.m && S.busy.style.display !== 'block'); }""",
        arg=view.element_handle(timeout=timeout), timeout=timeout, polling=100)


def view_points(page, key: str) -> list:
    return tree_view(page, key).evaluate(VIEW_POINTS_JS)


def view_marks(page, key: str) -> list:
    return tree_view(page, key).evaluate(VIEW_MARKS_JS)


#: a tree view's collapsed marks with a point a click opens: inside the mark's outline and out of
#: every drawn vertex's reach (a click there picks no vertex): ``[[count, x, y], ...]``, page coordinates
VIEW_MARK_SPOTS_JS = """(wrap) => {
    const S = wrap.parentNode.__treeview;
    if (!S || !S.m) return [];
    const r = S.canvas.getBoundingClientRect(), t = S.t, m = S.m, out = [];
    const reach = 0.5 * S.data.marker + 6;
    const inside = (a, b, x, y) => {   // even-odd rule over the outline's points (screen px)
        let c = false;
        for (let i = a, j = b - 1; i < b; j = i++) {
            const xi = m.gp[2 * i] * t.ax + t.bx, yi = m.gp[2 * i + 1] * t.ay + t.by;
            const xj = m.gp[2 * j] * t.ax + t.bx, yj = m.gp[2 * j + 1] * t.ay + t.by;
            if ((yi > y) !== (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) c = !c;
        }
        return c;
    };
    const free = (x, y) => {
        for (let i = 0; i < m.vid.length; i++) {
            const dx = m.vxy[2 * i] * t.ax + t.bx - x, dy = m.vxy[2 * i + 1] * t.ay + t.by - y;
            if (dx * dx + dy * dy < reach * reach) return false;
        }
        return true;
    };
    for (let g = 0; g < m.gcount.length; g++) {
        const a = m.go[g], b = m.go[g + 1];
        let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
        for (let i = a; i < b; i++) {
            const x = m.gp[2 * i] * t.ax + t.bx, y = m.gp[2 * i + 1] * t.ay + t.by;
            x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
        }
        search: for (let u = 1; u < 8; u++) for (let v = 1; v < 8; v++) {
            const x = x0 + (x1 - x0) * u / 8, y = y0 + (y1 - y0) * v / 8;
            if (x >= 4 && x <= S.width - 4 && y >= 4 && y <= S.h - 4 && inside(a, b, x, y) && free(x, y)) {
                out.push([m.gcount[g], r.left + x, r.top + y]);
                break search;
            }
        }
    }
    return out;
}"""


def view_mark_spots(page, key: str) -> list:
    return tree_view(page, key).evaluate(VIEW_MARK_SPOTS_JS)


def click_view_vertex(page, key: str, name: str | None = None, *, vid: int | None = None) -> tuple:
    """Click a drawn vertex of the tree view ``key`` (by name or id; default: the first drawn) as a
    person does, pointing at it first. Returns ``(id, name)``."""
    pts = view_points(page, key)
    for v, nm, x, y in pts:
        if (name is None and vid is None) or nm == name or v == vid:
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.up()
            return v, nm
    raise AssertionError(f"vertex {name if name is not None else vid} is not drawn in {key} ({len(pts)} drawn)")


# ------------------------------------------------------------------ the tree view, as the page tests read it
#: what each canvas drew in its last frame: ``canvas.__texts`` = ``[[text, font px], ...]``. A frame
#: starts with the background filled over the whole canvas (treeview.js ``draw``); run before the page
#: loads (``record_view_text``)
CANVAS_TEXT_JS = """(() => {
    const P = CanvasRenderingContext2D.prototype, fillRect = P.fillRect, fillText = P.fillText;
    P.fillRect = function (x, y, w, h) {
        const c = this.canvas;
        if (x === 0 && y === 0 && w === parseFloat(c.style.width) && h === parseFloat(c.style.height)) {
            c.__texts = []; c.__boxes = [];
        }
        return fillRect.apply(this, arguments);
    };
    P.fillText = function (text, x, y) {
        const c = this.canvas;
        (c.__texts = c.__texts || []).push([String(text), parseFloat(this.font)]);
        const w = this.measureText(String(text)).width, h = parseFloat(this.font);
        const left = this.textAlign === "center" ? x - w / 2 : this.textAlign === "right" || this.textAlign === "end" ? x - w : x;
        (c.__boxes = c.__boxes || []).push([String(text), this.textAlign, left, y - h / 2, left + w, y + h / 2]);
        return fillText.apply(this, arguments);
    };
})();"""

#: every drawn vertex of a tree view: its name, the colour the server sent and the colour of the
#: canvas pixel at its centre (what the user sees), ``[[name, [r, g, b], [r, g, b]], ...]``
VIEW_FILLS_JS = """(wrap) => {
    const S = wrap.parentNode.__treeview;
    if (!S || !S.m) return [];
    const m = S.m, t = S.t, dpr = window.devicePixelRatio || 1, ctx = S.canvas.getContext('2d'), out = [];
    for (let i = 0; i < m.vid.length; i++) {
        const x = m.vxy[2 * i] * t.ax + t.bx, y = m.vxy[2 * i + 1] * t.ay + t.by;
        if (x < 2 || x > S.width - 2 || y < 2 || y > S.h - 2) continue;
        const sent = m.vfill.length ? Array.from(m.vfill.slice(3 * i, 3 * i + 3)) : null;
        const px = Array.from(ctx.getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data.slice(0, 3));
        out.push([S.data.vname[i], sent, px]);
    }
    return out;
}"""

#: the selected vertex's ring: the name the view says is selected, and whether the ring is drawn on
#: the drawn vertex of that name (``[name, ringed]``)
VIEW_SELECTED_JS = """(wrap) => {
    const S = wrap.parentNode.__treeview;
    if (!S || !S.m || !S.data.sel) return [null, false];
    const i = S.data.vname.indexOf(S.data.selName);
    return [S.data.selName, i >= 0 && Math.abs(S.m.vxy[2 * i] - S.data.sel[0]) < 0.5
                                   && Math.abs(S.m.vxy[2 * i + 1] - S.data.sel[1]) < 0.5];
}"""


def record_view_text(page) -> None:
    """From the next navigation on, keep what each canvas drew as text (``view_texts``)."""
    page.add_init_script(CANVAS_TEXT_JS)


def view_texts(page, key: str) -> list:
    """The texts (names, counts) the tree view ``key`` drew in its last frame: ``[[text, font px], ...]``
    (after ``record_view_text``)."""
    return tree_view(page, key).evaluate("(wrap) => wrap.parentNode.__treeview.canvas.__texts || []")


def view_text_boxes(page, key: str) -> list:
    """Where the tree view ``key`` drew each text in its last frame, in canvas px: ``[[text, align,
    x0, y0, x1, y1], ...]`` (after ``record_view_text``)."""
    return tree_view(page, key).evaluate("(wrap) => wrap.parentNode.__treeview.canvas.__boxes || []")


def view_fills(page, key: str) -> list:
    return tree_view(page, key).evaluate(VIEW_FILLS_JS)


def view_selected(page, key: str) -> list:
    return tree_view(page, key).evaluate(VIEW_SELECTED_JS)


def view_data(page, key: str, field: str):
    """One field of what the server sent the tree view ``key`` (``vname``, ``theme``, ``hxy``, ...)."""
    return tree_view(page, key).evaluate("(wrap, f) => wrap.parentNode.__treeview.data[f]", field)


def view_flagged(page, key: str) -> list:
    """The names of the drawn vertices the view rings as evidence (its ``rings``)."""
    return tree_view(page, key).evaluate("""(wrap) => { const S = wrap.parentNode.__treeview;
        return Array.from(S.m.vflag).flatMap((f, i) => f ? [S.data.vname[i]] : []); }""")


def view_highlighted(page, key: str) -> int:
    """How many highlight rings the view ``key`` draws (a component, a touched path of D)."""
    return tree_view(page, key).evaluate("(wrap) => wrap.parentNode.__treeview.m.hxy.length / 2")


def wait_for_selected(page, key: str, name: str, timeout: float = 60_000) -> None:
    """Wait until the tree view ``key`` shows ``name`` selected, its ring on that vertex."""
    page.wait_for_function("([wrap, name]) => { const [n, ok] = (" + VIEW_SELECTED_JS + ")(wrap); "
                           "return n === name && ok; }", arg=[tree_view(page, key).element_handle(timeout=timeout), name],
                           timeout=timeout, polling=100)
    wait_for_view(page, key, timeout)


def show_view(page, key: str, timeout: float = 60_000) -> None:
    """Scroll the tree view ``key`` into the window and wait until it is drawn (a click lands only
    on what is on screen)."""
    wait_for_view(page, key, timeout)
    tree_view(page, key).locator("canvas").scroll_into_view_if_needed(timeout=timeout)
    page.wait_for_timeout(300)   # Streamlit's pane scrolls smoothly
    wait_for_view(page, key, timeout)


def wait_for_drawn(page, key: str, count: int, timeout: float = 60_000) -> None:
    """Wait until the tree view ``key`` draws ``count`` vertices (a new tree's view has arrived)."""
    page.wait_for_function("([wrap, n]) => (" + VIEW_POINTS_JS + ")(wrap).length === n",
                           arg=[tree_view(page, key).element_handle(timeout=timeout), count], timeout=timeout,
                           polling=100)
    wait_for_view(page, key, timeout)


def view_sent_and_drawn(page, key: str) -> tuple[int, int]:
    """How many vertices the server chose for the view ``key`` and how many of them are on its
    canvas: equal when the view shows what the server drew it for (its whole overview, a zoom)."""
    sent = tree_view(page, key).evaluate("(wrap) => wrap.parentNode.__treeview.m.vid.length")
    return sent, len(view_points(page, key))
