"""Tree views at every size: what one view costs the server and the browser.

``python -m benchmarks.bench_views [--json] [--sizes 1000,10000,100000,1000000] [--no-browser]``
``python -m benchmarks.bench_views --compare DIR,DIR,... [--size 100000] [--rounds 8] [--json]``

For each size and shape (uniform random, path, star of paths, caterpillar) and for a real file (the
element tree of Debian's MIME database, ``freedesktop.org.xml`` of the shared-mime-info package,
when it is installed; else a synthetic tree with one vertex of degree 1,000), on a 1,600 x 1,000 px
canvas (a browser window's size; a page's canvas is smaller, so it has fewer marks):

- ``layout_s``: :class:`engine.trees.lod.TreeDrawing` (the O(n) preparation, once per tree);
- ``overview_ms`` / ``zoom_ms``: the server's work for one view -- the marks, their colours (a
  value per vertex, min/mean/max over each collapsed mark, ten ringed vertices) and the JSON the
  browser is sent (:func:`workbench.treeview.view_payload`) -- for the whole tree and for a view
  1 % as wide and as high, about a vertex (best of three);
- ``marks`` / ``payload_bytes``: the larger of the two views; ``overlaps``: pairs of drawn vertices
  nearer than a marker (whose circles overlap), over both views.

With a browser (Debian's Chromium, as the tests): ``usable_s`` -- Online Marginals opened on a
random tree of 10^4, 10^5 and 10^6 vertices by a fresh session of a warm server (the tree opened
once before by another session, as when a lecturer shares a link), until the tree view is drawn
and the app idle (median of three: the time is bimodal, 1.7-1.8 s or 2.2 s at 10^5 on the AMD
machine); ``page_usable_s`` -- each page that draws a tree, on the lecture's 5-vertex tree, fresh
session, median of three, once the server's warm-up (its lessons' runs) is over: from navigation
until the sidebar is drawn and Streamlit's running indicator has been gone for 0.5 s; ``floor_usable_s`` -- the same for a two-page Streamlit app with
a title and a line of text (what Streamlit itself costs a fresh session on this machine: loading its
scripts into an empty browser context, the websocket, one script run).

``--lessons``: ``lesson_settled_s`` -- every step of every lesson, as a lecturer goes through them
on a server just started (its health check answered) with an empty run history: the first step
opened from its link, each next one by the panel's Next; from the click until the panel says
"Step k of N", Streamlit's running indicator is gone, the page's script has ended (a step whose
link starts a learning run ends with the run) and all has stayed so for 0.5 s. A step's row says
why it took what it did: the run's own time ("done in N s"), whether it was queued behind the run
workers' warm-up ("preparing", "queued"), or that it opened on an earlier run's result
("history": the run history's, or one run ahead of the lessons).
``--settle-after S`` waits S seconds after the health check before the first lesson (a lecturer
who starts the server a minute before the class); ``--only rta,htmm`` goes through those lessons
only, in that order (a class that starts with a late lesson).

``--compare DIR,DIR,...``: Online Marginals usable, as ``usable_s``, for several apps (other
checkouts: ``git worktree add /tmp/old <commit>``) served side by side, on a random tree of
``--size`` vertices (default 10^5): after one untimed session each (the tree's layout), ``--rounds``
rounds in which every app in turn, the order reversed every other round, is opened by a fresh
session. A shared machine's speed drifts over minutes: the alternation puts the apps' samples
seconds apart. Prints each app's median and range, and its median's ratio to the first app's.

Prints a table, or with ``--json`` one JSON object ``{"rows": [...], "usable_s": {...},
"page_usable_s": {...}, "floor_usable_s": ..., "load_average": [...]}`` (with ``--lessons``:
``{"lesson_settled_s": [...], "load_average": [...]}``). ``--pages`` measures only
``page_usable_s`` and ``floor_usable_s``. Times nothing inside a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np

SHAPES = ("random", "path", "star of paths", "caterpillar")
XML = Path("/usr/share/mime/packages/freedesktop.org.xml")
CANVAS = (1600, 1000)
PAGES = {"Tree Studio": "tree_studio", "Cover Inspector": "cover_inspector", "Online Marginals": "online_marginals",
         "Belief Propagation": "belief_propagation"}


def make(shape: str, n: int):
    from engine.trees.generators import caterpillar_tree, path_tree, random_tree, star_of_paths

    if shape == "random":
        return random_tree(n, seed=3)
    if shape == "path":
        return path_tree(n)
    if shape == "star of paths":
        k = max(1, round(n ** 0.5))
        return star_of_paths(k, max(1, (n - 1) // k))
    if shape == "caterpillar":
        return caterpillar_tree(n, seed=0)
    raise ValueError(shape)


def wide_tree():
    """The real XML tree when installed, else one of the same build: a root of degree 1,000, each
    child with 40 leaves and a few deeper chains."""
    if XML.is_file():
        from engine.trees import read_tree

        return "xml (freedesktop.org.xml)", read_tree(XML)
    from engine.trees import Tree

    parent = [-1]
    for c in range(1000):
        parent.append(0)
        me = len(parent) - 1
        parent += [me] * 40
        if c % 50 == 0:
            for _ in range(6):
                parent.append(len(parent) - 1)
    return "synthetic: one vertex of degree 1,000", Tree.from_parent(np.array(parent))


def _view_cost(tree, drawing, vp, values, rings):
    from engine.trees.lod import Viewport
    from workbench.figures.style import Style
    from workbench.treeview import view_payload

    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        marks = drawing.marks(Viewport(*vp), *CANVAS)
        data, _ = view_payload(tree, "bench", drawing, marks, values=values, rings=rings, style=Style())
        text = json.dumps(data)
        dt = (time.perf_counter() - t0) * 1000.0
        best = dt if best is None else min(best, dt)
    return best, marks, len(text.encode())


def _overlaps(marks) -> int:
    from scipy.spatial import cKDTree

    if len(marks.vertex_xy) < 2:
        return 0
    return len(cKDTree(marks.vertex_xy.astype(float)).query_pairs(marks.marker - 1e-6))


def row(shape: str, tree) -> dict:
    from engine.trees.lod import TreeDrawing

    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    drawing = TreeDrawing(tree)
    layout_s = time.perf_counter() - t0
    values = rng.random(tree.n)
    rings = rng.choice(tree.n, min(10, tree.n), replace=False)
    ov = drawing.overview(*CANVAS)
    o_ms, o_marks, o_bytes = _view_cost(tree, drawing, (ov.x0, ov.x1, ov.y0, ov.y1), values, rings)
    v = int(rng.integers(tree.n))   # a 1 % view about a vertex (it has something to show)
    cx, cy = float(drawing.x[v]), float(drawing.y[v])
    w, h = 0.005 * ov.width, 0.005 * ov.height
    z_ms, z_marks, z_bytes = _view_cost(tree, drawing, (cx - w, cx + w, cy - h, cy + h), values, rings)
    return {"n": tree.n, "shape": shape, "layout": drawing.layout, "layout_s": round(layout_s, 3),
            "overview_ms": round(o_ms, 1), "zoom_ms": round(z_ms, 1), "marks": max(o_marks.total, z_marks.total),
            "payload_bytes": max(o_bytes, z_bytes), "overlaps": _overlaps(o_marks) + _overlaps(z_marks)}


# ------------------------------------------------------------------ in Chromium
_IDLE_JS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') { window.__quietFrom = 0; return false; }
    if (!document.querySelector('[data-testid="stSidebarNav"]')) return false;
    if (document.querySelector('[data-testid="stStatusWidget"]')) { window.__quietFrom = 0; return false; }
    window.__quietFrom = window.__quietFrom || performance.now();
    return performance.now() - window.__quietFrom >= 500;
}"""


def _open(b, url: str, path: str, *, view: str | None = None, timeout: float = 180.0) -> float:
    """Seconds from navigation to the page usable (and ``view``'s tree drawn), in a fresh session."""
    from tests.browser.conftest import wait_for_view

    ctx = b.new_context(viewport={"width": 1600, "height": 1000})
    pg = ctx.new_page()
    t0 = time.perf_counter()
    pg.goto(f"{url}/{path}")
    if view is not None:
        wait_for_view(pg, view, timeout=timeout * 1000)
    pg.wait_for_function(_IDLE_JS, timeout=timeout * 1000, polling=50)
    dt = time.perf_counter() - t0 - 0.5   # the quiet half second is the test, not the wait
    ctx.close()
    return dt


_FLOOR_APP = """import streamlit as st


def first():
    st.title("First page")
    st.write("A line of text.")


def second():
    st.title("Second page")


st.navigation([st.Page(first, title="First", url_path="first"), st.Page(second, title="Second")]).run()
"""


def floor_time(repeats: int = 3) -> float | None:
    """``page_usable_s`` of a two-page Streamlit app that draws a title and a line (median)."""
    import tempfile

    from benchmarks.app_client import serve
    from benchmarks.bench_app import _browser
    from tests.browser.conftest import chromium_path

    chromium = chromium_path()
    if chromium is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "app.py").write_text(_FLOOR_APP)
        with serve(Path(tmp), env=dict(os.environ), start_timeout=120) as (url, _):
            pw, b = _browser(chromium)
            try:
                _open(b, url, "first")
                return round(statistics.median(_open(b, url, "first") for _ in range(repeats)), 2)
            finally:
                b.close()
                pw.stop()


def browser_times(sizes=(10_000, 100_000, 1_000_000), repeats: int = 3) -> tuple[dict, dict]:
    from benchmarks.app_client import ROOT, serve, wait_for_warm_up
    from benchmarks.bench_app import _browser
    from tests.browser.conftest import chromium_path

    chromium = chromium_path()
    if chromium is None:
        return {}, {}
    env = dict(os.environ, TREE_WORKBENCH_DB=str(Path("/tmp") / f"bench_views_{os.getpid()}.sqlite"))
    usable, pages = {}, {}
    log = Path("/tmp") / f"bench_views_{os.getpid()}.log"
    with serve(ROOT, env=env, log_path=log, start_timeout=600) as (url, _):
        wait_for_warm_up(log)   # the lessons' runs, started as the server is healthy, take the cores ~15 s
        pw, b = _browser(chromium)
        try:
            for title, path in PAGES.items():
                _open(b, url, path)   # the page's first session on this server (not timed)
                pages[title] = round(statistics.median(_open(b, url, path) for _ in range(repeats)), 2)
            for n in sizes:
                path = f"online_marginals?tree=random:{n}:3"
                _open(b, url, path, view="om_tree", timeout=600)   # the tree's first session: it is laid out
                usable[str(n)] = round(statistics.median(_open(b, url, path, view="om_tree", timeout=600)
                                                         for _ in range(repeats)), 2)
        finally:
            b.close()
            pw.stop()
    return usable, pages


def run_compare(app_dirs: list[Path], *, size: int = 100_000, rounds: int = 8) -> dict:
    """Online Marginals usable on a random tree of ``size`` vertices for each app in ``app_dirs``,
    in alternating rounds of fresh sessions (see the module's docstring)."""
    import contextlib
    import tempfile

    from benchmarks.app_client import commit_of, serve, wait_for_warm_up
    from benchmarks.bench_app import _browser
    from tests.browser.conftest import chromium_path

    chromium = chromium_path()
    if chromium is None:
        raise SystemExit("bench_views --compare needs Chromium (apt-get install chromium)")
    path = f"online_marginals?tree=random:{int(size)}:3"
    load0 = [round(x, 2) for x in os.getloadavg()]
    times: dict[int, list[float]] = {i: [] for i in range(len(app_dirs))}
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench_views_compare_") as tmp:
        urls = []
        for i, d in enumerate(app_dirs):
            log = Path(tmp) / f"server{i}.log"
            env = dict(os.environ, TREE_WORKBENCH_DB=str(Path(tmp) / f"runs{i}.sqlite"))
            url, _ = stack.enter_context(serve(d, env=env, log_path=log, start_timeout=600))
            wait_for_warm_up(log)
            urls.append(url)
        pw, b = _browser(chromium)
        try:
            for url in urls:
                _open(b, url, path, view="om_tree", timeout=600)   # the tree's first session: it is laid out
            for r in range(rounds):
                for i in (range(len(urls)) if r % 2 == 0 else reversed(range(len(urls)))):
                    times[i].append(_open(b, urls[i], path, view="om_tree", timeout=600))
        finally:
            b.close()
            pw.stop()
    first = statistics.median(times[0])
    rows = []
    for i, d in enumerate(app_dirs):
        med = statistics.median(times[i])
        rows.append({"app_dir": str(d), "commit": commit_of(d), "usable_s_median": round(med, 2),
                     "usable_s_range": [round(min(times[i]), 2), round(max(times[i]), 2)],
                     "ratio_to_first": round(med / first, 3)})
    return {"compare": rows, "size": int(size), "rounds": rounds, "load_average_start": load0,
            "load_average_end": [round(x, 2) for x in os.getloadavg()]}


def compare_table(res: dict) -> str:
    lines = [f"Online Marginals usable on a random tree of {res['size']:,} vertices, fresh sessions, "
             f"{res['rounds']} alternating rounds; load average {res['load_average_start']} -> "
             f"{res['load_average_end']}", "",
             "| app | commit | usable, median (s) | range (s) | ratio to the first |", "|---|---|---:|---|---:|"]
    for r in res["compare"]:
        lo, hi = r["usable_s_range"]
        lines.append(f"| {r['app_dir']} | {r['commit'] or '—'} | {r['usable_s_median']:.2f} | {lo:.2f}–{hi:.2f} | "
                     f"{r['ratio_to_first']:.3f} |")
    return "\n".join(lines)


#: what the page says while a step waits, read every poll: a step's reason for taking long
_STATUS_JS = """() => {
    const main = document.querySelector('[data-testid="stMain"]');
    const t = main ? main.innerText : '';
    const out = [];
    if (t.includes(': preparing')) out.push('preparing');
    if (t.includes('(the server is busy)')) out.push('queued');
    return out;
}"""


def _settle(pg, text: str, timeout: float) -> tuple[float, set]:
    """Wait until the lesson panel says ``text`` and the page is idle for 0.5 s; (seconds, what the
    page said meanwhile: preparing, queued, history)."""
    t0 = time.perf_counter()
    seen: set = set()
    pg.evaluate("window.__quietFrom = 0")
    while True:
        seen.update(pg.evaluate(_STATUS_JS))
        said = pg.evaluate("t => (document.querySelector('.st-key-lesson_panel') || {innerText: ''})"
                           ".innerText.includes(t)", text)
        if said and pg.evaluate(_IDLE_JS):
            return time.perf_counter() - t0 - 0.5, seen
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError(f"{text} did not settle within {timeout:.0f} s")
        time.sleep(0.05)


def lesson_times(settle_after: float = 0.0, timeout: float = 600.0, only: tuple[str, ...] = ()) -> list[dict]:
    """``lesson_settled_s``: every step of every lesson (or of the lessons ``only`` names, in the
    order named) on a server just started (see the module docstring); one row per step."""
    import re
    import tempfile

    from benchmarks.app_client import ROOT, serve
    from benchmarks.bench_app import _browser
    from tests.browser.conftest import chromium_path
    from workbench.declarations.lessons import load_lessons
    from workbench.declarations.page_table import PAGES as TABLE

    chromium = chromium_path()
    if chromium is None:
        return []
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TREE_WORKBENCH_DB=str(Path(tmp) / "runs.sqlite"))
        with serve(ROOT, env=env, start_timeout=600) as (url, _):
            time.sleep(settle_after)
            pw, b = _browser(chromium)
            try:
                ctx = b.new_context(viewport={"width": 1600, "height": 1000})
                pg = ctx.new_page()
                lessons = {x.id: x for x in load_lessons()[0]}
                for lesson in [lessons[x] for x in only] if only else lessons.values():
                    n = len(lesson.steps)
                    for k, step in enumerate(lesson.steps, 1):
                        t0 = time.perf_counter()
                        if k == 1:
                            first = step.url
                            pg.goto(f"{url}{first}{'&' if '?' in first else '?'}lesson={lesson.id}&step=1")
                        else:
                            pg.locator(".st-key-lesson_panel").get_by_role("button", name="Next").click()
                        lag = time.perf_counter() - t0
                        settled, seen = _settle(pg, f"Step {k} of {n}", timeout)
                        main = pg.locator("[data-testid='stMain']").inner_text()
                        done = re.findall(r"done in ([0-9.]+) s", main)
                        if "with exactly these settings" in main:
                            seen.add("history")
                        rows.append({"lesson": lesson.id, "step": k, "run": "run" in TABLE.parse_link(step.url).raw,
                                     "settled_s": round(lag + settled, 2),
                                     "run_s": float(done[-1]) if done else None, "seen": sorted(seen)})
                ctx.close()
            finally:
                b.close()
                pw.stop()
    return rows


def lesson_table(res: dict) -> str:
    rows = res["lesson_settled_s"]
    slow = [r for r in rows if r["settled_s"] > 3.0]
    lines = ["| lesson | step | starts a run | settled s | the run's own s | the page said |",
             "|---|---:|---|---:|---:|---|"]
    for r in rows:
        if r["run"] or r["settled_s"] > 3.0:
            lines.append(f"| {r['lesson']} | {r['step']} | {'yes' if r['run'] else 'no'} | {r['settled_s']:.2f} | "
                         f"{'' if r['run_s'] is None else r['run_s']} | {', '.join(r['seen'])} |")
    times = sorted(r["settled_s"] for r in rows)
    lines.append("")
    lines.append(f"{len(rows)} steps; {len(slow)} settled after more than 3 s; slowest {times[-1] if times else 0:.2f} s, "
                 f"median {statistics.median(times) if times else 0:.2f} s (only the steps that start a run or "
                 "took more than 3 s are listed)")
    lines.append(f"load average {res['load_average']}")
    return "\n".join(lines)


def run(sizes=(1_000, 10_000, 100_000, 1_000_000), browser: bool = True, pages_only: bool = False) -> dict:
    rows = []
    if not pages_only:
        rows = [row(shape, make(shape, n)) for n in sizes for shape in SHAPES]
        name, tree = wide_tree()
        rows.append(row(name, tree))
    out = {"rows": rows}
    if browser:
        out["usable_s"], out["page_usable_s"] = browser_times(sizes=() if pages_only else (10_000, 100_000, 1_000_000))
        out["floor_usable_s"] = floor_time()
    else:
        out["usable_s"], out["page_usable_s"], out["floor_usable_s"] = {}, {}, None
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return out


def table(res: dict) -> str:
    lines = ["| n | shape | layout | layout s | overview ms | zoom ms | marks | payload KB | overlaps |",
             "|---:|---|---|---:|---:|---:|---:|---:|---:|"] if res["rows"] else []
    for r in res["rows"]:
        lines.append(f"| {r['n']:,} | {r['shape']} | {r['layout']} | {r['layout_s']:.2f} | {r['overview_ms']:.0f} | "
                     f"{r['zoom_ms']:.0f} | {r['marks']:,} | {r['payload_bytes'] / 1024:.0f} | {r['overlaps']} |")
    if res.get("usable_s"):
        lines.append("")
        lines.append("Online Marginals usable (fresh session, warm server): "
                     + ", ".join(f"n = {int(k):,}: {v} s" for k, v in res["usable_s"].items()))
    if res.get("page_usable_s"):
        lines.append("Lecture tree, fresh session, median of 3: "
                     + ", ".join(f"{k} {v} s" for k, v in res["page_usable_s"].items()))
    if res.get("floor_usable_s") is not None:
        lines.append(f"An empty two-page Streamlit app, the same way: {res['floor_usable_s']} s")
    lines.append(f"load average {res['load_average']}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--sizes", default="1000,10000,100000,1000000", help="comma-separated vertex counts")
    ap.add_argument("--no-browser", action="store_true", help="server times only (no Chromium)")
    ap.add_argument("--pages", action="store_true", help="only the lecture tree's pages and the empty app, in Chromium")
    ap.add_argument("--lessons", action="store_true", help="only every lesson step's time to settle, in Chromium")
    ap.add_argument("--settle-after", type=float, default=0.0,
                    help="with --lessons: seconds between the health check and the first lesson")
    ap.add_argument("--only", default="", help="with --lessons: these lessons only, in this order (ids, comma-separated)")
    ap.add_argument("--compare", default=None, metavar="DIR,DIR,...",
                    help="only Online Marginals usable for these apps, served side by side, in alternating rounds")
    ap.add_argument("--size", type=int, default=100_000, help="with --compare: the random tree's vertices (default 10^5)")
    ap.add_argument("--rounds", type=int, default=8, help="with --compare: fresh sessions per app (default 8)")
    args = ap.parse_args(argv)
    if args.compare is not None:
        from benchmarks.app_client import app_dirs

        dirs = app_dirs(ap, args.compare, most=4)
        if not 1 <= args.rounds <= 50 or not 3 <= args.size <= 1_000_000:
            ap.error(f"rounds 1..50 (got {args.rounds}), size 3..1,000,000 (got {args.size:,})")
        res = run_compare(dirs, size=args.size, rounds=args.rounds)
        print(json.dumps(res) if args.json else compare_table(res))
        return 0
    if args.lessons:
        res = {"lesson_settled_s": lesson_times(args.settle_after, only=tuple(x for x in args.only.split(",") if x))}
        res["load_average"] = [round(x, 2) for x in os.getloadavg()]
        print(json.dumps(res) if args.json else lesson_table(res))
        return 0
    sizes = tuple(int(s) for s in args.sizes.split(",") if s.strip())
    res = run(sizes, browser=not args.no_browser, pages_only=args.pages)
    print(json.dumps(res) if args.json else table(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
