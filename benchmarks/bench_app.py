"""Classroom speed of the app: page renders, click latency, and a class of simulated students.

``python -m benchmarks.bench_app [--json]`` starts the app (this tree, or ``--app-dir``) on a free
127.0.0.1 port and measures, on this machine:

- ``first_render_s``: for every page, a fresh browser session on a warm server, from navigation to
  the page idle with its figures drawn (Plotly's SVG, and every tree view's marks; Chromium through
  Playwright); ``first_usable_s``: to the
  browser's main thread quiet after that (no long task for 0.5 s); ``first_render_ws_s``: the
  same as the server's script run seen by a websocket client;
- ``server_ready_s`` (launch to healthy, warm-up included) and ``just_started_first_page_s`` (the
  first session's first page on that just-started server);
- ``click_to_marginal_ms_p50`` / ``_p95``: Online Marginals on a 1,000-vertex tree, 50 clicks
  alternating between two vertices, from the mouse press to the clicked vertex's marginal on
  screen (browser clock); ``lost_clicks`` counts clicks that never showed their vertex;
- ``sessions``: ``{concurrency, p50_ms, p95_ms, errors, server_cpu_ms_per_interaction,
  server_cpu_ms_per_click, students_cores, ...}`` for 1, 10 and 30 simulated students
  (``benchmarks.app_client.Student``: Streamlit's websocket protocol from asyncio), each opening
  Online Marginals and, once every student has, setting evidence five times (click a vertex, then
  "Observe label": ten interactions; the click is the tree view's "pick" event, as the browser
  sends it), with the slowest ``/_stcore/health`` answer seen meanwhile. Server CPU: the app
  process's (``/proc``) over the whole run per interaction (the openings included), and from the
  moment all had opened (the interactions alone); ``students_cores``: the simulated students' own
  CPU over the run, in cores (on the same machine, what the server does not get);
- ``browser_check``: the same "Observe label" interaction timed in Chromium and by one simulated
  student, to show that the simulation measures what a browser sees;
- ``class``: a lecturer and 30 students in a class (``benchmarks.class_scenario``):
  ``{students, follow_ms_p50, follow_ms_p95, answer_to_count_ms_p95, lost_answers, health_max_ms,
  idle_server_cpu_pct}`` and a few counts. ``--only-class`` measures only this.

``--processes N`` measures the class alone (no page renders, no browser) on N app processes behind
nginx (``python -m workbench.hall``; N = 1 is the single ``workbench.serve``), for the sizing table
of the lecture hall (docs/lecture-hall.md): students per core at p95 ≤ 1 s.

``--compare DIR,DIR,...`` measures only the server's CPU per interaction of several apps (other
checkouts: ``git worktree add /tmp/old <commit>``), served side by side on one tree of
``--tree-size`` vertices: in each of ``--blocks`` blocks every app in turn (the order reversed
every other block) serves three students who open Online Marginals and then make 16 interactions
each; its CPU from when they had opened, per interaction. A shared machine's speed drifts over
minutes, and this one's by a third: the apps' blocks alternate within seconds, and each app's
ratio to the first is taken block by block (its median and range are printed).

The machine's load average is recorded with every section (the machine is shared). Everything is
bounded in count and time; the servers are stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.app_client import ROOT, HealthPoll, Student, app_dirs, commit_of, serve, serve_hall
from benchmarks.class_scenario import _cpu_seconds, _server_pid, run_class
from tests.browser.conftest import click_view_vertex, show_view, view_points, wait_for_view

__all__ = ["main", "CLASS_TREE"]

#: the 1,000-vertex tree of the click and class measurements (a seeded random tree)
CLASS_TREE = {"generate": "random", "n": 1000, "seed": 0}
PAGE_TIMEOUT = 120.0


def _pages(app_dir: Path) -> list[tuple[str, str]]:
    """(title, url path) of every page of the app in ``app_dir``."""
    sys.path.insert(0, str(app_dir))
    try:
        from workbench.declarations.page_table import PAGES
    finally:
        sys.path.pop(0)
    return [(p.title, PAGES.address(p).lstrip("/")) for p in PAGES.values()]


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _pct(xs, q):
    if not xs:
        return None
    xs = sorted(xs)
    i = min(len(xs) - 1, max(0, int(round(q / 100 * (len(xs) - 1)))))
    return xs[i]


# ------------------------------------------------------------------ websocket measurements
async def _ws_open(url: str, page: str) -> float:
    s = Student(url, timeout=PAGE_TIMEOUT)
    await s.connect()
    try:
        out = await s.open(page)
    finally:
        s.close()
    if not out.ok:
        raise RuntimeError(f"page {page or '/'}: {out.status} {out.errors}")
    return out.seconds


async def _online_marginals_ready(url: str, limit: float = 180.0) -> None:
    """Open Online Marginals until it draws its tree view: a server just started loads the online
    model's walks beside it (or compiles them, on a new clone) and says "preparing" until then;
    students started earlier would count those pages as errors."""
    t0 = time.perf_counter()
    while True:
        s = Student(url, timeout=PAGE_TIMEOUT)
        await s.connect()
        try:
            await s.open("online_marginals")
            if "om_tree" in s.widgets:
                return
        finally:
            s.close()
        if time.perf_counter() - t0 > limit:
            raise RuntimeError(f"Online Marginals was still preparing after {limit:.0f} s")
        await asyncio.sleep(1.0)


async def _student(url: str, i: int, rounds: int, n: int, results: list, errors: list,
                   opened: asyncio.Barrier | None = None) -> None:
    """One student: open Online Marginals, wait at ``opened`` (every student has opened: the class
    starts clicking together), then ``rounds`` times pick a vertex and press "Observe label"."""
    s = Student(url, timeout=60.0)
    waited = False
    try:
        await s.connect()
        out = await s.open("online_marginals")
        results.append(("open", out.seconds))
        if not out.ok:
            errors.append(f"student {i} open: {out.status} {out.errors[:1]}")
            return
        if opened is not None:
            waited = True
            await opened.wait()
        for r in range(rounds):
            v = (37 * i + 101 * r + 1) % n
            for step in (lambda: _pick(s, "om_tree", v), lambda: s.press("om_observe")):
                out = await step()
                results.append(("interaction", out.seconds))
                if not out.ok:
                    errors.append(f"student {i} round {r}: {out.status} {out.errors[:1]}")
    except Exception as exc:   # a refused connection or a missing widget is an error of the run
        errors.append(f"student {i}: {type(exc).__name__}: {exc}")
    finally:
        s.close()
        if opened is not None and not waited:   # (a student who failed lets the others start)
            await opened.wait()


async def _pick(s: Student, key: str, v: int):
    """A click on vertex ``v`` of the tree view ``key`` (workbench.treeview): the component's "pick"
    event, sent as the browser's Streamlit sends a v2 component's trigger (a JSON list of
    ``{event, value}`` on the component's trigger widget), scoped to the view's fragment."""
    from streamlit.components.v2.bidi_component.main import _make_trigger_id   # the id Streamlit derives
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    w = s._widget(key)
    state = WidgetState(id=_make_trigger_id(w.id, "events"),
                        json_trigger_value=json.dumps([{"event": "pick", "value": {"id": int(v)}}]))
    return await s._rerun([state], w.fragment)


def _class_run(url: str, concurrency: int, rounds: int, n: int) -> dict:
    """``concurrency`` students at once; the health check is polled meanwhile."""
    results: list = []
    errors: list = []

    pid = _server_pid(url)
    opened_cpu: list = []

    async def all_students():
        # every student opens the page, then the class clicks; the server's CPU is read between
        # the two (by the barrier's last party, here), so that the clicks' cost is known alone
        opened = asyncio.Barrier(concurrency + 1)

        async def mark():
            await opened.wait()
            if pid is not None:
                opened_cpu.append(_cpu_seconds(pid, children=False))

        await asyncio.wait_for(asyncio.gather(mark(), *(_student(url, i, rounds, n, results, errors, opened)
                                                        for i in range(concurrency))), 600)

    cpu0 = _cpu_seconds(pid, children=False) if pid is not None else None
    t0, own0 = time.perf_counter(), time.process_time()
    with HealthPoll(url) as health:
        try:
            asyncio.run(all_students())
        except asyncio.TimeoutError:
            errors.append("the class did not finish within 600 s")
    wall, own = time.perf_counter() - t0, time.process_time() - own0
    cpu_end = _cpu_seconds(pid, children=False) if cpu0 is not None else None
    cpu = cpu_end - cpu0 if cpu0 is not None else None
    inter = [x * 1000 for kind, x in results if kind == "interaction"]
    opens = [x * 1000 for kind, x in results if kind == "open"]
    return {"concurrency": concurrency, "p50_ms": _round(_pct(inter, 50)), "p95_ms": _round(_pct(inter, 95)),
            "errors": len(errors), "interactions": len(inter),
            "open_p50_ms": _round(_pct(opens, 50)), "open_p95_ms": _round(_pct(opens, 95)),
            "health_max_ms": _round(max(health, default=None)), "wall_s": round(wall, 2),
            # the server process's CPU over the whole run (opening the page included), per interaction
            "server_cpu_ms_per_interaction": _round(None if cpu is None or not inter else 1000 * cpu / len(inter)),
            # the same from the moment every student had opened the page: the clicks alone
            "server_cpu_ms_per_click": _round(None if not opened_cpu or not inter
                                              else 1000 * (cpu_end - opened_cpu[0]) / len(inter)),
            # the simulated students' own CPU (this process: websockets, protobuf), in cores: on the
            # same machine it is taken from the server's
            "students_cores": round(own / wall, 2) if wall > 0 else None,
            "load_average": _load(), "error_samples": errors[:3]}


def _round(x):
    return None if x is None else round(x, 1)


# ------------------------------------------------------------------ browser measurements
_READY_JS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (!document.querySelector('[data-testid="stMain"] h1')) return false;
    for (const p of document.querySelectorAll('[data-testid="stPlotlyChart"]'))
        if (!p.querySelector('.main-svg')) return false;
    // every tree view (workbench.treeview, in a v2 component's shadow root) has its marks and asks for nothing
    for (const host of document.querySelectorAll('[data-testid="stBidiComponentIsolated"]')) {
        const root = host.shadowRoot;
        if (!root || !root.childElementCount) return false;
        if (!root.querySelector('div.tv')) continue;
        const S = root.__treeview;
        if (!S || !S.m || S.busy.style.display === 'block') return false;
    }
    return true;
}"""

_SHOWN_JS = """([want, other]) => {
    const main = document.querySelector('[data-testid="stMain"]');
    const t = main ? main.textContent : '';
    const ok = t.includes(want) && !t.includes(other);
    if (ok && window.__shownAt === undefined) window.__shownAt = performance.now();
    return ok;
}"""


def _browser(chromium: str):
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    b = pw.chromium.launch(executable_path=chromium, args=[
        "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"])
    return pw, b


#: every long task (main thread busy > 50 ms) of the page, with its end on the page's clock
_LONG_TASKS_JS = """window.__longEnd = 0; new PerformanceObserver(l => { for (const e of l.getEntries())
    window.__longEnd = Math.max(window.__longEnd, e.startTime + e.duration); }).observe({entryTypes: ['longtask']});"""


def _browser_first_renders(b, url: str, pages, quiet_ms: float = 500.0) -> tuple[dict, dict]:
    """Per page, a fresh browser session: seconds from navigation to the page drawn (its title and
    every figure's SVG, every tree view's marks) and, second dict, to the page usable: drawn, and the
    browser's main thread then quiet (no long task) for ``quiet_ms`` (Plotly may still be drawing
    points after its SVG exists; a click before that waits)."""
    drawn, usable = {}, {}
    for title, path in pages:
        ctx = b.new_context(viewport={"width": 1400, "height": 1000})
        pg = ctx.new_page()
        pg.add_init_script(_LONG_TASKS_JS)
        t0 = time.perf_counter()
        pg.goto(f"{url}/{path}")
        # the page's clock starts at its navigation: where that is on ours
        origin = pg.evaluate("() => performance.timeOrigin") / 1000.0 - (time.time() - time.perf_counter())
        pg.wait_for_function(_READY_JS, timeout=PAGE_TIMEOUT * 1000, polling="raf")
        drawn[title] = round(time.perf_counter() - t0, 2)
        pg.wait_for_function(f"() => performance.now() - (window.__longEnd || 0) > {quiet_ms}",
                             timeout=PAGE_TIMEOUT * 1000, polling=100)
        end = max(origin + pg.evaluate("() => window.__longEnd || 0") / 1000.0 - t0, drawn[title])
        usable[title] = round(end, 2)
        if pg.locator("[data-testid='stException']").count():
            drawn[title] = f"exception after {drawn[title]} s"
        ctx.close()
    return drawn, usable


def _click_benchmark(b, url: str, clicks: int) -> dict:
    """Alternate clicks between two far-apart vertices of the 1,000-vertex tree on its tree view (the
    leftmost and the rightmost drawn in the overview); time each from the mouse press to "P(x₁₈₃)"
    (its name as a subscript) of that vertex on screen (browser clock). The mouse points at the
    vertex before the press, as a person's does."""
    from workbench.text import subscript

    ctx = b.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    pg.goto(f"{url}/online_marginals")
    pg.wait_for_function(_READY_JS, timeout=PAGE_TIMEOUT * 1000, polling="raf")
    show_view(pg, "om_tree", timeout=PAGE_TIMEOUT * 1000)
    drawn = view_points(pg, "om_tree")
    if len(drawn) < 2:
        ctx.close()
        raise RuntimeError(f"the tree view of Online Marginals draws {len(drawn)} vertices")
    (va, na), (vb, nb) = [(int(p[0]), p[1]) for p in (min(drawn, key=lambda p: p[2]), max(drawn, key=lambda p: p[2]))]
    pg.evaluate("() => window.addEventListener('mousedown', () => { window.__downAt = performance.now(); "
                "window.__shownAt = undefined; }, true)")
    lat, lost = [], 0
    shown = None
    for _ in range(clicks):
        v, name, other = (va, na, nb) if shown != na else (vb, nb, na)
        wait_for_view(pg, "om_tree", timeout=PAGE_TIMEOUT * 1000)
        click_view_vertex(pg, "om_tree", vid=v)   # point at it, then press: the latency runs from the press
        try:
            pg.wait_for_function(_SHOWN_JS, arg=[f"P({subscript('x', name)})", f"P({subscript('x', other)})"], timeout=8000, polling="raf")
            lat.append(pg.evaluate("() => window.__shownAt - window.__downAt"))
            shown = name
        except Exception:   # the click never showed its vertex: a lost click
            lost += 1
        pg.wait_for_function(_READY_JS, timeout=PAGE_TIMEOUT * 1000, polling="raf")
    from tests.browser.conftest import shot

    shot(pg, "bench_click_to_marginal")
    ctx.close()
    return {"click_to_marginal_ms_p50": _round(_pct(lat, 50)), "click_to_marginal_ms_p95": _round(_pct(lat, 95)),
            "clicks": clicks, "lost_clicks": lost, "clicked_vertices": [na, nb], "load_average": _load()}


def _browser_observe(b, url: str, times: int) -> list[float]:
    """"Observe label" pressed ``times`` times in Chromium: from the press to the operation counted
    on screen (the work panel's "<n> BP pass(es)" shows the n-th operation) and the page idle (ms)."""
    ctx = b.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    pg.goto(f"{url}/online_marginals")
    pg.wait_for_function(_READY_JS, timeout=PAGE_TIMEOUT * 1000, polling="raf")
    counted = """(n) => Array.from(document.querySelectorAll('[data-testid="stMain"] span'))
        .some(e => [n + ' BP pass', n + ' BP passes'].includes(e.textContent.trim()))"""
    out = []
    for i in range(1, times + 1):
        btn = pg.get_by_role("button", name="Observe label")
        btn.click(trial=True)   # Playwright's wait for a button that holds still, before the clock
        t0 = time.perf_counter()
        btn.click()
        pg.wait_for_function(counted, arg=i, timeout=30_000, polling="raf")
        pg.wait_for_function(_READY_JS, timeout=PAGE_TIMEOUT * 1000, polling="raf")
        out.append((time.perf_counter() - t0) * 1000)
    ctx.close()
    return out


async def _ws_observe(url: str, times: int) -> list[float]:
    s = Student(url, timeout=60)
    await s.connect()
    out = []
    try:
        await s.open("online_marginals")
        for _ in range(times):
            o = await s.press("om_observe")
            out.append(o.seconds * 1000)
    finally:
        s.close()
    return out


# ------------------------------------------------------------------ the run
def run(app_dir: Path, *, students=(1, 10, 30), clicks: int = 50, rounds: int = 5, browser: bool = True,
        log_dir: Path | None = None, tree_size: int = CLASS_TREE["n"], class_students: int = 30,
        only_class: bool = False) -> dict:
    log_dir = Path(log_dir or tempfile.mkdtemp(prefix="bench_app_"))
    res: dict = {"app_dir": str(app_dir), "load_average_start": _load(), "cpus": os.cpu_count()}
    if only_class:
        res["class"] = run_class(app_dir, log_dir, class_students)
        res["load_average_end"] = _load()
        res["log_dir"] = str(log_dir)
        return res
    pages = _pages(app_dir)
    chromium = None
    if browser:
        from tests.browser.conftest import chromium_path

        chromium = chromium_path()
        if chromium is None:
            res["browser"] = "Chromium not found: browser measurements skipped"
    env = dict(os.environ)
    env.pop("TREE_WORKBENCH_TREE", None)
    env["TREE_WORKBENCH_DB"] = str(log_dir / "runs.sqlite")
    with serve(app_dir, env=env, log_path=log_dir / "server_default.log") as (url, ready):
        res["server_ready_s"] = round(ready, 2)
        res["just_started_first_page_s"] = round(asyncio.run(_ws_open(url, pages[0][1])), 2)
        for _, path in pages:   # the server is warm once every page has run once
            asyncio.run(_ws_open(url, path))
        res["first_render_ws_s"] = {title: round(asyncio.run(_ws_open(url, path)), 2) for title, path in pages}
        if chromium:
            pw, b = _browser(chromium)
            try:
                res["first_render_s"], res["first_usable_s"] = _browser_first_renders(b, url, pages)
            finally:
                b.close()
                pw.stop()
        res["load_average_pages"] = _load()
    class_tree = {**CLASS_TREE, "n": int(tree_size)}
    res["tree_size"] = class_tree["n"]
    env["TREE_WORKBENCH_TREE"] = json.dumps(class_tree)
    with serve(app_dir, env=env, log_path=log_dir / "server_class.log") as (url, _):
        asyncio.run(_online_marginals_ready(url))
        res[f"first_render_ws_s_n{class_tree['n']}"] = {
            "Online Marginals": round(asyncio.run(_ws_open(url, "online_marginals")), 2)}
        obs_b = None
        if chromium:
            pw, b = _browser(chromium)
            try:
                res.update(_click_benchmark(b, url, clicks))
                res["load_average_clicks"] = res.pop("load_average")
                obs_b = _browser_observe(b, url, 5)
            except Exception as exc:   # keep the other measurements; say what failed
                res["browser_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
            finally:
                b.close()
                pw.stop()
        res["sessions"] = [_class_run(url, c, rounds, class_tree["n"]) for c in students]
        if obs_b:
            obs_ws = asyncio.run(_ws_observe(url, 5))
            res["browser_check"] = {"observe_ms_p50_browser": _round(statistics.median(obs_b)),
                                    "observe_ms_max_browser": _round(max(obs_b)),
                                    "observe_ms_p50_websocket": _round(statistics.median(obs_ws)),
                                    "load_average": _load()}
    if class_students:
        res["class"] = run_class(app_dir, log_dir, class_students)
    res["load_average_end"] = _load()
    res["log_dir"] = str(log_dir)
    return res


def run_processes(app_dir: Path, processes: int, *, students=(30, 60), rounds: int = 5,
                  tree_size: int = CLASS_TREE["n"], log_dir: Path | None = None, class_students: int = 30) -> dict:
    """The students' scenario alone on ``processes`` app processes (behind nginx when more than one),
    then the live class on as many (the lecturer on the first, the students through nginx)."""
    log_dir = Path(log_dir or tempfile.mkdtemp(prefix="bench_app_"))
    env = dict(os.environ)
    env["TREE_WORKBENCH_DB"] = str(log_dir / "runs.sqlite")
    class_tree = {**CLASS_TREE, "n": int(tree_size)}
    env["TREE_WORKBENCH_TREE"] = json.dumps(class_tree)
    res: dict = {"app_dir": str(app_dir), "processes": processes, "cpus": os.cpu_count(), "tree_size": tree_size,
                 "database": "PostgreSQL" if env.get("TREE_WORKBENCH_DB_URL") else "SQLite",
                 "load_average_start": _load()}
    start = (serve_hall(app_dir, processes, env=env, log_path=log_dir / "hall.log") if processes > 1
             else serve(app_dir, env=env, log_path=log_dir / "server_class.log"))
    with start as (url, ready):
        res["server_ready_s"] = round(ready, 2)
        # each app process draws the page, asked directly (nginx picks the process for a new client,
        # so asking it could reach one process every time); the hall's processes listen on the
        # ports after nginx's (workbench.hall, benchmarks.app_client.serve_hall)
        port = int(url.rsplit(":", 1)[1])
        for app in ([url] if processes == 1 else [f"http://127.0.0.1:{port + 1 + i}" for i in range(processes)]):
            asyncio.run(_online_marginals_ready(app))
        res["sessions"] = [_class_run(url, c, rounds, class_tree["n"]) for c in students]
    if class_students:
        res["class"] = run_class(app_dir, log_dir, class_students, processes=processes)
    res["load_average_end"] = _load()
    res["log_dir"] = str(log_dir)
    return res


def _processes_table(res: dict) -> str:
    lines = [f"{res['processes']} app process(es), {res['database']}, {res['cpus']} CPUs, tree n = "
             f"{res['tree_size']:,}; load average at start {res['load_average_start']}, end {res['load_average_end']}",
             "", "| students | p50 (ms) | p95 (ms) | errors | open p95 (ms) | slowest health (ms) "
                 "| the students' own cores | load |",
             "|---:|---:|---:|---:|---:|---:|---:|---|"]
    for s in res["sessions"]:
        lines.append(f"| {s['concurrency']} | {s['p50_ms']} | {s['p95_ms']} | {s['errors']} | "
                     f"{s['open_p95_ms']} | {s['health_max_ms']} | {s.get('students_cores', '—')} | {s['load_average']} |")
    if "class" in res:
        lines += _class_table(res["class"])
    return "\n".join(lines)


def _class_table(c: dict) -> list[str]:
    return ["", f"class: 1 lecturer, {c['students']} students, 5 moves and 5 polls (load {c['load_average']})", "",
            "| follow p50 (ms) | follow p95 (ms) | answer → count p95 (ms) | lost answers | slowest health (ms) "
            "| idle server CPU (% of a core) | server CPU per student and move (ms) |", "|---:|---:|---:|---:|---:|---:|---:|",
            f"| {c['follow_ms_p50']} | {c['follow_ms_p95']} | {c['answer_to_count_ms_p95']} | "
            f"{c['lost_answers']} of {c['answers_sent']} | {c['health_max_ms']} | {c['idle_server_cpu_pct']} | "
            f"{c.get('server_cpu_ms_per_student_step', '—')} |"]


def _table(res: dict) -> str:
    if "first_render_ws_s" not in res:   # --only-class
        return "\n".join([f"app: {res['app_dir']} ({res['cpus']} CPUs)"] + _class_table(res["class"]))
    lines = [f"app: {res['app_dir']}   load average at start {res['load_average_start']}, "
             f"end {res['load_average_end']} ({res['cpus']} CPUs)",
             f"server ready (launch to healthy): {res.get('server_ready_s')} s; first page on it: "
             f"{res.get('just_started_first_page_s')} s", "",
             "| page | first render, browser (s) | usable, browser (s) | script run, websocket (s) |",
             "|---|---:|---:|---:|"]
    for title, ws in res.get("first_render_ws_s", {}).items():
        lines.append(f"| {title} | {res.get('first_render_s', {}).get(title, '—')} | "
                     f"{res.get('first_usable_s', {}).get(title, '—')} | {ws} |")
    if "click_to_marginal_ms_p50" in res:
        lines += ["", f"click → marginal (n = {res.get('tree_size', 1000):,}, {res['clicks']} clicks): p50 "
                      f"{res['click_to_marginal_ms_p50']} ms, p95 {res['click_to_marginal_ms_p95']} ms, "
                      f"lost clicks {res['lost_clicks']} (load {res['load_average_clicks']})"]
    lines += ["", "| students | p50 (ms) | p95 (ms) | errors | open p95 (ms) | slowest health (ms) "
                  "| server CPU per interaction (ms) | of which the clicks alone (ms) | the students' own cores | load |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for s in res.get("sessions", []):
        lines.append(f"| {s['concurrency']} | {s['p50_ms']} | {s['p95_ms']} | {s['errors']} | "
                     f"{s['open_p95_ms']} | {s['health_max_ms']} | {s.get('server_cpu_ms_per_interaction', '—')} "
                     f"| {s.get('server_cpu_ms_per_click', '—')} | {s.get('students_cores', '—')} | {s['load_average']} |")
    if "browser_check" in res:
        bc = res["browser_check"]
        lines += ["", f"browser check, 'Observe label': Chromium p50 {bc['observe_ms_p50_browser']} ms "
                      f"(slowest {bc['observe_ms_max_browser']} ms: the first, which recolours the tree), "
                      f"websocket client p50 {bc['observe_ms_p50_websocket']} ms"]
    if "class" in res:
        lines += _class_table(res["class"])
    return "\n".join(lines)


def run_compare(app_dirs: list[Path], *, blocks: int = 10, students: int = 3, rounds: int = 8,
                tree_size: int = CLASS_TREE["n"]) -> dict:
    """Server CPU per interaction (pick + "Observe label") of each app in ``app_dirs``, in
    alternating blocks after one block of warm-up (see the module's docstring)."""
    import contextlib

    env = dict(os.environ)
    env["TREE_WORKBENCH_TREE"] = json.dumps({**CLASS_TREE, "n": int(tree_size)})
    per: dict[int, list[float]] = {i: [] for i in range(len(app_dirs))}
    load0 = _load()
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench_compare_") as tmp:
        urls = []
        for i, d in enumerate(app_dirs):
            e = dict(env, TREE_WORKBENCH_DB=str(Path(tmp) / f"runs{i}.sqlite"))
            url, _ = stack.enter_context(serve(d, env=e, log_path=Path(tmp) / f"server{i}.log"))
            asyncio.run(_online_marginals_ready(url))
            urls.append(url)
        pids = [_server_pid(u) for u in urls]

        def block(i: int, b: int) -> float:
            results: list = []
            errors: list = []
            mark: list = []

            async def go():
                opened = asyncio.Barrier(students + 1)

                async def cpu_when_opened():
                    await opened.wait()
                    mark.append(_cpu_seconds(pids[i], children=False))

                await asyncio.wait_for(asyncio.gather(cpu_when_opened(), *(
                    _student(urls[i], 100 * b + j, rounds, int(tree_size), results, errors, opened)
                    for j in range(students))), 600)

            asyncio.run(go())
            n = sum(1 for kind, _ in results if kind == "interaction")
            if errors or not n:
                raise RuntimeError(f"{app_dirs[i]}: {errors[:2] or 'no interaction'}")
            return 1000 * (_cpu_seconds(pids[i], children=False) - mark[0]) / n

        for b in range(blocks + 1):   # block 0 warms every app up
            for i in (range(len(app_dirs)) if b % 2 == 0 else reversed(range(len(app_dirs)))):
                ms = block(i, b)
                if b:
                    per[i].append(ms)
    rows = []
    for i, d in enumerate(app_dirs):
        ratios = [x / y for x, y in zip(per[i], per[0])]
        rows.append({"app_dir": str(d), "commit": commit_of(d), "ms_per_interaction_median": _round(statistics.median(per[i])),
                     "ms_per_interaction_range": [_round(min(per[i])), _round(max(per[i]))],
                     "ratio_to_first_median": round(statistics.median(ratios), 3),
                     "ratio_to_first_range": [round(min(ratios), 3), round(max(ratios), 3)]})
    return {"compare": rows, "blocks": blocks, "students": students, "interactions_per_block": 2 * rounds * students,
            "tree_size": int(tree_size), "load_average_start": load0, "load_average_end": _load()}


def _compare_table(res: dict) -> str:
    out = [f"Server CPU per interaction, {res['blocks']} alternating blocks of {res['interactions_per_block']} "
           f"interactions ({res['students']} students) per app, tree n = {res['tree_size']:,}; load average "
           f"{res['load_average_start']} -> {res['load_average_end']}", "",
           "| app | commit | ms per interaction, median | range | ratio to the first, median | range |",
           "|---|---|---:|---|---:|---|"]
    for r in res["compare"]:
        lo, hi = r["ms_per_interaction_range"]
        rlo, rhi = r["ratio_to_first_range"]
        out.append(f"| {r['app_dir']} | {r['commit']} | {r['ms_per_interaction_median']} | {lo}–{hi} | "
                   f"{r['ratio_to_first_median']} | {rlo}–{rhi} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_app", description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    ap.add_argument("--app-dir", type=Path, default=ROOT, help="the app to measure (default: this tree)")
    ap.add_argument("--students", default="1,10,30", help="concurrencies to simulate (default 1,10,30)")
    ap.add_argument("--clicks", type=int, default=50, help="clicks on Online Marginals (default 50)")
    ap.add_argument("--rounds", type=int, default=5, help="evidence settings per student (default 5)")
    ap.add_argument("--no-browser", action="store_true", help="skip the Chromium measurements")
    ap.add_argument("--tree-size", type=int, default=CLASS_TREE["n"],
                    help="vertices of the random tree of the clicks and the students (default 1,000; up to 10^6)")
    ap.add_argument("--processes", type=int, default=None,
                    help="only the class, on N app processes behind nginx (1: one process; default "
                         "students 30,60)")
    ap.add_argument("--class-students", type=int, default=30,
                    help="students of the class scenario (default 30; 0 skips it)")
    ap.add_argument("--only-class", action="store_true", help="measure only the class scenario")
    ap.add_argument("--compare", default=None, metavar="DIR,DIR,...",
                    help="only the server CPU per interaction of these apps, served side by side, in alternating blocks")
    ap.add_argument("--blocks", type=int, default=10, help="with --compare: blocks per app (default 10)")
    args = ap.parse_args(argv)
    if args.compare is not None:
        dirs = app_dirs(ap, args.compare, most=6)
        if not 1 <= args.blocks <= 100 or not 3 <= args.tree_size <= 1_000_000:
            ap.error("blocks 1..100, tree size 3..1,000,000")
        res = run_compare(dirs, blocks=args.blocks, tree_size=args.tree_size)
        print(json.dumps(res, indent=1) if args.json else _compare_table(res))
        return 0
    if args.processes is not None:
        if not 1 <= args.processes <= 16:
            ap.error("--processes must be 1..16")
        students = tuple(int(x) for x in (args.students if args.students != "1,10,30" else "30,60").split(",")
                         if x.strip())
        if any(not 1 <= s <= 300 for s in students):
            ap.error("students 1..300 each with --processes")
        res = run_processes(args.app_dir.resolve(), args.processes, students=students, rounds=args.rounds,
                            tree_size=args.tree_size, class_students=args.class_students)
        print(json.dumps(res, indent=1) if args.json else _processes_table(res))
        return 0
    students = tuple(int(x) for x in args.students.split(",") if x.strip())
    if any(not 1 <= s <= 60 for s in students) or not 1 <= args.clicks <= 500 or not 1 <= args.rounds <= 50 \
            or not 3 <= args.tree_size <= 1_000_000 or not 0 <= args.class_students <= 60:
        ap.error("students 1..60 each, clicks 1..500, rounds 1..50, tree size 3..1,000,000, class students 0..60")
    res = run(args.app_dir.resolve(), students=students, clicks=args.clicks, rounds=args.rounds,
              browser=not args.no_browser, tree_size=args.tree_size, class_students=args.class_students,
              only_class=args.only_class)
    print(json.dumps(res, indent=1) if args.json else _table(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
