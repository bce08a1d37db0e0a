"""A clean stop at any moment (docs/hardening.md, "A clean stop"): a Ctrl-C in the terminal of
``make run`` (SIGINT to the whole foreground process group) or a SIGTERM to the server process
(systemd, docker, ``kill``) ends ``python -m workbench.serve`` and ``python -m workbench.hall`` within
5 s, with at most a couple of lines after the signal and no traceback, leaves no process behind (the
compile processes, the run workers, their manager, nginx, the hall's app processes) and leaves a
run that was in flight recorded ``interrupted``.

The moments: (a) the warm-up compiling the first pages' kernels (an empty cache); (b) after the
port opened, the online model's walks compiling beside the server, and the run workers compiling the
learning kernels (``prepare``); (c) a learning run in flight in a run worker; (d) a live class being
served, the lecturer and three students connected and following; (e) a hall of two app processes
behind nginx. Each is a real server in its own session on a free 127.0.0.1 port; where a compile is
wanted, its kernels are taken out of a copy of the tests' warm cache, so that the stop comes a
second or two into a real compile, not after it.

``python -m tests.test_stop [--make]`` stops a server at every moment both ways and prints the table
of docs/hardening.md (``--make``: also ``make run``, stopped by a Ctrl-C to make's group and by a
SIGTERM to make's own pid, when ``make -n run`` shows that it would only start the server).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from engine import warmup as W
from tests.conftest import ROOT
from tests.postgres import free_port
from workbench.hall import _healthy   # the hall's own health check of an app process

pytestmark = [pytest.mark.slow]

#: the promise: the server and everything it started have ended this long after the signal
STOP_WITHIN = 5.0
#: lines a stop may print after the signal: its own, and the one ``make`` adds after a Ctrl-C
MAX_LINES = 2
HOWS = {"int-group": "SIGINT to the process group (Ctrl-C)", "term-server": "SIGTERM to the server process"}


# ---------------------------------------------------------------------- a server as a terminal runs it
def _stat(pid: int) -> dict | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode(errors="replace")
    except OSError:
        return None
    close = raw.rindex(")")
    fields = raw[close + 2:].split()
    return {"pid": pid, "comm": raw[raw.index("(") + 1:close], "state": fields[0], "ppid": int(fields[1]),
            "sid": int(fields[3]), "start": int(fields[19])}


def _processes() -> dict[int, dict]:
    out = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (st := _stat(int(name))) is not None:
            out[st["pid"]] = st
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120]
    except OSError:
        return "?"


@dataclass
class Stopped:
    """How a stop went: seconds from the signal to the exit of the process signalled, and to the
    end of every process it had started (``gone``), the lines printed after the signal, the
    processes left (``pid comm state cmdline``), the exit status, the whole output."""

    seconds: float
    after: list[str]
    left: list[str]
    returncode: int | None
    output: str
    gone: float = 0.0
    notes: dict = field(default_factory=dict)


class Served:
    """A server started as a terminal's job: a session and process group of its own (a Ctrl-C can
    go to the whole group), its output read line by line with the time each line came. Every
    process it starts is noted while it runs (its children, theirs, and the sessions they open:
    the hall's app processes have their own), so that a process left after the stop is found even
    once it has lost its parent."""

    def __init__(self, argv: list[str], env: dict):
        self.proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.lines: list[tuple[float, str]] = []
        self.seen: dict[tuple[int, int], str] = {}
        self.sessions = {self.proc.pid}
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            self.lines.append((time.monotonic(), raw.decode(errors="replace").rstrip("\n")))

    @property
    def output(self) -> str:
        return "\n".join(line for _, line in self.lines)

    def note(self) -> None:
        procs = _processes()
        mine, grown = {self.proc.pid}, True
        while grown:
            grown = False
            for p in procs.values():
                if p["pid"] not in mine and (p["ppid"] in mine or p["sid"] in self.sessions):
                    mine.add(p["pid"])
                    grown = True
        for pid in mine:
            if pid in procs:
                self.seen[(pid, procs[pid]["start"])] = procs[pid]["comm"]
                self.sessions.add(procs[pid]["sid"])

    def wait_for(self, pattern: str, timeout: float) -> bool:
        """Whether a line matching ``pattern`` came within ``timeout`` seconds (False if it exited)."""
        rx, end = re.compile(pattern), time.monotonic() + timeout
        while time.monotonic() < end:
            self.note()
            if any(rx.search(line) for _, line in self.lines):
                return True
            if self.proc.poll() is not None:
                return False
            time.sleep(0.2)
        return False

    def pause(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.note()
            time.sleep(0.2)

    def stop(self, how: str, *, pgid: int | None = None) -> Stopped:
        """Send the signal (``int-group``: SIGINT to the process group ``pgid``, by default the
        server's; ``term-server``: SIGTERM to the server) and wait for the exit and for every
        process noted to be gone."""
        self.note()
        at = time.monotonic()
        if how == "int-group":
            os.killpg(pgid or self.proc.pid, signal.SIGINT)
        else:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(STOP_WITHIN + 10)
        except subprocess.TimeoutExpired:
            pass
        seconds = time.monotonic() - at
        left = self._left(at + STOP_WITHIN + 1.0)   # a zombie that init has not collected yet: a moment
        gone = time.monotonic() - at
        self._reader.join(2)
        return Stopped(seconds, [line for t, line in self.lines if t >= at], left, self.proc.returncode, self.output,
                       gone)

    def _left(self, until: float) -> list[str]:
        while True:
            procs = _processes()
            left = [p for p in procs.values() if p["sid"] in self.sessions or (p["pid"], p["start"]) in self.seen]
            if not left or time.monotonic() >= until:
                return [f"{p['pid']} {p['comm']} {p['state']} {_cmdline(p['pid'])}" for p in left]
            time.sleep(0.1)

    def kill(self) -> None:
        """Whatever is left (a failed test must not leave a server behind)."""
        self.note()
        for p in _processes().values():
            if p["sid"] in self.sessions or (p["pid"], p["start"]) in self.seen:
                try:
                    os.kill(p["pid"], signal.SIGKILL)
                except OSError:
                    pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            pass


# ---------------------------------------------------------------------- kernel caches
#: the numba cache files and warm-up stages of what a moment compiles: taken out of a copy of the
#: tests' warm cache, so that the server compiles them for real
_ONLINE = (("inference_*/_online_kernels.*",), (W.SOON, W.BEHIND, W.LIBRARY))
_LEARNING = (("forests_*", "multilabel_*", "formats_*"), (W.BEHIND, W.LIBRARY))


def warm_cache() -> Path:
    """The tests' kernel cache, every stage of the app compiled (``python -m engine.warmup``, as
    ``make test`` runs it first, when it is not)."""
    names = W.stage_names(W.SERVE, W.SOON, W.BEHIND)
    if not W.is_warm(names):
        env = dict(os.environ, NUMBA_CACHE_DIR=str(W.cache_dir()), PYTHONPATH=str(ROOT))
        subprocess.run([sys.executable, "-m", "engine.warmup"], cwd=ROOT, env=env, check=True, timeout=1800,
                       stdout=subprocess.DEVNULL)
    return W.cache_dir()


def cache_copy(folder: Path, without: tuple = ((), ())) -> Path:
    """A copy of the warm cache in ``folder`` without the kernels ``without`` (file patterns,
    and the stages of those times dropped from its stamp)."""
    patterns, whens = without
    shutil.copytree(warm_cache(), folder, ignore=shutil.ignore_patterns("*.lock", "*.tmp.*"))
    for pattern in patterns:
        for path in folder.glob(pattern):
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    stamp = folder / "warmup-stamp.json"
    data = json.loads(stamp.read_text())
    data["compiled"] = [n for n in data["compiled"] if n not in W.stage_names(*whens)]
    stamp.write_text(json.dumps(data))
    return folder


def _env(tmp: Path, cache: Path, **extra) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), TREE_WORKBENCH_DB=str(tmp / "runs.sqlite"),
               PYTHONPATH=str(ROOT), **extra)
    for name in ("TREE_WORKBENCH_DB_URL", "TREE_WORKBENCH_TREE", "TREE_WORKBENCH_RUN_WORKERS"):
        env.pop(name, None)
    return env


def _serve(env: dict) -> tuple[Served, int]:
    port = free_port()
    return Served([sys.executable, "-m", "workbench.serve", "--port", str(port), "--address", "127.0.0.1"], env), port


# ---------------------------------------------------------------------- browsers (websockets)
class Browsers:
    """Websocket clients (``benchmarks.class_scenario.Tab``) kept connected, in an event loop of
    their own, while the test stops the server."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.tabs: list = []

    def do(self, coro, timeout: float = 300):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        async def close_all():
            for t in self.tabs:
                t.close()

        try:
            self.do(close_all(), 10)
        except Exception:  # noqa: BLE001 - the server is gone: so are the connections
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


async def _tab(browsers: Browsers, url: str, name: str):
    from benchmarks.class_scenario import Tab

    tab = Tab(url, name)
    await tab.connect()
    browsers.tabs.append(tab)
    return tab


def _runs(db: Path) -> list[tuple]:
    """(id, status, progress, error) of every run, read without the store (no marking)."""
    if not db.exists():
        return []
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT id, status, progress, error FROM runs ORDER BY id").fetchall()
    except sqlite3.Error:
        return []
    finally:
        con.close()


# ---------------------------------------------------------------------- the moments
def _stop_when(tmp: Path, cache: Path, said: str, pause: float, how: str, not_yet: str | None = None) -> Stopped:
    """Serve with the kernel cache ``cache``; once the server has said ``said`` (a regular expression)
    and ``pause`` seconds more have passed, check that it has not said ``not_yet`` (the moment is not
    over) and stop it ``how``."""
    served, _ = _serve(_env(tmp, cache))
    try:
        assert served.wait_for(said, 300), served.output
        served.pause(pause)
        assert not_yet is None or not_yet not in served.output, served.output
        return served.stop(how)
    finally:
        served.kill()


def stop_in_warm_up(tmp: Path, how: str) -> Stopped:
    """(a) The warm-up compiling the first pages' kernels, from an empty cache: a second in."""
    return _stop_when(tmp, tmp / "empty-cache", r"^\[warm-up\] first start after an install", 1.5, how)


def stop_in_a_later_warm_up(tmp: Path, how: str) -> Stopped:
    """(a) A later start's warm-up (every kernel in the cache), the first pages being rendered and
    the run workers spawned early beside it (``workbench.serve._spawn_run_workers_early``): the
    server, multiprocessing's manager and at least one run worker seen before the stop
    (``notes["spawned"]``: how many processes)."""
    served, _ = _serve(_env(tmp, cache_copy(tmp / "cache")))
    try:
        assert served.wait_for(r"^\[warm-up\] kernels of the first pages ready", 300), served.output
        served.pause(0.3)
        assert "URL: http" not in served.output, served.output
        spawned = len(served.seen)
        out = served.stop(how)
        out.notes["spawned"] = spawned
        return out
    finally:
        served.kill()


def stop_while_online_walks_compile(tmp: Path, how: str) -> Stopped:
    """(b) The port open, the online model's walks compiling beside the server: a second in."""
    return _stop_when(tmp, cache_copy(tmp / "cache", _ONLINE), r"URL: http://127\.0\.0\.1", 1.0, how,
                      not_yet="online model ready")


def stop_while_run_workers_prepare(tmp: Path, how: str) -> Stopped:
    """(b) The port open, the run workers compiling the learning kernels (``prepare``), a few
    seconds after they started (spawned, importing, then compiling: minutes of it)."""
    return _stop_when(tmp, cache_copy(tmp / "cache", _LEARNING), r"URL: http://127\.0\.0\.1", 8.0, how,
                      not_yet="run workers ready")


def stop_with_a_run_in_flight(tmp: Path, how: str) -> Stopped:
    """(c) A TREE-HEDGE run of 200,000 trials in a run worker (a page's link ``run=1`` started it),
    some way into it."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ClientState_pb2 import ClientState

    db = tmp / "runs.sqlite"
    served, port = _serve(_env(tmp, cache_copy(tmp / "cache")))
    browsers = Browsers()
    try:
        assert served.wait_for(r"URL: http://127\.0\.0\.1", 300), served.output

        async def launch():
            tab = await _tab(browsers, f"http://127.0.0.1:{port}", "student")
            msg = BackMsg(rerun_script=ClientState(query_string="tree=random:200:1&trials=200000&run=1",
                                                   page_name="tree_hedge"))
            await tab._conn.write_message(msg.SerializeToString(), binary=True)

        browsers.do(launch())
        end = time.monotonic() + 240
        while time.monotonic() < end and not any(r[1] == "running" and (r[2] or 0) > 0.02 for r in _runs(db)):
            served.pause(0.3)
        flying = [r for r in _runs(db) if r[1] == "running"]
        assert flying, (_runs(db), served.output)
        out = served.stop(how)
        out.notes["runs"] = _runs(db)
        out.notes["flying"] = [r[0] for r in flying]
        return out
    finally:
        browsers.close()
        served.kill()


def stop_during_a_class(tmp: Path, how: str) -> Stopped:
    """(d) A live class: the lecturer leads "Belief propagation by hand" at its step 2, three
    students joined and follow it (their pages' long polls open), nobody acting."""
    from benchmarks.class_scenario import LESSON, TOKEN
    from engine.classroom import ClassStore, lecturer_key

    db = tmp / "runs.sqlite"
    served, port = _serve(_env(tmp, cache_copy(tmp / "cache"), TREE_WORKBENCH_LECTURER_TOKEN=TOKEN))
    browsers = Browsers()
    try:
        assert served.wait_for(r"URL: http://127\.0\.0\.1", 300), served.output
        url = f"http://127.0.0.1:{port}"

        async def teach():
            lect = await _tab(browsers, url, "lecturer")
            await lect.run()
            await lect.sign_in(TOKEN)
            await lect.run([lect.button(f"lesson_lead_{LESSON}")])
            store = ClassStore(db)
            try:
                code = store.classes(lecturer=lecturer_key(TOKEN))[0].code
            finally:
                store.close()
            await lect.run([lect.button("class_go")])
            await lect.run([lect.button("lesson_next")])
            students = [await _tab(browsers, url, f"student{i}") for i in range(3)]
            await asyncio.gather(*(s.run(query=f"class={code}", timeout=240) for s in students))
            end = time.monotonic() + 120   # each student's page follows the class (its long poll open)
            while time.monotonic() < end and not all(s.follow for s in students):
                await asyncio.sleep(0.2)
            return [bool(s.follow) for s in students]

        following = browsers.do(teach())
        assert all(following), (following, served.output)
        served.pause(2.0)
        out = served.stop(how)
        out.notes["students"] = len(following)
        return out
    finally:
        browsers.close()
        served.kill()


def stop_a_hall(tmp: Path, how: str) -> Stopped:
    """(e) ``make run WORKERS=2``: two app processes behind nginx, a browser connected through it."""
    port = free_port(room=2)
    env = _env(tmp, cache_copy(tmp / "cache"), TREE_WORKBENCH_RUN_WORKERS="1")
    served = Served([sys.executable, "-m", "workbench.hall", "--workers", "2", "--port", str(port)], env)
    browsers = Browsers()
    try:
        end = time.monotonic() + 600
        while time.monotonic() < end and not all(_healthy(p) for p in (port, port + 1, port + 2)):
            assert served.proc.poll() is None, served.output
            served.pause(0.5)
        assert all(_healthy(p) for p in (port, port + 1, port + 2)), served.output

        async def visit():
            tab = await _tab(browsers, f"http://127.0.0.1:{port}", "student")
            await tab.run(timeout=240)

        browsers.do(visit())
        served.pause(1.0)
        return served.stop(how)
    finally:
        browsers.close()
        served.kill()


MOMENTS = {
    "(a) the warm-up, compiling the first pages' kernels": stop_in_warm_up,
    "(a) a later start's warm-up, the run workers spawning beside it": stop_in_a_later_warm_up,
    "(b) serving, the online model's walks compiling beside the server": stop_while_online_walks_compile,
    "(b) serving, the run workers compiling the learning kernels": stop_while_run_workers_prepare,
    "(c) a learning run in flight in a run worker": stop_with_a_run_in_flight,
    "(d) a live class: the lecturer and 3 students following": stop_during_a_class,
    "(e) a hall of 2 app processes behind nginx (WORKERS=2)": stop_a_hall,
}


def check(out: Stopped, says: str) -> None:
    """What every stop promises: ended in time, one line (``says`` in it), no traceback, nothing left."""
    assert out.seconds <= STOP_WITHIN and out.gone <= STOP_WITHIN, (out.seconds, out.gone, out.after)
    assert out.returncode == 0, (out.returncode, out.after)
    assert "Traceback" not in out.output, out.output[-4000:]
    assert len(out.after) <= MAX_LINES, out.after
    assert any(line.startswith("stopped (") and says in line for line in out.after), out.after
    assert not out.left, out.left


# ---------------------------------------------------------------------- the tests
@pytest.mark.parametrize("how", list(HOWS))
def test_a_stop_during_the_warm_up(tmp_path, how):
    check(stop_in_warm_up(tmp_path, how), "during the warm-up")


@pytest.mark.parametrize("how", list(HOWS))
def test_a_stop_during_a_later_warm_up_ends_the_run_workers_spawned_early(tmp_path, how):
    out = stop_in_a_later_warm_up(tmp_path, how)
    check(out, "during the warm-up")
    assert out.notes["spawned"] >= 3, out.notes   # the server, the manager, a run worker: all ended
    assert out.seconds < 4.2, out.seconds          # in order, not killed at the stop's deadline (4.5 s)


@pytest.mark.parametrize("how", list(HOWS))
def test_a_stop_while_the_online_walks_compile_beside_the_server(tmp_path, how):
    check(stop_while_online_walks_compile(tmp_path, how), "the online model's walks were still compiling")


@pytest.mark.parametrize("how", list(HOWS))
def test_a_stop_while_the_run_workers_compile(tmp_path, how):
    check(stop_while_run_workers_prepare(tmp_path, how), "the learning algorithms were still compiling")


@pytest.mark.parametrize("how", list(HOWS))
def test_a_stop_records_the_run_in_flight_interrupted(tmp_path, how):
    out = stop_with_a_run_in_flight(tmp_path, how)
    check(out, "1 run in flight recorded as interrupted")
    runs = {r[0]: r for r in out.notes["runs"]}
    for rid in out.notes["flying"]:
        assert runs[rid][1] == "interrupted", out.notes["runs"]
        assert "the server stopped" in (runs[rid][3] or ""), out.notes["runs"]


@pytest.mark.parametrize("how", list(HOWS))
def test_a_stop_during_a_live_class(tmp_path, how):
    check(stop_during_a_class(tmp_path, how), "after serving")


@pytest.mark.parametrize("how", list(HOWS))
def test_a_stop_of_a_hall(tmp_path, how):
    if shutil.which("nginx") is None and not os.access("/usr/sbin/nginx", os.X_OK):
        pytest.skip("nginx is not installed (apt-get install nginx)")
    check(stop_a_hall(tmp_path, how), "the hall's 2 app processes and nginx ended")


_CHILD = """
import signal, sys, time
from workbench.serve import stop_with_make
signal.signal(signal.SIGTERM, lambda *a: (print("stopped by SIGTERM", flush=True), sys.exit(0)))
stop_with_make()
print("serving", flush=True)
time.sleep(60)
"""

_PARENT = """
import ctypes, subprocess, sys, time
if sys.argv[2] == "make":
    ctypes.CDLL(None).prctl(15, b"make", 0, 0, 0)   # PR_SET_NAME: this process is called make
subprocess.Popen([sys.executable, "-c", sys.argv[1]])
time.sleep(60)
"""


@pytest.mark.parametrize("parent", ["make", "python"])
def test_a_server_under_make_stops_when_make_is_ended(parent):
    """``kill -TERM`` to make's pid ends make only (GNU make does not pass it on): the server then
    gets SIGTERM as its parent ends (``workbench.serve.stop_with_make``); under another parent,
    nothing changes."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", _PARENT, _CHILD, parent], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end and "serving\n" not in lines:
            time.sleep(0.1)
        assert lines == ["serving\n"], lines
        proc.send_signal(signal.SIGTERM)   # the parent only
        proc.wait(10)
        time.sleep(2)
        assert lines == (["serving\n", "stopped by SIGTERM\n"] if parent == "make" else ["serving\n"]), lines
    finally:
        for p in _processes().values():
            if p["sid"] == proc.pid:
                os.kill(p["pid"], signal.SIGKILL)


# ---------------------------------------------------------------------- the table of docs/hardening.md
def make_run(tmp: Path, how: str) -> Stopped:
    """``make run`` serving (a warm cache), stopped by a Ctrl-C to make's process group, or by a
    SIGTERM to make's own pid (which make does not pass on: the server stops as its parent ends,
    ``workbench.serve.stop_with_make``)."""
    port = free_port()
    env = _env(tmp, cache_copy(tmp / "cache"))
    plan = subprocess.run(["make", "-n", "--no-print-directory", "run", f"PORT={port}"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60).stdout.strip().splitlines()
    if len(plan) != 1 or "workbench.serve" not in plan[0]:   # make would install first: not here
        raise RuntimeError(f"make run would do more than start the server: {plan}")
    served = Served(["make", "--no-print-directory", "run", f"PORT={port}"], env)
    try:
        assert served.wait_for(r"URL: http://127\.0\.0\.1", 300), served.output
        served.pause(1.0)
        return served.stop(how)
    finally:
        served.kill()


def main(argv: list[str]) -> int:
    import tempfile

    load = [round(x, 2) for x in os.getloadavg()]
    rows = []
    for moment, fn in MOMENTS.items():
        for how, said in HOWS.items():
            with tempfile.TemporaryDirectory(prefix="wb-stop-") as tmp:
                out = fn(Path(tmp), how)
            rows.append((moment, said, out))
            print(f"{moment} / {said}: {out.seconds:.2f} s, {len(out.after)} line(s), left {out.left}",
                  file=sys.stderr, flush=True)
    if "--make" in argv:
        for how, said in (("int-group", "SIGINT to make's process group (Ctrl-C)"),
                          ("term-server", "SIGTERM to make's pid")):
            with tempfile.TemporaryDirectory(prefix="wb-stop-") as tmp:
                rows.append(("`make run`, serving", said, make_run(Path(tmp), how)))
    print(f"`python -m tests.test_stop{' --make' if '--make' in argv else ''}`, "
          f"{time.strftime('%Y-%m-%d')}, {W.core_count()} cores, load average {load[0]} at the start")
    print()
    print("| moment | signal | seconds to exit | every process ended | lines after the signal | processes left "
          "| what it printed |")
    print("|---|---|---:|---:|---:|---:|---|")
    for moment, said, out in rows:
        printed = " / ".join(f"`{line}`" for line in out.after) or "(nothing)"
        tb = " **Traceback**" if "Traceback" in out.output else ""
        print(f"| {moment} | {said} | {out.seconds:.1f} | {out.gone:.1f} | {len(out.after)} | {len(out.left)} "
              f"| {printed}{tb} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
