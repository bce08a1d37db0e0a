"""The notebook widget in JupyterLab, in Chromium (workbench.notebook.TreeView).

One test: JupyterLab is started on 127.0.0.1 (a free port, a token of the test's own, no browser,
its settings and runtime files in a temporary folder, the notebook copied there so nothing in
notebooks/ is written), then ``online_sum_product.ipynb`` is opened and run from the Run menu.
The tree views must draw (canvas pixels that are not the background), a click on a drawn vertex of
T must reach Python (a cell typed afterwards prints ``view.selected``: the vertex clicked), and a
tree of 10^6 vertices is drawn in a new cell, with the time from the cell's end (its prompt
numbered) to the widget's first view printed. Screenshots go to tests/browser/screenshots/.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.browser.conftest import SHOTS, VIEW_POINTS_JS
from tests.conftest import ROOT

pytestmark = pytest.mark.browser

NOTEBOOK = "online_sum_product.ipynb"
T_VIEW = "notebook-view-1"   # the notebook's first TreeView (T with its cover); D is the second

#: a canvas has drawn when some pixel differs from its top-left one (the background)
DRAWN_JS = """(wrap) => {
    const c = wrap.parentNode.__treeview && wrap.parentNode.__treeview.canvas;
    if (!c || !c.width || !c.height) return false;
    const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    for (let i = 4; i < px.length; i += 4 * 7) {
        if (px[i] !== px[0] || px[i + 1] !== px[1] || px[i + 2] !== px[2]) return true;
    }
    return false;
}"""

#: watches the last cell from now on: when its last line of output is printed (the view made, the cell
#: returning it), when its prompt is numbered (the cell has ended), when its tree view first draws,
#: and when it first draws marks chosen for its own canvas width
WATCH_JS = """(cell) => {
    const w = window.__firstView = {start: performance.now(), printed: null, ended: null, drawn: null, fitted: null};
    const prompt = cell.querySelector('.jp-InputPrompt');
    const tick = () => {
        const now = performance.now();
        const out = cell.querySelector('.jp-OutputArea');
        if (w.printed === null && out && /made in/.test(out.textContent)) w.printed = now;
        if (w.ended === null && /\\[\\d+\\]/.test(prompt.textContent)) w.ended = now;
        const host = cell.querySelector('div.tv') && cell.querySelector('div.tv').parentNode;
        const S = host && host.__treeview;
        if (w.drawn === null && S && S.m && S.width) w.drawn = now;
        const width = S ? S.stage.clientWidth : 0;   // the canvas's width on the page
        if (w.fitted === null && S && S.m && width > 0 && Math.abs(S.data.w - width) < 2) w.fitted = now;
        if (w.printed === null || w.ended === null || w.fitted === null) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(folder: Path):
    """JupyterLab serving ``folder`` on 127.0.0.1; yields ``(base URL, token)``; stopped after."""
    token = secrets.token_hex(16)
    port = _free_port()
    # no question about Jupyter's news (a notification over the notebook's corner)
    settings = folder / ".settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(folder / ".config"), JUPYTER_RUNTIME_DIR=str(folder / ".runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(folder / ".settings"), JUPYTERLAB_WORKSPACES_DIR=str(folder / ".workspaces"),
               NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache")))
    log = open(folder / "jupyterlab.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={folder}",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--LabApp.extension_manager=readonly"] + (["--allow-root"] if os.geteuid() == 0 else []),
        cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail("JupyterLab did not start: " + (folder / "jupyterlab.log").read_text()[-2000:])
            time.sleep(0.5)
        yield base, token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _new_cell(page, code: str):
    """Type ``code`` into a new cell at the end of the notebook; the cell's locator."""
    page.locator(".jp-Notebook .jp-Cell").last.click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")   # a new cell below
    cells = page.locator(".jp-Notebook .jp-Cell")
    cell = cells.nth(cells.count() - 1)   # this one (running it with Shift+Enter adds another below)
    cell.locator(".cm-content").click()
    page.keyboard.insert_text(code)
    return cell


def _idle(page, timeout: float = 120_000) -> None:
    page.wait_for_function("() => { const s = document.querySelector('.jp-Notebook-ExecutionIndicator');"
                           " return s && s.dataset.status === 'idle'; }", timeout=timeout, polling=200)


def test_the_tree_view_draws_and_answers_a_click_in_jupyterlab(browser, tmp_path):
    shutil.copy(ROOT / "notebooks" / NOTEBOOK, tmp_path / NOTEBOOK)
    SHOTS.mkdir(exist_ok=True)
    with jupyterlab(tmp_path) as (base, token):
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = ctx.new_page()
        try:
            page.goto(f"{base}/lab/tree/{NOTEBOOK}?token={token}", timeout=120_000)
            page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=120_000)
            with contextlib.suppress(Exception):   # JupyterLab may ask which kernel: the notebook's own
                page.get_by_role("dialog").get_by_role("button", name="Select").click(timeout=10_000)
            _idle(page)
            page.get_by_role("menuitem", name="Run", exact=True).click()
            page.get_by_text("Run All Cells", exact=True).click()
            view = page.locator(f"div.tv[data-key='{T_VIEW}']")
            view.wait_for(timeout=120_000)
            _idle(page, 180_000)
            page.wait_for_function(DRAWN_JS, arg=view.element_handle(), timeout=30_000)
            d_view = page.locator("div.tv[data-key='notebook-view-2']")
            page.wait_for_function(DRAWN_JS, arg=d_view.element_handle(), timeout=30_000)

            # a click on a drawn vertex of T, as a person clicks: it reaches Python
            view.scroll_into_view_if_needed()
            points = view.evaluate(VIEW_POINTS_JS)
            assert points, "the view of T drew no vertex"
            vid, name, x, y = points[len(points) // 2]
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.up()
            page.wait_for_function(f"(el) => el.dataset.selected === {name!r}", arg=view.element_handle(),
                                   timeout=30_000)
            page.screenshot(path=str(SHOTS / "notebook-jupyterlab.png"), full_page=False)
            cell = _new_cell(page, "print('selected:', view.selected)")
            page.keyboard.press("Shift+Enter")
            out = cell.locator(".jp-OutputArea-output")
            out.wait_for(timeout=60_000)
            assert out.inner_text().strip() == f"selected: {vid}"

            # 10^6 vertices: the time from the cell's end to the widget's first view
            big = _new_cell(page, "import time\nfrom engine.trees.generators import random_tree\n"
                                  "t0 = time.perf_counter()\nbig = TreeView(random_tree(1_000_000, seed=1))\n"
                                  "print(f'made in {time.perf_counter() - t0:.1f} s')\nbig")
            big.evaluate(WATCH_JS)
            page.keyboard.press("Shift+Enter")
            page.wait_for_function("() => window.__firstView.ended !== null && window.__firstView.fitted !== null"
                                   " && window.__firstView.printed !== null",
                                   timeout=180_000, polling=100)
            w = page.evaluate("() => window.__firstView")
            big_view = big.locator("div.tv")
            page.wait_for_function(DRAWN_JS, arg=big_view.element_handle(), timeout=30_000)
            assert big_view.get_attribute("data-vertices") == "1000000"
            made = big.locator(".jp-OutputArea-output").first.inner_text().strip()
            print(f"\n10^6 vertices in JupyterLab: {made}; first view {(w['drawn'] - w['printed']) / 1000:.2f} s "
                  f"after the cell's output was printed, {(w['drawn'] - w['ended']) / 1000:.2f} s after its prompt "
                  f"was numbered; marks for the canvas's width {(w['fitted'] - w['printed']) / 1000:.2f} s and "
                  f"{(w['fitted'] - w['ended']) / 1000:.2f} s after")
            big_view.scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / "notebook-jupyterlab-1e6.png"), full_page=False)
        finally:
            with contextlib.suppress(Exception):
                page.screenshot(path=str(SHOTS / "notebook-jupyterlab-last.png"))
            ctx.close()
