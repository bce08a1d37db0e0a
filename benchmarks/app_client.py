"""Drive a running Workbench app without a browser: start a server, and simulated students that
speak Streamlit's websocket protocol (``streamlit.proto`` BackMsg / ForwardMsg) from asyncio.

A :class:`Student` connects to ``ws://127.0.0.1:PORT/_stcore/stream``, asks for a page (a
``rerun_script`` BackMsg naming the page) and reads ForwardMsgs until ``script_finished``. It keeps
every widget's id (Streamlit's ids end in ``-<key>``) and the fragment the widget belongs to, so a
later :meth:`Student.rerun` can press a button, set a slider or select a point of a Plotly chart as
a browser would: one BackMsg with the widget's state, scoped to the fragment when the widget is in
one. Everything is bounded: each wait has a timeout, each client one connection, 127.0.0.1 only.

Used by ``benchmarks/bench_app.py`` and by the rerun-storm test.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["free_port", "serve", "serve_hall", "health_ms", "HealthPoll", "Student", "Outcome", "ROOT", "run_async",
           "new_element", "app_dirs", "commit_of"]

ROOT = Path(__file__).resolve().parent.parent


def app_dirs(ap, text: str, most: int) -> list[Path]:
    """The app folders of a ``--compare DIR,DIR,...`` flag, or ``ap.error`` naming the culprit: 1 to
    ``most`` of them, each with an app.py."""
    dirs = [Path(x.strip()).resolve() for x in text.split(",") if x.strip()]
    missing = [str(d) for d in dirs if not (d / "app.py").is_file()]
    if not 1 <= len(dirs) <= most or missing:
        ap.error(f"--compare takes 1 to {most} app folders, each with an app.py"
                 f"{': not ' + ', '.join(missing) if missing else ''}")
    return dirs


def commit_of(app_dir: Path) -> str | None:
    """The short commit of the checkout ``app_dir`` (None: not a git checkout)."""
    return subprocess.run(["git", "-C", str(app_dir), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip() or None


def free_port(span: int = 1, attempts: int = 50) -> int:
    """A 127.0.0.1 port free now, with the ``span - 1`` ports after it free too (a hall takes
    ``port..port + workers``); ``OSError`` when ``attempts`` tries find none."""
    for _ in range(attempts):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + span - 1 <= 65535 and all(_free(port + i) for i in range(1, span)):
            return port
    raise OSError(f"no {span} free ports in a row on 127.0.0.1 after {attempts} tries")


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def health_ms(url: str, timeout: float = 30.0) -> float:
    """Milliseconds for one ``GET /_stcore/health`` (``timeout * 1000`` when it does not answer)."""
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=timeout) as r:
            r.read()
    except OSError:
        return timeout * 1000.0
    return (time.perf_counter() - t0) * 1000.0


def wait_for_warm_up(log_path: Path, timeout: float = 300.0) -> float:
    """Seconds until the server logging to ``log_path`` says its lessons' runs are ready (the end of
    its warm-up: until then its run workers take the cores a page is timed on); at most ``timeout``."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if log_path.exists() and "[warm-up] the lessons'" in log_path.read_text(errors="replace"):
            break
        time.sleep(0.5)
    return time.perf_counter() - t0


def run_async(make_coro, timeout: float = 600.0):
    """``asyncio.run(make_coro())`` in a thread of its own, so that it works beside a running event
    loop (Playwright's sync API keeps one in the main thread); its result, or its exception."""
    import threading

    out: dict = {}

    def target():
        try:
            out["value"] = asyncio.run(asyncio.wait_for(make_coro(), timeout))
        except BaseException as exc:  # handed to the caller
            out["error"] = exc

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(timeout + 30)
    if "error" in out:
        raise out["error"]
    if "value" not in out:
        raise TimeoutError(f"did not finish within {timeout:.0f} s")
    return out["value"]


class HealthPoll:
    """``with HealthPoll(url, every=0.25) as times:`` polls ``/_stcore/health`` from a thread while
    the block runs; ``times`` holds the milliseconds of every answer."""

    def __init__(self, url: str, every: float = 0.25):
        import threading

        self.url, self.every = url, every
        self.times: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.is_set():
            self.times.append(health_ms(self.url, timeout=10))
            self._stop.wait(self.every)

    def __enter__(self) -> list[float]:
        self._thread.start()
        return self.times

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(15)


def server_command(app_dir: Path, port: int) -> list[str]:
    """How to start the app in ``app_dir``: the warm-up launcher when the tree has one (it compiles
    the kernels and warms the caches before it accepts a session), else plain ``streamlit run``."""
    if (Path(app_dir) / "workbench" / "serve.py").is_file():
        return [sys.executable, "-m", "workbench.serve", "--port", str(port), "--address", "127.0.0.1"]
    return [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
            "--server.port", str(port), "--server.address", "127.0.0.1",
            "--browser.gatherUsageStats", "false"]


@contextlib.contextmanager
def _launched(command: list[str], app_dir: Path, *, what: str, healthy, env: dict | None, log_path: Path | None,
              start_timeout: float, poll: float, stop_timeout: float):
    """Run ``command`` in ``app_dir`` in a process group of its own; yield the seconds until
    ``healthy()`` is true; stop the process and its group. ``what`` names it in the errors."""
    log = open(log_path, "w") if log_path else subprocess.DEVNULL
    full_env = dict(os.environ if env is None else env)
    full_env["PYTHONPATH"] = str(app_dir)   # this tree's engine and workbench, not an installed one
    # as `make run` starts it (the Makefile unexports it): with it set (some machines set it for every
    # shell), each start compiled every module from source again and the server's imports in the
    # background competed with the first students measured
    full_env.pop("PYTHONDONTWRITEBYTECODE", None)
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, cwd=app_dir, env=full_env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        deadline = t0 + start_timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the {what} exited with status {proc.returncode} before it was healthy"
                                   + (f" (log: {log_path})" if log_path else ""))
            if healthy():
                break
            if time.perf_counter() > deadline:
                raise RuntimeError(f"the {what} was not healthy within {start_timeout:.0f} s")
            time.sleep(poll)
        yield time.perf_counter() - t0
    finally:
        proc.terminate()
        try:
            proc.wait(stop_timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        _reap_group(proc.pid)
        if log_path:
            log.close()


@contextlib.contextmanager
def serve(app_dir: Path = ROOT, *, env: dict | None = None, log_path: Path | None = None,
          start_timeout: float = 180.0):
    """Start the app on a free 127.0.0.1 port; yield ``(url, seconds until healthy)``; stop it."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with _launched(server_command(app_dir, port), app_dir, what="app", env=env, log_path=log_path,
                   healthy=lambda: health_ms(url, timeout=2) < 2000,
                   start_timeout=start_timeout, poll=0.2, stop_timeout=15) as seconds:
        yield url, seconds


def _reap_group(pgid: int) -> None:
    """The server's run workers, left orphaned in its process group once it has stopped."""
    import signal

    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@contextlib.contextmanager
def serve_hall(app_dir: Path = ROOT, processes: int = 2, *, env: dict | None = None, log_path: Path | None = None,
               start_timeout: float = 900.0):
    """Start ``processes`` app processes behind nginx (``python -m workbench.hall``) on free 127.0.0.1
    ports; yield ``(url of nginx, seconds until every process is healthy)``; stop them all."""
    port = free_port(span=processes + 1)   # nginx, then one port per process
    url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        return (all(health_ms(f"http://127.0.0.1:{port + 1 + i}", timeout=2) < 2000 for i in range(processes))
                and health_ms(url, timeout=2) < 2000)

    command = [sys.executable, "-m", "workbench.hall", "--workers", str(processes), "--port", str(port)]
    with _launched(command, app_dir, what="hall", env=env, log_path=log_path, healthy=healthy,
                   start_timeout=start_timeout, poll=0.5, stop_timeout=40) as seconds:
        yield url, seconds


def new_element(delta) -> tuple[str, object] | None:
    """The kind and body of the element a ``ForwardMsg.delta`` draws (``"markdown"``, ``"exception"``,
    a widget, ...), or None when the delta draws none."""
    if delta.WhichOneof("type") != "new_element":
        return None
    el = delta.new_element
    kind = el.WhichOneof("type")
    return None if kind is None else (kind, getattr(el, kind))


@dataclass
class Outcome:
    """One script run as the client saw it."""

    seconds: float
    ok: bool
    errors: list[str] = field(default_factory=list)
    status: str = ""


@dataclass
class _Widget:
    id: str
    kind: str
    fragment: str


class Student:
    """One simulated browser tab on one websocket."""

    def __init__(self, url: str, *, timeout: float = 60.0):
        self.ws_url = url.replace("http://", "ws://") + "/_stcore/stream"
        self.timeout = timeout
        self.widgets: dict[str, _Widget] = {}   # user key -> widget
        self.texts: list[str] = []              # markdown / heading bodies of the last run
        self.elements: dict[tuple, object] = {}
        self.page_name = ""
        self._conn = None

    async def connect(self) -> None:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        req = HTTPRequest(self.ws_url, connect_timeout=self.timeout, request_timeout=self.timeout)
        self._conn = await asyncio.wait_for(
            websocket_connect(req, subprotocols=["streamlit"], max_message_size=256 * 2**20),
            self.timeout)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    async def open(self, page_name: str) -> Outcome:
        """Ask for a page (its url path; "" for the first page) as a fresh tab does."""
        self.page_name = page_name
        return await self._rerun([], fragment="")

    async def press(self, key: str) -> Outcome:
        """Click the button with this key."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        w = self._widget(key)
        return await self._rerun([WidgetState(id=w.id, trigger_value=True)], w.fragment)

    async def set_value(self, key: str, value) -> Outcome:
        """Set a widget's value: a number (slider, number input), or a string (selectbox and
        text input: Streamlit sends the option's text)."""
        from streamlit.proto.Common_pb2 import DoubleArray, StringArray
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        w = self._widget(key)
        if w.kind == "slider":
            state = WidgetState(id=w.id, double_array_value=DoubleArray(data=[float(value)]))
        elif w.kind == "number_input":
            state = (WidgetState(id=w.id, int_value=value) if isinstance(value, int)
                     else WidgetState(id=w.id, double_value=float(value)))
        elif w.kind in ("selectbox", "radio"):
            state = WidgetState(id=w.id, string_array_value=StringArray(data=[str(value)]))
            if w.kind == "radio":
                state = WidgetState(id=w.id, string_value=str(value))
        elif w.kind == "text_input":
            state = WidgetState(id=w.id, string_value=str(value))
        else:
            raise ValueError(f"cannot set a {w.kind} widget ({key})")
        return await self._rerun([state], w.fragment)

    async def select_point(self, key: str, vertex: int, *, curve: int = 1) -> Outcome:
        """A click on a Plotly chart's point whose ``customdata`` is ``vertex``."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        w = self._widget(key)
        point = {"curve_number": curve, "point_number": vertex, "point_index": vertex,
                 "customdata": vertex, "x": 0.0, "y": 0.0}
        value = json.dumps({"selection": {"points": [point], "point_indices": [vertex], "box": [],
                                          "lasso": []}})
        return await self._rerun([WidgetState(id=w.id, string_value=value)], w.fragment)

    async def fire(self, key: str, value: float) -> None:
        """Send a new slider value without waiting for the rerun (a held arrow key)."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ClientState_pb2 import ClientState
        from streamlit.proto.Common_pb2 import DoubleArray
        from streamlit.proto.WidgetStates_pb2 import WidgetState, WidgetStates

        w = self._widget(key)
        state = WidgetState(id=w.id, double_array_value=DoubleArray(data=[float(value)]))
        msg = BackMsg(rerun_script=ClientState(page_name=self.page_name, fragment_id=w.fragment,
                                               widget_states=WidgetStates(widgets=[state])))
        await self._conn.write_message(msg.SerializeToString(), binary=True)

    async def drain(self, quiet: float = 1.0, limit: float = 120.0) -> dict:
        """Read until the server has been quiet for ``quiet`` seconds (at most ``limit``); counts
        of the script runs that ended, by status, and the errors seen."""

        counts: dict[str, int] = {}
        errors: list[str] = []
        end = time.perf_counter() + limit
        while time.perf_counter() < end:
            try:
                raw = await asyncio.wait_for(self._conn.read_message(), quiet)
            except asyncio.TimeoutError:
                break
            if raw is None:
                errors.append("connection closed")
                break
            status = self._read(raw, errors)
            if status is not None:
                counts[status] = counts.get(status, 0) + 1
        return {"runs": counts, "errors": errors}

    def _widget(self, key: str) -> _Widget:
        w = self.widgets.get(key)
        if w is None:
            raise KeyError(f"no widget with key {key!r} on page {self.page_name!r} "
                           f"(seen: {', '.join(sorted(self.widgets)) or 'none'})")
        return w

    async def _rerun(self, states, fragment: str) -> Outcome:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ClientState_pb2 import ClientState
        from streamlit.proto.WidgetStates_pb2 import WidgetStates

        msg = BackMsg(rerun_script=ClientState(
            query_string="", page_script_hash="", page_name=self.page_name, fragment_id=fragment,
            widget_states=WidgetStates(widgets=list(states))))
        errors: list[str] = []
        if not fragment:
            self.texts = []
        t0 = time.perf_counter()
        await self._conn.write_message(msg.SerializeToString(), binary=True)
        deadline = t0 + self.timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                return Outcome(time.perf_counter() - t0, False, errors + ["timed out"], "timeout")
            try:
                raw = await asyncio.wait_for(self._conn.read_message(), left)
            except asyncio.TimeoutError:
                continue
            if raw is None:
                return Outcome(time.perf_counter() - t0, False, errors + ["connection closed"], "closed")
            status = self._read(raw, errors)
            if status is not None:
                if status == "FINISHED_EARLY_FOR_RERUN":
                    continue
                ok = status in ("FINISHED_SUCCESSFULLY", "FINISHED_FRAGMENT_RUN_SUCCESSFULLY") and not errors
                return Outcome(time.perf_counter() - t0, ok, errors, status)

    def _read(self, raw: bytes, errors: list[str]):
        """Take in one ForwardMsg; the script-finished status when it is one, else None."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        fm = ForwardMsg()
        fm.ParseFromString(raw)
        kind = fm.WhichOneof("type")
        if kind == "delta":
            self._read_delta(fm, errors)
        elif kind == "page_not_found":
            errors.append(f"page not found: {self.page_name!r}")
        elif kind == "script_finished":
            return ForwardMsg.ScriptFinishedStatus.Name(fm.script_finished)
        return None

    def _read_delta(self, fm, errors: list[str]) -> None:
        d = fm.delta
        drawn = new_element(d)
        if drawn is None:
            return
        kind, body = drawn
        if kind == "exception":
            errors.append(f"{body.type}: {body.message}")
            return
        if kind == "alert" and body.format == 1:   # st.error
            errors.append(f"error shown: {body.body}")
        if kind in ("markdown", "heading"):
            self.texts.append(body.body)
        wid = getattr(body, "id", "")
        if isinstance(wid, str) and wid.startswith("$$ID-"):
            key = wid.split("-", 2)[2]
            if key and key != "None":
                self.widgets[key] = _Widget(wid, kind, d.fragment_id)
