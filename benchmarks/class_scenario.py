"""The class scenario of ``python -m benchmarks.bench_app``: one lecturer and N students (30 by
default) on websockets, as browsers.

Each tab (:class:`Tab`) speaks Streamlit's websocket protocol and, like a browser, keeps listening,
reruns its fragments on their own timers (``auto_rerun``) and does what the follower's script
(``workbench/assets/class_follow.js``) does in Chromium: it long-polls the server's follow route
and reruns the follower's fragment when the class changed (and for the heartbeat). The lecturer signs in with the lecturer token, leads a class on
the lesson "Belief propagation by hand" and goes to its step 2; the students join with the join
link (``?class=CODE``). The lecturer then presses Next five times (steps 3 to 7, five number
questions, five polls); after each move every student answers once the page shows the step.

Measured (the JSON's ``class``):

- ``follow_ms_p50`` / ``_p95``: the lecturer's press on Next → a student's page shows "Step k";
  ``follow_ms_p95_by_step``: the p95 of each step's move (``{"3": ms, ...}``);
- ``answer_to_count_ms_p95``: a student sends an answer → the lecturer's panel shows a count that
  includes it (answers ranked by the end of their own script run, the r-th counted once the panel
  shows r or more);
- ``lost_answers``: answers sent but not in the class's database at the end (of 5 × N);
- ``health_max_ms``: the slowest ``/_stcore/health`` answer during the scenario;
- ``server_cpu_ms_per_student_step``: the server process's CPU time over the five moves (each student's
  follow, answer and heartbeats, the lecturer's panel), per student and move: what a class costs
  whatever the machine's load;
- ``idle_server_cpu_pct``: the server process's CPU time over 20 s with every student connected and
  following and nobody acting, as a percentage of one core.
"""

from __future__ import annotations

import asyncio
import json
import re
import os
import sys
import time
from pathlib import Path

from benchmarks.app_client import HealthPoll, new_element, serve, serve_hall

__all__ = ["run_class", "Tab", "LESSON", "FIRST_POLL", "POLLS", "TOKEN"]

LESSON = "belief_propagation"
FIRST_POLL = 3
POLLS = 5
TOKEN = "bench-lecturer-token"
_STEP = re.compile(r"\*\*Step (\d+) of \d+\*\*")
IDLE_SECONDS = 20.0


class Tab:
    """A browser tab on one websocket: reads every message, runs its fragments' timers."""

    def __init__(self, url: str, name: str, *, cookie: str = ""):
        self.ws_url = url.replace("http://", "ws://") + "/_stcore/stream"
        self.name = name
        self.cookie = cookie                               # sent with the websocket, as a browser does
        self.widgets: dict[str, tuple[str, str]] = {}     # key -> (widget id, fragment id)
        self.timers: dict[str, tuple[float, int]] = {}    # fragment id -> (interval, generation)
        self._generation = 0
        self.page_hash = ""
        self.steps: dict[int, float] = {}                  # step -> first time the page showed it
        self.counts: list[tuple[float, int]] = []          # the lecturer's "N answered"
        self.texts: list[str] = []
        self.finished = asyncio.Event()
        self.errors: list[str] = []
        self._conn = None
        self._tasks: list[asyncio.Task] = []
        self.running = False
        self._awaited = "FINISHED_SUCCESSFULLY"   # the end of the run the tab waits for
        self.follow: dict | None = None                   # the follower component's data
        self._follow_ids: tuple[str, str] = ("", "")      # its trigger widget id, its fragment
        self._following = False

    async def connect(self) -> None:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        req = HTTPRequest(self.ws_url, connect_timeout=60, request_timeout=60,
                          headers={"Cookie": self.cookie} if self.cookie else None)
        self._conn = await websocket_connect(req, subprotocols=["streamlit"], max_message_size=256 * 2**20)
        # a hall's nginx names the process in a cookie on the websocket's answer; a browser sends it
        # with its later requests (the follow route's too), so they reach that process
        for line in self._conn.headers.get_list("Set-Cookie"):
            name, _, value = line.split(";")[0].strip().partition("=")
            if name and value:
                kept = [c for c in self.cookie.split("; ") if c and not c.startswith(name + "=")]
                self.cookie = "; ".join(kept + [f"{name}={value}"])
        self._tasks.append(asyncio.ensure_future(self._reader()))

    def close(self) -> None:
        self.timers.clear()   # no timer writes to a closed connection
        self.follow = None
        for t in self._tasks:
            t.cancel()
        if self._conn is not None:
            self._conn.close()

    async def rerun(self, states=(), *, fragment: str = "", query: str = "", page_name: str = "",
                    auto: bool = False, wait: bool = True) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ClientState_pb2 import ClientState
        from streamlit.proto.WidgetStates_pb2 import WidgetStates

        if not auto and wait:   # a run the tab waits for (a timer's or a script's run is not)
            self.finished.clear()
            self.running = True
            self._awaited = "FINISHED_FRAGMENT_RUN_SUCCESSFULLY" if fragment else "FINISHED_SUCCESSFULLY"
        msg = BackMsg(rerun_script=ClientState(
            query_string=query, page_script_hash=self.page_hash, page_name=page_name, fragment_id=fragment,
            widget_states=WidgetStates(widgets=list(states)), is_auto_rerun=auto))
        await self._conn.write_message(msg.SerializeToString(), binary=True)

    async def run(self, states=(), *, query: str = "", page_name: str = "", timeout: float = 120) -> None:
        """A script run (a page opened, a button pressed), waited for: as a browser does, only the
        fragment of the widgets in ``states`` when they are all drawn by one fragment."""
        frags = {self.fragment_of(s.id) for s in states}
        fragment = frags.pop() if len(frags) == 1 and not query and not page_name else ""
        await self.rerun(states, fragment=fragment, query=query, page_name=page_name)
        await asyncio.wait_for(self.finished.wait(), timeout)

    async def sign_in(self, token: str, timeout: float = 120) -> None:
        """The lecturer's sign-in on the Lessons page (the page this tab shows): the token typed into
        the form, the form sent."""
        await self.run([self.text("lecturer_token", token), self.button("lecturer_sign_in_button")],
                       timeout=timeout)

    def fragment_of(self, wid: str) -> str:
        """The fragment that drew the widget with id ``wid`` ("" for the page's own)."""
        return next((frag for w, frag in self.widgets.values() if w == wid), "")

    def button(self, key: str):
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        wid, _ = self.widgets[key]
        return WidgetState(id=wid, trigger_value=True)

    def text(self, key: str, value: str):
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        wid, _ = self.widgets[key]
        return WidgetState(id=wid, string_value=value)

    async def _follow(self) -> None:
        """What ``class_follow.js`` does: a long poll of the follow route; a rerun of the follower's
        fragment when the class differs from what the page shows, again after ``retryMs``, and
        about every ``beatMs`` for the heartbeat; without the route, a rerun every ``fallbackMs``."""
        from tornado.httpclient import AsyncHTTPClient

        # a client of its own, as each student's browser has: tornado's shared client sends at most
        # 10 requests at once, so the 30 students' long polls were queued in three batches
        client = AsyncHTTPClient(force_instance=True)
        try:
            await self._poll_follow(client)
        finally:
            client.close()

    async def _poll_follow(self, client) -> None:
        from streamlit.proto.WidgetStates_pb2 import WidgetState
        from tornado.httpclient import HTTPClientError

        base = self.ws_url[: -len("/_stcore/stream")].replace("ws://", "http://", 1)
        latest, fired_for, sent, n = None, object(), time.perf_counter(), 0

        async def fire(value: dict) -> None:
            nonlocal sent, n
            sent, n = time.perf_counter(), n + 1
            wid, fragment = self._follow_ids
            state = WidgetState(id=wid, json_trigger_value=json.dumps([{"event": "tick", "value": {**value, "n": n}}]))
            await self.rerun([state], fragment=fragment, wait=False)

        while self.follow is not None:
            d = self.follow
            seen = latest if latest is not None else d.get("seen")
            try:
                r = await client.fetch(f"{base}{d['url']}?seen={'' if seen is None else seen}", request_timeout=30,
                                       headers={"Cookie": self.cookie} if self.cookie else None)
                v = json.loads(r.body)["v"]
            except (HTTPClientError, OSError, ValueError, KeyError):
                if time.perf_counter() - sent >= d["fallbackMs"] / 1000:
                    await fire({"fallback": True})
                await asyncio.sleep(d["fallbackMs"] / 1000)
                continue
            if self.follow is None:
                break
            latest, now = v, time.perf_counter()
            if v != self.follow.get("seen"):
                if fired_for != v or now - sent >= self.follow["retryMs"] / 1000:
                    fired_for = v
                    await fire({"v": v})
            elif now - sent >= 0.8 * self.follow["beatMs"] / 1000:
                await fire({"beat": True})

    async def _timer(self, fragment: str, generation: int) -> None:
        while self.timers.get(fragment, (0, -1))[1] == generation:
            await asyncio.sleep(self.timers[fragment][0])
            if self.timers.get(fragment, (0, -1))[1] == generation and not self.running:
                await self.rerun(fragment=fragment, auto=True)

    async def _reader(self) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        while True:
            raw = await self._conn.read_message()
            if raw is None:
                self.errors.append("connection closed")
                return
            fm = ForwardMsg()
            fm.ParseFromString(raw)
            kind = fm.WhichOneof("type")
            now = time.perf_counter()
            if kind == "new_session":
                # a full run starts: as in a browser, its fragments' timers start again when it asks
                self.page_hash = fm.new_session.page_script_hash
                run = fm.metadata.run
                if run.script_run_id and not list(run.fragment_ids):   # a full run, not a fragment's
                    self.timers.clear()
            elif kind == "auto_rerun":
                # as the browser does: a timer per fragment, replaced when its interval changes
                # (a fragment's run_every, e.g. the lecturer's counts)
                fid = fm.auto_rerun.fragment_id
                if self.timers.get(fid, (None,))[0] != fm.auto_rerun.interval:
                    self._generation += 1
                    self.timers[fid] = (fm.auto_rerun.interval, self._generation)
                    self._tasks.append(asyncio.ensure_future(self._timer(fid, self._generation)))
            elif kind == "stop_auto_rerun":
                for fid in fm.stop_auto_rerun.fragment_ids:
                    self.timers.pop(fid, None)
            elif kind == "script_finished":
                status = ForwardMsg.ScriptFinishedStatus.Name(fm.script_finished)
                if status in (self._awaited, "FINISHED_WITH_COMPILE_ERROR"):
                    self.running = False
                    self.finished.set()
            elif kind == "delta":
                self._delta(fm.delta, now)

    def _delta(self, d, now: float) -> None:
        drawn = new_element(d)
        if drawn is None:
            return
        kind, body = drawn
        if kind == "exception":
            self.errors.append(f"{body.type}: {body.message}"[:300])
            return
        if kind == "bidi_component" and body.component_name.endswith("class_follow") and body.json:
            from streamlit.components.v2.bidi_component.main import _make_trigger_id

            self.follow = json.loads(body.json)
            self._follow_ids = (_make_trigger_id(body.id, "events"), d.fragment_id)
            if not self._following:
                self._following = True
                self._tasks.append(asyncio.ensure_future(self._follow()))
        text = ""
        if kind == "progress":
            text = body.text
            if text.startswith("Step "):
                k = int(text.split()[1])
                self.steps.setdefault(k, now)
        elif kind in ("markdown", "heading"):
            text = body.body
            if text.startswith("**") and " answered of " in text:   # the lecturer's console
                self.counts.append((now, int(text[2:text.index("**", 2)])))
            step = _STEP.search(text)   # the class's step counter above the page
            if step:
                self.steps.setdefault(int(step.group(1)), now)
        if text:
            self.texts.append(text)
        wid = getattr(body, "id", "")
        if isinstance(wid, str) and wid.startswith("$$ID-"):
            key = wid.split("-", 2)[2]
            if key and key != "None":
                self.widgets[key] = (wid, d.fragment_id)


def _pct(xs, q):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(q / 100 * (len(xs) - 1)))))]


def _cpu_seconds(pid: int, *, children: bool = True) -> float:
    """CPU time (user + system) of ``pid``'s threads and, unless ``children=False``, of its
    children's (the run workers) (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    pids = [pid]
    for p in Path("/proc").iterdir() if children else ():
        if p.name.isdigit():
            try:
                fields = (p / "stat").read_text().rsplit(")", 1)[-1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                pids.append(int(p.name))
    for p in pids:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[-1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


async def _scenario(url: str, db, students: int, server_pid: int | None, students_url: str | None = None) -> dict:
    from engine.classroom import ClassStore, lecturer_key
    from workbench.declarations.lessons import load_lessons

    lesson = next(x for x in load_lessons()[0] if x.id == LESSON)
    lect = Tab(url, "lecturer")
    await lect.connect()
    await lect.run()
    await lect.sign_in(TOKEN)
    await lect.run([lect.button(f"lesson_lead_{LESSON}")])
    store = ClassStore(db)
    code = store.classes(lecturer=lecturer_key(TOKEN))[0].code
    await lect.run([lect.button("class_go")])
    await lect.run([lect.button("lesson_next")])     # step 2: the students join here

    tabs = [Tab(students_url or url, f"student{i}") for i in range(students)]
    for t in tabs:
        await t.connect()
    await asyncio.gather(*(t.run(query=f"class={code}", timeout=300) for t in tabs))
    # wait until every student shows the class's step 2
    end = time.perf_counter() + 120
    while time.perf_counter() < end and not all(2 in t.steps for t in tabs):
        await asyncio.sleep(0.2)

    follow: list[float] = []
    to_count: list[float] = []
    sent = 0
    by_step: dict[int, float | None] = {}   # step -> follow p95 (ms)
    # the server's own process: the run workers may be compiling the learning kernels meanwhile
    cpu0 = _cpu_seconds(server_pid, children=False) if server_pid is not None else None
    for k in range(FIRST_POLL, FIRST_POLL + POLLS):
        q = lesson.steps[k - 1].question
        assert q is not None and q.kind == "number", (k, q)
        t0 = time.perf_counter()
        await lect.run([lect.button("lesson_next")])
        end = t0 + 120
        while time.perf_counter() < end and not all(k in t.steps for t in tabs):
            await asyncio.sleep(0.05)
        step_follow = [(t.steps[k] - t0) * 1000 for t in tabs if k in t.steps]
        follow += step_follow
        by_step[k] = _round(_pct(step_follow, 95))
        # every student answers (once its page is the step's: its widgets are there)
        lect.counts.clear()
        sends: list[float] = []
        acks: list[float] = []

        async def answer(t: Tab, i: int) -> None:
            for _ in range(600):   # at most a minute: a loaded server may be slow to draw the step
                # the answer box and the button under it (the page may be drawn in part: a run the
                # server starts, the follower's move, is not one the tab waits for)
                if f"class_q_{code}_{k}" in t.widgets and "class_send" in t.widgets and not t.running:
                    break
                await asyncio.sleep(0.1)
            value = q.answer if i % 3 else str(float(q.value) * 1.5)
            ts = time.perf_counter()
            await t.run([t.text(f"class_q_{code}_{k}", value), t.button("class_send")], timeout=120)
            sends.append(ts)
            acks.append(time.perf_counter())

        failed = [r for r in await asyncio.gather(*(answer(t, i) for i, t in enumerate(tabs)), return_exceptions=True)
                  if isinstance(r, BaseException)]
        sent += len(sends)
        print(f"class scenario: step {k}: {sum(k in t.steps for t in tabs)} of {students} followed "
              f"(p95 {by_step[k]} ms), "
              f"{len(sends)} answered, {len(failed)} failed ({', '.join(sorted({type(r).__name__ for r in failed}))})",
              file=sys.stderr, flush=True)
        end = time.perf_counter() + 30
        while time.perf_counter() < end and not any(n >= students for _, n in lect.counts):
            await asyncio.sleep(0.1)
        order = sorted(zip(acks, sends))
        for rank, (_, ts) in enumerate(order, 1):
            seen = [t for t, n in lect.counts if n >= rank and t >= ts]
            if seen:
                to_count.append((min(seen) - ts) * 1000)
    moves_cpu = _cpu_seconds(server_pid, children=False) - cpu0 if cpu0 is not None else None
    stored = len(store.answers(code, lecturer=lecturer_key(TOKEN)))

    idle = None
    if server_pid is not None:
        await asyncio.sleep(3)
        c0, w0 = _cpu_seconds(server_pid), time.perf_counter()
        await asyncio.sleep(IDLE_SECONDS)
        idle = 100 * (_cpu_seconds(server_pid) - c0) / (time.perf_counter() - w0)
    errors = sum(len(t.errors) for t in tabs + [lect])
    presence = store.presence(code)
    for t in tabs + [lect]:
        t.close()
    store.close()
    return {"students": students, "follow_ms_p50": _round(_pct(follow, 50)), "follow_ms_p95": _round(_pct(follow, 95)),
            "follow_ms_p95_by_step": {str(k): v for k, v in by_step.items()},
            "follows_seen": len(follow), "answer_to_count_ms_p95": _round(_pct(to_count, 95)),
            "answers_sent": POLLS * students, "answers_acknowledged": sent,
            "lost_answers": POLLS * students - stored, "idle_server_cpu_pct": _round(idle, 1),
            "server_cpu_ms_per_student_step": _round(None if moves_cpu is None else 1000 * moves_cpu / (POLLS * students), 1),
            "connected_at_end": presence.connected, "following_at_end": presence.following, "errors": errors}


def _round(x, nd=0):
    return None if x is None else (round(x, nd) if nd else int(round(x)))


def run_class(app_dir: Path, log_dir: Path, students: int = 30, *, processes: int = 1) -> dict:
    """Start a server with the lecturer token and a fresh database, and run the class scenario. With
    ``processes`` > 1, that many app processes behind nginx (``workbench.hall``): the lecturer on the
    first, the students through nginx (spread over all of them, as a hall's browsers are), one
    database (``TREE_WORKBENCH_DB_URL`` when set, else an SQLite file of this machine)."""
    env = dict(os.environ)
    env.pop("TREE_WORKBENCH_TREE", None)
    db = env.get("TREE_WORKBENCH_DB_URL") or log_dir / "class.sqlite"
    env.update(TREE_WORKBENCH_DB=str(log_dir / "class.sqlite"), TREE_WORKBENCH_LECTURER_TOKEN=TOKEN)
    load0 = [round(x, 2) for x in os.getloadavg()]
    if processes > 1:
        start = serve_hall(app_dir, processes, env=env, log_path=log_dir / "hall_classroom.log")
    else:
        start = serve(app_dir, env=env, log_path=log_dir / "server_classroom.log")
    with start as (url, _), HealthPoll(url) as health:
        if processes > 1:
            port = int(url.rsplit(":", 1)[1])
            lecturer_url, students_url, pid = f"http://127.0.0.1:{port + 1}", url, None
        else:
            lecturer_url, students_url, pid = url, url, _server_pid(url)
        out = asyncio.run(asyncio.wait_for(_scenario(lecturer_url, db, students, pid, students_url), 1200))
    out["health_max_ms"] = _round(max(health) if health else None)
    out["load_average"] = [load0, [round(x, 2) for x in os.getloadavg()]]
    out["processes"] = processes
    return out


def _server_pid(url: str) -> int | None:
    """The pid of the process listening on ``url``'s port (Linux /proc/net/tcp)."""
    port = int(url.rsplit(":", 1)[1])
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        f = line.split()
        if int(f[1].split(":")[1], 16) == port and f[3] == "0A":
            inode = f[9]
            break
    if inode is None:
        return None
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            for fd in (p / "fd").iterdir():
                if os.readlink(fd) == f"socket:[{inode}]":
                    return int(p.name)
        except OSError:
            continue
    return None
