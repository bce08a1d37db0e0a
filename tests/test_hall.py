"""Issue 32: ``make run WORKERS=N`` (workbench/hall.py): N app processes behind nginx with sticky
sessions, sharing one PostgreSQL database; a lecturer on one process and students on the other follow
one class; a process killed mid-class is started again while its browsers go on on another process,
and no answer is lost.

Real processes: a PostgreSQL server (tests/postgres.py), nginx (Debian's package, installed by
``.ci/run``) and two Streamlit servers (no warm-up: their first pages compile as they are opened).
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from benchmarks.app_client import Student, run_async
from tests.conftest import ROOT
from tests.postgres import PASSWORD, free_port

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("hall")]


def _get(url: str, cookie: str | None = None, timeout: float = 10.0):
    req = urllib.request.Request(url, headers={"Cookie": f"wb_backend={cookie}"} if cookie else {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.headers.get("X-Workbench-Process"), r.headers.get("Set-Cookie", "")


def _wait_healthy(url: str, ports: list[int], proc, limit: float = 240.0) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the hall stopped"
        try:
            if all(_get(f"http://127.0.0.1:{p}/_stcore/health", timeout=2)[0] == 200 for p in ports):
                _get(url + "/_stcore/health")
                return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    pytest.fail(f"the hall's processes were not healthy within {limit:.0f} s")


@pytest.fixture
def hall(pg_url, tmp_path):
    if shutil.which("nginx") is None and not os.access("/usr/sbin/nginx", os.X_OK):
        if os.environ.get("CI"):
            pytest.fail("nginx is not installed (.ci/run installs it)")
        pytest.skip("nginx is not installed (apt-get install nginx)")
    port = free_port(room=2)
    log = open(tmp_path / "hall.log", "w")
    from benchmarks.class_scenario import TOKEN

    env = dict(os.environ, TREE_WORKBENCH_DB_URL=pg_url, TREE_WORKBENCH_RUN_WORKERS="1", PYTHONPATH=str(ROOT),
               TREE_WORKBENCH_LECTURER_TOKEN=TOKEN, TREE_WORKBENCH_CLASSROOM="1")
    proc = subprocess.Popen([sys.executable, "-m", "workbench.hall", "--workers", "2", "--port", str(port),
                             "--no-warm-up"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, [port + 1, port + 2], proc)
        yield url, port, proc, tmp_path / "hall.log"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _tracebacks(log, most: int = 3) -> str:
    """The last ``most`` tracebacks the hall's processes wrote to its log (an app error reaches a
    browser redacted: the log has it whole)."""
    text = log.read_text(errors="replace") if log.exists() else ""
    blocks = re.findall(r"Traceback \(most recent call last\):\n(?:[ \t].*\n)*.*", text)
    return "\n".join(blocks[-most:]) or "(no traceback in the hall's log)"


def _page(url: str) -> list[str]:
    async def go():
        s = Student(url, timeout=180)
        await s.connect()
        try:
            out = await s.open("")
        finally:
            s.close()
        assert out.ok, out.errors
        return s.texts

    return run_async(go, timeout=240)


BROWSER_JS = """
import json, sys
from playwright.sync_api import sync_playwright
from tests.browser.conftest import CHROMIUM_ARGS, chromium_path, wait_for_app
with sync_playwright() as pw:
    b = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
    page = b.new_page()
    page.goto(sys.argv[1] + "/")
    wait_for_app(page, timeout=240_000)
    print(json.dumps({c["name"]: c["value"] for c in page.context.cookies()}))
    b.close()
"""


def _browser_cookies(url: str) -> dict | None:
    """The cookies Chromium holds after opening the app through nginx (its own process: this test
    process may run the browser tests' Playwright already); None without Chromium."""
    from tests.browser.conftest import chromium_path

    if chromium_path() is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing: install Debian's chromium (apt-get install chromium)")
        return None
    done = subprocess.run([sys.executable, "-c", BROWSER_JS, url], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _websockets(url: str, n: int) -> list[tuple[str, str]]:
    """Open ``n`` Streamlit websockets without the cookie through nginx, one after another, each kept
    open (a student at the page) until all are: the process and the Set-Cookie of each answer."""
    from tornado.websocket import websocket_connect

    async def go():
        conns = []
        try:
            for _ in range(n):
                conns.append(await websocket_connect(url.replace("http://", "ws://") + "/_stcore/stream",
                                                     subprotocols=["streamlit"]))
            return [(c.headers.get("X-Workbench-Process"), c.headers.get("Set-Cookie", "")) for c in conns]
        finally:
            for c in conns:
                c.close()

    return run_async(go, timeout=60)


def test_two_processes_behind_nginx_sticky_and_surviving_a_kill(hall):
    url, port, proc, log = hall
    text = log.read_text()
    assert "database: postgresql://workbench@127.0.0.1" in text and PASSWORD not in text
    # a browser's page comes with no cookie; its session's websocket goes to the process with the
    # fewest websockets (ten kept open split 5/5; a hash of a random id, nginx's earlier rule, split
    # them evenly one time in four), and its answer sets the cookie naming that process
    assert "wb_backend" not in _get(url + "/")[2]
    got = _websockets(url, 10)
    names = {f"127.0.0.1:{port + 1}": "p0", f"127.0.0.1:{port + 2}": "p1"}
    assert sorted(who for who, _ in got) == sorted([*names] * 5), got
    assert all(f"wb_backend={names[who]};" in cookie for who, cookie in got), got
    # the cookie keeps a browser on its process; unknown cookies are new browsers, spread over both
    first, sticky = f"127.0.0.1:{port + 1}", "p0"
    assert {_get(url + "/_stcore/health", sticky)[1] for _ in range(10)} == {first}
    assert {_get(url + "/_stcore/health", "p1")[1] for _ in range(10)} == {f"127.0.0.1:{port + 2}"}
    seen = {_get(url + "/_stcore/health", f"student{i}")[1] for i in range(40)}
    assert seen == set(names)
    # a real browser keeps the cookie its session's websocket was answered with
    jar = _browser_cookies(url)
    if jar is not None:
        assert jar.get("wb_backend") in ("p0", "p1"), jar
    # the page itself, over the websocket through nginx
    assert _page(url)
    # kill the process this browser was on: it goes on on the other, and the hall starts it again
    victim = int(first.rsplit(":", 1)[1])
    pid = int(re.search(rf"app process (\d+) on port {victim}\b", log.read_text()).group(1))
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)
    status, other, _ = _get(url + "/_stcore/health", sticky)
    assert status == 200 and other != first
    assert _page(url)
    deadline = time.monotonic() + 180
    while "starting it again" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.5)
    _wait_healthy(url, [port + 1, port + 2], proc)
    assert f"the app process on port {victim} stopped" in log.read_text()


def test_a_class_across_two_processes_and_a_process_killed(hall, pg_url):
    """A lecturer on one app process and three students on the other (real Streamlit servers, their
    websockets as browsers speak them, benchmarks.class_scenario.Tab) follow one class on one
    PostgreSQL database: join, follow, answer, reveal. Then the students' process is killed: they
    reconnect through nginx to the other process, find the class at its current step, and no answer
    is lost."""
    import asyncio

    from benchmarks.class_scenario import LESSON, TOKEN, Tab
    from engine.classroom import ClassStore, lecturer_key

    url, port, proc, log = hall
    lecturer_url, students_url = f"http://127.0.0.1:{port + 1}", f"http://127.0.0.1:{port + 2}"

    async def wait(cond, limit=120.0):
        end = time.monotonic() + limit
        while time.monotonic() < end and not cond():
            await asyncio.sleep(0.2)
        return cond()

    async def go():
        store = ClassStore(pg_url)
        lect = Tab(lecturer_url, "lecturer")
        await lect.connect()
        await lect.run(timeout=240)
        await lect.sign_in(TOKEN, timeout=240)
        await lect.run([lect.button(f"lesson_lead_{LESSON}")], timeout=240)
        code = store.classes(lecturer=lecturer_key(TOKEN))[0].code
        assert "class_go" in lect.widgets, (lect.errors, lect.texts[-15:], sorted(lect.widgets))
        await lect.run([lect.button("class_go")])
        await lect.run([lect.button("lesson_next")])   # step 2
        tabs = [Tab(students_url, f"student{i}") for i in range(3)]
        for t in tabs:
            await t.connect()
        await asyncio.gather(*(t.run(query=f"class={code}", timeout=240) for t in tabs))
        assert await wait(lambda: all(2 in t.steps for t in tabs)), [t.steps for t in tabs]
        await lect.run([lect.button("lesson_next")])   # step 3: a poll, followed on the other process
        assert await wait(lambda: all(3 in t.steps for t in tabs)), [t.steps for t in tabs]
        key = f"class_q_{code}_3"
        assert await wait(lambda: all(key in t.widgets and not t.running for t in tabs))
        for i, t in enumerate(tabs):
            await t.run([t.text(key, str(0.25 + i)), t.button("class_send")])
        assert store.poll(code, 3).count == 3
        # the students' process is killed mid-class
        pid = int(re.search(rf"app process (\d+) on port {port + 2}\b", log.read_text()).group(1))
        os.kill(pid, signal.SIGKILL)
        await wait(lambda: all(t.errors for t in tabs), 30)
        for t in tabs:
            t.close()
        # they reconnect through nginx (the dead process is skipped) and find the class at step 3
        again = [Tab(url, f"again{i}") for i in range(3)]
        for t in again:
            await t.connect()
        await asyncio.gather(*(t.run(query=f"class={code}", timeout=240) for t in again))
        assert await wait(lambda: all(3 in t.steps for t in again)), [t.steps for t in again]
        assert store.poll(code, 3).count == 3   # no answer lost
        lect.texts.clear()
        await lect.run([lect.button("class_reveal")])
        assert store.poll(code, 3).revealed and sorted(store.revealed_answers(code, 3)) == ["0.25", "1.25", "2.25"]
        errors = [f"{t.name}: {e}" for t in [lect, *again] for e in t.errors]
        for t in [lect, *again]:
            t.close()
        store.close()
        return errors

    errors = run_async(go, timeout=600)
    assert errors == [], (errors, _tracebacks(log))


def test_a_run_started_on_one_process_is_in_the_history_of_the_other(hall, pg_url):
    """A student's page on one app process starts a run (Reproduce, the optimal cover's quick
    protocol, by its link ``run=1``); the run is recorded once in PostgreSQL, and the Runs page of
    the other process shows it to the same student (the browser's owner cookie, as after a reload
    through nginx) and to the lecturer, signed in there, who sees every run."""
    import asyncio
    import secrets

    from benchmarks.class_scenario import TOKEN, Tab
    from engine.runs.store import RunStore
    from workbench.identity import OWNER_COOKIE

    url, port, proc, log = hall
    one, other = f"http://127.0.0.1:{port + 1}", f"http://127.0.0.1:{port + 2}"
    owner = secrets.token_urlsafe(18)

    async def go():
        store = RunStore(pg_url)
        try:
            before = {r.id for r in store.list()}
            a = Tab(one, "student on one", cookie=f"{OWNER_COOKIE}={owner}")
            await a.connect()
            await a.run(query="run=1", page_name="reproduce", timeout=240)
            end = time.monotonic() + 240
            new = []
            while time.monotonic() < end:
                new = [r for r in store.list() if r.id not in before]
                if new and all(r.status != "running" for r in new):
                    break
                await asyncio.sleep(0.5)
            assert len(new) == 1, [(r.id, r.status, r.label) for r in new]   # recorded once
            run = new[0]
            assert run.status == "finished", (run.status, run.error)
            a.close()
            # the lecturer signs in on one process; her browser (its owner cookie) is the lecturer's
            # on the other process too
            lecturer = f"{OWNER_COOKIE}={secrets.token_urlsafe(18)}"
            signing = Tab(one, "the lecturer signing in", cookie=lecturer)
            await signing.connect()
            await signing.run(timeout=240)
            await signing.sign_in(TOKEN, timeout=240)
            signing.close()
            for who, cookie in (("the student on the other", f"{OWNER_COOKIE}={owner}"),
                                ("the lecturer on the other", lecturer)):
                b = Tab(other, who, cookie=cookie)
                await b.connect()
                await b.run(page_name="runs", timeout=240)
                shown = "\n".join(b.texts)
                assert f"Run #{run.id} · {run.algorithm}" in shown, (who, shown[-2000:], b.errors)
                assert f"label {run.label}" in shown, (who, shown[-2000:])
                assert not b.errors, (b.errors, _tracebacks(log))
            # another student (another browser) on either process does not see it (classroom mode)
            for where in (one, other):
                c = Tab(where, "another student", cookie=f"{OWNER_COOKIE}={secrets.token_urlsafe(18)}")
                await c.connect()
                await c.run(page_name="runs", timeout=240)
                assert f"Run #{run.id} " not in "\n".join(c.texts), where
                assert not c.errors, (c.errors, _tracebacks(log))
                c.close()
                b.close()
        finally:
            store.close()

    run_async(go, timeout=600)
