"""A running app and Debian's Chromium driven by Playwright (no browser download).

``app_url`` starts ``streamlit run app.py`` on a free port for the session; ``page`` is a fresh
Playwright page. Without Chromium the browser tests skip, except under CI, where they fail.
Screenshots go to ``tests/browser/screenshots/``.
"""

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT

SHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def chromium_path():
    for name in ("chromium", "chromium-browser"):
        p = shutil.which(name)
        if p:
            return p
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def chromium():
    path = chromium_path()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing: install Debian's chromium (apt-get install chromium)")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    return path


@contextlib.contextmanager
def serve_app(env: dict, log_dir: Path):
    """Run ``streamlit run app.py`` on a free port with ``env``; yield its URL; stop it after."""
    port = _free_port()
    log = open(log_dir / "streamlit.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("the app did not start within 90 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="session")
def app_url(chromium, tmp_path_factory):
    env = dict(os.environ, TREE_WORKBENCH_DB=str(tmp_path_factory.mktemp("db") / "runs.sqlite"))
    with serve_app(env, tmp_path_factory.mktemp("log")) as url:
        yield url


@pytest.fixture(scope="session")
def browser(chromium):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    yield pg
    ctx.close()


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
    """Wait until Streamlit has finished running the script (no 'Running...' indicator)."""
    page.wait_for_selector("[data-testid='stApp']", timeout=timeout)
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=timeout)
    # idle: no running-script indicator and no skeleton placeholders, twice in a row
    page.wait_for_function(
        """() => {
            const busy = document.querySelector('[data-testid="stStatusWidget"]')
                || document.querySelector('[data-testid="stSkeleton"]');
            if (busy) { window.__idle = 0; return false; }
            window.__idle = (window.__idle || 0) + 1;
            return window.__idle > 3;
        }""", timeout=timeout, polling=250)


def click_plot_point(page, index: int, plot: int = 0, trace: int = 2) -> None:
    """Click vertex marker ``index`` of a Plotly figure at its screen position (the point elements
    sit under Plotly's drag layer, so a plain element click does not reach them)."""
    pts = page.locator(".js-plotly-plot").nth(plot).locator(f".scatterlayer .trace:nth-child({trace}) .point")
    box = pts.nth(index).bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
