"""Start the Workbench for a class: the first pages warmed up, then serve; the rest compiles behind.

    python -m workbench.serve [--port 8501] [--address 127.0.0.1] [--tree FILE_OR_SPEC] [--no-warm-up]

Before the server accepts its first session (its health check answers only then), this process

1. points numba's on-disk cache at ``NUMBA_CACHE_DIR`` (default ``.numba_cache`` beside ``app.py``)
   and compiles, or loads from that cache, the kernels of the first pages (trees, covers, belief
   propagation: :data:`engine.warmup.SERVE`), in one process per core on a fresh install; when
   the cache also holds the online model's walks (:data:`engine.warmup.SOON`), it loads them too,
   else their plain-Python build stands in for them (``engine.jit.defer``);
2. renders the first pages once, headless (``streamlit.testing.v1.AppTest``, a real script run in
   this process): the heavy modules are imported and the caches every session shares are filled
   (samples, the class tree, its figures);
3. freezes the objects made so far out of the garbage collector's reach (``gc.freeze``), so that a
   full collection while serving walks only what the sessions made;
4. lightens what Streamlit does on every run (:func:`lighter_runtime`) and lets two script runs go
   on at once, the others waiting for a turn (:mod:`workbench.turns`); keeps a file a download
   button made on its click until its session's next whole run (:func:`lasting_downloads`); gives
   every browser its owner cookie with its first websocket (:func:`owner_cookie`).

Then it runs ``streamlit run app.py`` in this same process, so the compiled kernels and the warm
caches serve the first student as they serve the thirtieth. Beside the server, a thread compiles
the online model's walks in one process per core (a fresh install: until they are loaded here,
Online Marginals runs the very same walks as plain Python, and its models change to the compiled
ones at their next operation: no page waits for a compile), then starts the pool of run workers
(:mod:`workbench.runner`), which compile the learning kernels (:data:`engine.warmup.BEHIND`): a run
launched before they are done waits and says "preparing". The log has one line per step, with its
time and an estimate of what is left: the first for the machine's load, then never more than the
last said (``engine.warmup.Countdown``). ``make run`` and the container use it.

A Ctrl-C (the terminal sends SIGINT to ``make``, this process and its children) or a SIGTERM
(systemd, docker) stops it at any moment within 5 s, with one line ("stopped (...) ..."), no
traceback and no process left (:class:`_Stop`): during the warm-up its compile processes are ended;
once it serves, the server stops as Streamlit stops it, the online model's compile processes are
ended and the run workers stopped, a run in flight recorded ``interrupted``.
"""

from __future__ import annotations

import argparse
import collections
import collections.abc
import contextlib
import gc
import importlib
import logging
import os
import signal
import sys
import threading
import time
import traceback
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

__all__ = ["main", "warm_up", "APP", "FIRST_SECTIONS", "server_flags", "stop_with_make"]

APP = Path(__file__).resolve().parent.parent / "app.py"
#: The sections of the navigation whose pages are rendered before the server opens its port.
FIRST_SECTIONS = ("Start", "Trees", "Inference")
#: Seconds the first pages took to render on the 2-core test machine (the estimate before this
#: machine has measured its own; docs/benchmarks.md, "The first minute").
_PAGES_COST = 8.0


def _say(msg: str) -> None:
    print(f"[warm-up] {msg}", flush=True)


def warm_up(*, pages: bool = True, say=_say, before_pages: threading.Event | None = None) -> dict:
    """Compile (or load) the kernels of the first pages and render those pages once; seconds per
    step, and under ``"later"`` the ``SOON`` stages left to compile after the port opens (their
    plain-Python build stands in for them meanwhile: ``engine.jit.defer``)."""
    from engine import jit
    from engine import warmup as W

    names = W.stage_names(W.SERVE)
    later = W.stage_names(W.SOON)
    if W.is_warm(names + later):   # a later start: everything the first pages call, loaded now
        names, later = names + later, []
    jit.defer(*W.stand_ins(later))
    out: dict = {"later": later}
    t0 = time.perf_counter()
    pages_left = W.remembered("pages", _PAGES_COST) if pages else 0.0
    # what is left, as the log says it: the first estimate for the machine's load now, then from the
    # speed measured, never more than said before (engine.warmup.Countdown)
    clock = None
    if not W.is_warm(names):
        workers = min(W.core_count(), len(names))
        clock = W.Countdown((W.estimate_seconds(names, workers) + pages_left) * W.busy_factor(workers))
        say(f"first start after an install: compiling the kernels of the first pages in {workers} processes, "
            f"{clock.text()}")
        done: dict = {}

        def compiled(name: str, seconds: float, left: list) -> None:
            done[name] = seconds
            clock.update(W.estimate_seconds(left, workers, W.speed(done)) + pages_left)
            say(f"compiled {W.label(name)}: {seconds:.1f} s · {clock.text()}")

        W.compile_stages(names, workers=workers, on_done=compiled)
    W.load_stages(names)
    out["kernels_s"] = round(time.perf_counter() - t0, 2)
    if clock is None:
        clock = W.Countdown(pages_left * W.busy_factor(1))
    else:
        clock.update(pages_left)
    say(f"kernels of the first pages ready: {out['kernels_s']:.1f} s"
        + (f" · {clock.text()}" if pages else ""))
    if pages:
        if before_pages is not None:   # the run workers spawned early: under a bare __main__, not a page's
            before_pages.wait(30)
        t0 = time.perf_counter()
        out["pages"] = _render_pages()
        out["pages_s"] = round(time.perf_counter() - t0, 2)
        W.remember("pages", out["pages_s"])
        failed = {t: r for t, r in out["pages"].items() if isinstance(r, str)}
        for title, why in failed.items():
            say(f"page {title} could not be warmed up: {why}")
        say(f"first pages rendered ({', '.join(out['pages'])}): {out['pages_s']:.1f} s")
        from workbench import runner

        if os.environ.get(runner.LESSON_RUNS_ENV, "").strip() != "0":
            # the learning algorithms the lessons' runs ahead call (workbench.runner.lesson_runs)
            # imported now, before anyone waits: imported once the port was open, their modules
            # (SciPy's statistics among them) were a twelfth of the server's time while the first
            # class followed its lecturer (py-spy --gil, bench_app --only-class, 2 December 2026)
            t0 = time.perf_counter()
            try:
                runner.lesson_runs()
            except Exception as exc:  # noqa: BLE001 - the runs ahead say it again when they start
                say(f"the lessons' runs could not be prepared: {type(exc).__name__}: {exc}")
            out["lesson_runs_s"] = round(time.perf_counter() - t0, 2)
    return out


def _render_pages() -> dict:
    """The first pages of the navigation, once, headless (errors are reported, not raised)."""
    from streamlit.testing.v1 import AppTest

    from workbench.declarations.page_table import PAGES
    from workbench.navigation import script

    done = {}
    # AppTest's constructor writes its own session state from this thread, outside any script run:
    # the one "missing ScriptRunContext" warning that write logs is not about the app (the page
    # runs below happen in AppTest's script thread, with their context)
    ctx_log = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")
    level = ctx_log.level
    ctx_log.setLevel(logging.ERROR)
    try:
        at = AppTest.from_file(str(APP), default_timeout=300)
    finally:
        ctx_log.setLevel(level)
    at.run()
    for spec in PAGES.values():
        if spec.section not in FIRST_SECTIONS:
            continue
        title = spec.title
        t0 = time.perf_counter()
        try:
            at.switch_page(script(spec))
            at.run()
            done[title] = "error: " + str(at.exception[0].message)[:200] if at.exception else \
                round(time.perf_counter() - t0, 2)
        except Exception as exc:   # a page that cannot warm up still serves; say why
            done[title] = f"error: {type(exc).__name__}: {exc}"[:200]
    return done


def server_flags(port: int, address: str) -> dict:
    """The Streamlit options this launcher serves with (besides .streamlit/config.toml)."""
    return {"server.port": port, "server.address": address, "server.headless": True,
            "browser.gatherUsageStats": False,
            # a class server runs code that does not change: no file watching, no rerun on save
            "server.fileWatcherType": "none", "server.runOnSave": False,
            # Streamlit's default runs a full garbage collection after every script run: on this
            # process's heap (numba, plotly, pandas) that was 130-150 ms of CPU per click, with the
            # interpreter held (the event loop and every other student waited), 90% of all the
            # server's work. Python's own collector still runs as usual.
            "runner.postScriptGC": False}


def lighter_runtime() -> None:
    """Three costs Streamlit pays all the time that a class server does not need, measured with 30
    students following a class (each follower's page reruns a small fragment every second):

    - every script run, a fragment's too, sends the session's theme, read by walking every config
      option for each theme section: 15 % of the server's idle CPU. The sections are read once
      here and again only when the configuration is parsed again;
    - every element a script sends reads one option (``global.minCachedMessageSize``) under the
      configuration's lock. A script thread that loses the interpreter while it holds that lock
      makes every other script that sends an element wait for it: with 30 students following a
      move, a fifth of the script threads' samples were waits on it (docs/benchmarks.md). Here an
      option is read without the lock from the options of the last whole parse (a parse in
      progress fills a new set, which is read once it is done; a value set later is seen);
    - the configuration and secrets files are polled for changes every 0.2 s (a class server reads
      them at start; ``runOnSave`` is off): every 2 s here."""
    from streamlit import config
    from streamlit.watcher import polling_path_watcher

    polling_path_watcher._POLLING_PERIOD_SECS = 2.0
    read = config.get_options_for_section
    if getattr(read, "__wrapped__", None) is not None:
        return
    get_option = config.get_option
    parsed = [config._config_options]   # the options of the last whole parse

    def reparsed() -> None:   # called at the end of a parse (under the lock)
        parsed[0] = config._config_options

    def option(key: str):
        found = parsed[0].get(key) if parsed[0] is not None else None
        return found.value if found is not None else get_option(key)

    option.__wrapped__ = get_option
    config.get_option = option
    config.on_config_parsed(reparsed, force_connect=True)
    memo: dict[str, dict] = {}

    def options_for_section(section: str) -> dict:
        got = memo.get(section)
        if got is None:
            got = memo[section] = read(section)
        return dict(got)

    options_for_section.__wrapped__ = read
    config.get_options_for_section = options_for_section
    config.on_config_parsed(memo.clear, force_connect=True)


def kept_scripts() -> None:
    """The pages' compiled scripts kept while the server runs. Streamlit compiles a page's script
    once (its "magic" rewrite of the syntax tree, then ``compile``) and keeps it, but throws every
    compiled script away when its last session disconnects (for file watchers, which this server
    does not run: its code does not change while it serves) and on every re-read of the
    configuration. A student alone, or the first visitor after a quiet moment, then waited for the
    app's and the page's scripts to be compiled again: half of a fresh session's script time on
    Online Marginals at 10^5 vertices (py-spy --gil, bench_views, 2 December 2026)."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache

    if getattr(ScriptCache.clear, "kept", False):
        return

    def clear(self) -> None:   # noqa: ARG001  (what is compiled stays valid: the files do not change)
        return None

    clear.kept = True
    ScriptCache.clear = clear


class _Handoff:
    """Callbacks from script threads run on the event loop in the order they came, with one wake-up
    of the loop per batch instead of one per callback (see :func:`batched_handoff`)."""

    def __init__(self, loop):
        self.loop = loop
        self._queue: collections.deque = collections.deque()
        self._lock = threading.Lock()
        self._pending = False

    def push(self, callback) -> None:
        with self._lock:
            self._queue.append(callback)
            if self._pending:
                return
            self._pending = True
        try:
            self.loop.call_soon_threadsafe(self.flush)
        except RuntimeError:   # the loop is closed: the server stops, as Streamlit drops them then
            with self._lock:
                self._queue.clear()
                self._pending = False
            if not self.loop.is_closed():
                raise

    def flush(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._pending = False
                    return
                batch = list(self._queue)
                self._queue.clear()
            for callback in batch:
                try:
                    callback()
                except Exception as exc:   # as the loop reports a callback's error, and go on
                    self.loop.call_exception_handler({"message": "a script runner event failed", "exception": exc})


def batched_handoff() -> None:
    """Hand a session's script events (every element a script draws is one) to the event loop in
    batches. Streamlit schedules each with ``call_soon_threadsafe``, which writes to the loop's
    wake-up pipe: a system call per element, during which the script thread lets the interpreter
    go and then waits for it again. With 30 students following a move, those waits were a sixth of
    the server's samples (py-spy, bench_app --only-class, 2 December 2026); batched, a burst of elements
    wakes the loop once. The callbacks run in the same order as before."""
    from streamlit.runtime.app_session import AppSession

    call = AppSession._call_soon_on_event_loop
    if getattr(call, "__wrapped__", None) is not None:
        return
    handoffs: dict[int, _Handoff] = {}
    made = threading.Lock()

    def call_soon_on_event_loop(self, callback) -> None:
        loop = self._event_loop
        handoff = handoffs.get(id(loop))
        if handoff is None or handoff.loop is not loop:
            with made:
                handoff = handoffs.get(id(loop))
                if handoff is None or handoff.loop is not loop:
                    handoff = handoffs[id(loop)] = _Handoff(loop)
        handoff.push(callback)

    call_soon_on_event_loop.__wrapped__ = call
    AppSession._call_soon_on_event_loop = call_soon_on_event_loop


def plain_membership() -> None:
    """``key in session_state`` without presenting the value. Streamlit answers it by reading the
    value as user code would see it, which for a v2 component (every tree view, every figure's
    accessible name) defines a new class on each read; a widget asks once per widget per run, and
    with 30 students clicking those reads were about 4 % of the server's samples (py-spy --gil,
    bench_app, 2 December 2026). The presenter never decides membership (Streamlit swallows its
    errors and returns the stored value): the stored value is looked up the same way, unpresented."""
    from streamlit.runtime.state.session_state import SessionState

    contains = SessionState.__contains__
    if getattr(contains, "__wrapped__", None) is not None:
        return

    def __contains__(self, key: str) -> bool:   # as SessionState.__getitem__, without the presenter
        widget_id = self._get_widget_id(key)
        ids = self._key_id_mapper.id_key_mapping
        if widget_id in ids and widget_id == key:
            key = ids[widget_id]
        try:
            self._getitem(widget_id, key)
        except KeyError:
            return False
        return True

    __contains__.__wrapped__ = contains
    SessionState.__contains__ = __contains__


class _WidgetLookups:
    """The session state as a widget sees it while it is drawn (``get_session_state()`` in
    Streamlit's widget modules), with ``filtered_state`` a :class:`_FilteredView`."""

    __slots__ = ("_safe",)

    def __init__(self, safe):
        self._safe = safe

    @property
    def filtered_state(self) -> "_FilteredView":
        return _FilteredView(self._safe)

    def __getattr__(self, name):
        return getattr(self._safe, name)


class _FilteredView(collections.abc.Mapping):
    """``filtered_state`` (every user key and keyed widget, by user key, values as user code
    sees them) answered one key at a time: a widget asks only whether its own key is set and to
    what. Built whole only when iterated."""

    __slots__ = ("_safe", "_whole")

    def __init__(self, safe):
        self._safe, self._whole = safe, None

    def __contains__(self, key) -> bool:
        from streamlit.runtime.state.common import is_element_id, is_keyed_element_id
        from streamlit.runtime.state.session_state import _is_internal_key

        if not isinstance(key, str):
            return False
        # as ``key in state._keys()`` (every stored key mapped to its widget's id: O(keys), and
        # 6 % of a class's server samples through the vertex box alone), asked of the few places
        # the key or its widget's id can be stored
        with self._safe._lock:
            state = self._safe._state
            stored = (state._old_state, state._new_session_state)
            wid = state._key_id_mapper.get_id_from_key(key)   # a keyed widget's, by its user key
            if wid is None:   # a key set by user code (a widget's ids are element ids)
                return not is_element_id(key) and not _is_internal_key(key) and any(key in s for s in stored)
            return (is_keyed_element_id(wid) and not _is_internal_key(wid)
                    and state._key_id_mapper.id_key_mapping.get(wid) == key
                    and (wid in state._new_widget_state or any(wid in s or key in s for s in stored)))

    def __getitem__(self, key):
        if key not in self:
            raise KeyError(key)
        with self._safe._lock:   # as filtered_state reads it (not through the script's yield check)
            return self._safe._state[key]

    def _all(self) -> dict:
        if self._whole is None:
            self._whole = self._safe.filtered_state
        return self._whole

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def widget_lookups() -> None:
    """A widget's look-up of its own key in the session state, one key instead of all. Streamlit's
    radio, slider, number input, select box, text and date widgets each read ``filtered_state``
    while they are drawn, to see whether user code set their key to None: that builds the whole
    state, every value presented (a v2 component's presenter defines a class on each call), once
    per widget per run: 4.5-5 % of the server's samples with 30 students clicking or following a
    class (py-spy --gil, bench_app, 2 December 2026). Here they get a view that answers for the
    key asked (the same answers: tests/test_class_cost.py)."""
    from streamlit.elements.widgets import number_input, radio, selectbox, slider, text_widgets, time_widgets

    for module in (number_input, radio, selectbox, slider, text_widgets, time_widgets):
        get = module.get_session_state
        if getattr(get, "__wrapped__", None) is not None:
            continue

        def lookups(_get=get):
            return _WidgetLookups(_get())

        lookups.__wrapped__ = get
        module.get_session_state = lookups


#: the follow route's endpoints this process serves (their long polls end when the server stops)
_FOLLOW_ENDPOINTS: list = []


def _end_long_polls() -> None:
    """Answer the long polls of the follow route now, and any asked from now on at once (without
    waiting for a change): the server stops, and it waits for every open request to be answered.
    Called in the server's event loop."""
    for answer in _FOLLOW_ENDPOINTS:
        watcher = getattr(answer, "watcher", None)
        wait = getattr(watcher, "wait", None)
        if wait is None:
            continue
        if getattr(wait, "__wrapped__", None) is None:
            def at_once(code, seen, hold, _wait=wait):
                return _wait(code, seen, 0)

            at_once.__wrapped__ = wait
            watcher.wait = at_once
        for event in list((getattr(watcher, "_events", None) or {}).values()):
            event.set()


def follow_route() -> None:
    """Add the live class's follow route (:mod:`workbench.follow`) to the server: a follower's
    browser learns there, by a long poll answered from one reader per process, that the class
    changed, and only then reruns its fragment."""
    from streamlit.web.server.starlette import starlette_app

    make = starlette_app.create_streamlit_routes
    if getattr(make, "__wrapped__", None) is not None:
        return

    def routes(runtime) -> list:
        from starlette.routing import Route
        from streamlit import config

        from workbench import classroom, follow

        path = follow.route_path(config.get_option("server.baseUrlPath") or "")
        answer = follow.endpoint(classroom.read_versions)
        _FOLLOW_ENDPOINTS.append(answer)
        return [Route(path, answer, methods=["GET"]), *make(runtime)]

    routes.__wrapped__ = make
    starlette_app.create_streamlit_routes = routes


def owner_cookie() -> None:
    """Put :class:`workbench.identity.OwnerCookie` in front of the server: every browser gets its
    owner token as an ``HttpOnly`` cookie with its first websocket, so no token travels in an address."""
    from starlette.middleware import Middleware
    from streamlit.web.server.starlette import starlette_app

    from workbench.identity import OwnerCookie

    make = starlette_app.create_streamlit_middleware
    if getattr(make, "__wrapped__", None) is not None:
        return

    def middleware() -> list:
        return [Middleware(OwnerCookie), *make()]

    middleware.__wrapped__ = make
    starlette_app.create_streamlit_middleware = middleware


def lasting_downloads() -> None:
    """A file made by a deferred download (a button whose data is made on its click: a class's
    answers as CSV) stays served until its session's next whole run, or its end. Streamlit leaves
    such a file referenced by no session, so the next two script runs to end, in any session,
    delete it: on a class server, where the lecturer's and the followers' fragments end several
    times a second, the browser's request for the file can come after that (a cancelled download;
    the class test saw one with three test processes on two cores). A click that reruns the page
    (Streamlit's default) ends that hold at once: the app's download buttons do not rerun
    (``on_click="ignore"``). Should a later Streamlit keep its files elsewhere, downloads go on as
    Streamlit makes them."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    make = MediaFileManager.execute_deferred
    if getattr(make, "__wrapped__", None) is not None:
        return

    def execute_deferred(self, file_id: str) -> str:
        entry = getattr(self, "_deferred_callables", {}).get(file_id)
        url = make(self, file_id)
        refs, files = getattr(self, "_files_by_session_and_coord", None), getattr(self, "_file_metadata", None)
        lock = getattr(self, "_lock", None)
        if entry is not None and isinstance(refs, collections.defaultdict) and files is not None and lock is not None:
            made = url.rsplit("/", 1)[-1].split(".", 1)[0]
            with lock:
                # held like a file the session's last run drew, one per button; not for a session
                # that ended while its file was being made (its callable is gone with it)
                if made in files and file_id in self._deferred_callables:
                    refs[entry["session_id"]][f"deferred {entry['coordinates']}"] = made
        return url

    execute_deferred.__wrapped__ = make
    MediaFileManager.execute_deferred = execute_deferred


def _compile_online(names: list[str]) -> None:
    """The online model's walks (``engine.warmup.SOON`` stages ``names``) compiled in one process
    per core, then called by this process (``engine.jit.release``) and loaded; until then their
    plain-Python build answers (``engine.jit.defer``), and should they fail to compile it goes on
    answering. A stop of the server ends the compile processes (:class:`_Stop`): nothing is said then."""
    from engine import jit
    from engine import warmup as W
    from workbench.runner import spawn_processes

    t0 = time.perf_counter()
    workers = min(W.core_count(), len(names))
    try:
        with STOP.lock:   # started, or not at all once the server stops (it ends them then)
            if STOP.asked:
                return
            executor = STOP.compiling = spawn_processes(workers)
        try:
            W.compile_stages(names, executor=executor, workers=workers)
        finally:
            with STOP.lock:
                STOP.compiling = None
            executor.shutdown(wait=True, cancel_futures=True)
        jit.release(*W.stand_ins(names))   # in the cache now: a model's next operation loads them
        W.load_stages(names)
        _say(f"online model ready: its walks compiled in {time.perf_counter() - t0:.0f} s (Online Marginals calls them "
             "from its next operation)")
    except BrokenProcessPool:   # a compile process was stopped (the server stopping with it) or killed
        if not STOP.asked:
            _say("the online model's walks were not compiled: a compile process stopped; Online Marginals "
                 "goes on with their plain-Python build")
    except Exception:  # noqa: BLE001 - the plain-Python build goes on answering; say why, in full
        if not STOP.asked:
            traceback.print_exc()
            _say("the online model's walks could not be compiled beside the server; Online Marginals goes on "
                 "with their plain-Python build")


#: what Plotly reads without importing it (``sys.modules.get``: _plotly_utils.basevalidators, a
#: figure's ``to_dict``, its JSON encoder): imported whole before any session runs
PEEKED_AT = ("pandas", "PIL.Image")


def whole_imports() -> None:
    """Import :data:`PEEKED_AT` before any session runs: a figure built in one script thread while
    another imports pandas for the first time would read a half-initialised module."""
    for name in PEEKED_AT:
        with contextlib.suppress(ImportError):   # (Pillow is optional: Plotly then finds nothing to peek at)
            importlib.import_module(name)


def _spawn_run_workers_early() -> threading.Event:
    """A later start (every kernel in the cache): the run workers spawned as the warm-up begins, in
    a thread, so that they are ready when the port opens (spawned and importing: 2 s on a quiet
    machine) and a run asked for in the first seconds (a lecturer who opens a learning lesson at
    once) does not wait for them. Not on a first start: their imports would slow the compile of the
    first pages. :func:`_start_run_workers` then finds the pool started. Set once the processes are
    spawned (or could not be): the warm-up renders its pages after that, since a script run makes
    the page its ``__main__``, which a process spawned meanwhile would run first
    (``workbench.runner._bare_main``)."""
    from workbench import runner

    spawned = threading.Event()

    def spawn() -> None:
        # a pool that cannot start here is started again once the server serves, which says why
        try:
            pool = runner._get_pool()
        except Exception:  # noqa: BLE001 - see above
            pool = None
        finally:
            spawned.set()
        if pool is not None:
            with contextlib.suppress(Exception):
                pool.warm()

    threading.Thread(target=spawn, name="run-workers-early", daemon=True).start()
    return spawned


def _start_run_workers(online: list[str] = ()) -> None:
    """Beside the server: the online model's walks ``online`` compiled (if any), then the run
    workers started; they compile the learning kernels (a line in the log when they are done), and
    this process calls each stage's kernels once they are in the cache (``engine.jit.release``)."""
    from engine import jit
    from engine import warmup as W
    from workbench.runner import start_pool

    if online:
        _compile_online(list(online))
    if STOP.asked:
        return

    def prepared(seconds: float) -> None:
        _say(f"run workers ready: the learning algorithms compiled in {seconds:.0f} s")

    try:
        if not start_pool(prepare=True, on_prepared=prepared):   # no workers compile them: this process will
            jit.release(*W.stand_ins(W.stage_names(W.BEHIND)))
    except Exception as exc:  # noqa: BLE001 - runs then start their pool on first use; say why
        jit.release(*W.stand_ins(W.stage_names(W.BEHIND)))
        if not STOP.asked:
            _say(f"the run workers could not start now ({type(exc).__name__}: {exc}); the first run starts them")


class _Stopped(BaseException):
    """A SIGINT or SIGTERM before the server serves: raised in the main thread, ends the warm-up."""


#: what each stop signal is called in the stop line
_SIGNAL_NAMES = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM", getattr(signal, "SIGQUIT", -1): "SIGQUIT"}
#: seconds after the signal by which this process has ended whatever happens (the promise is 5 s)
_STOP_DEADLINE = 4.5
#: seconds a run worker has to end its run and record it ``interrupted`` before it is killed
_RUN_GRACE = 2.5


class _Stop:
    """How the server stops, at any moment: a SIGINT (Ctrl-C, which a terminal sends to every
    process of its foreground group: ``make``, this process and its children) or a SIGTERM (systemd,
    docker, ``kill``) ends it within :data:`_STOP_DEADLINE` seconds with one line, no traceback and
    no process left.

    - During the warm-up (before the port opens) the signal stops the main thread (:class:`_Stopped`):
      the compile processes are ended (``engine.warmup.compile_stages``); the kernels compiled so far
      stay in the cache.
    - Once the server serves, Streamlit's own handler is replaced (:meth:`install`): the server is
      stopped as Streamlit stops it, and beside it (:meth:`_beside`) the compile processes of the
      online model's walks are ended and the run workers stopped (``runner.shutdown_pool``: a run in
      flight is recorded ``interrupted``).

    Every process this one starts leaves a Ctrl-C to it (``engine.warmup.child_signals``) so that
    they stop in that order. A second signal while stopping changes nothing; should anything hang,
    the process ends anyway at the deadline, its children killed. ``quiet`` (an app process of a
    hall, whose own line says it) prints no line."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.signum: int | None = None
        self.at = 0.0                 # time.monotonic() of the signal
        self.serving_since: float | None = None
        self.quiet = False
        self.compiling = None         # the compile processes of the online model's walks, while they run
        self.was_compiling = ""       # what was still compiling when the signal came
        self.starter = None           # the thread that starts the run workers (_start_run_workers)
        self.flying = 0               # runs in flight when the signal came
        self.server = None
        self.loop = None
        self.beside: threading.Thread | None = None   # stops what runs beside the server (_beside)
        self.said = False

    @property
    def asked(self) -> bool:
        return self.signum is not None

    def _ask(self, signum: int) -> bool:
        """Note the first stop signal; False for a later one."""
        with self.lock:
            if self.signum is not None:
                return False
            self.signum, self.at = signum, time.monotonic()
        threading.Thread(target=self._deadline, name="stop-deadline", daemon=True).start()
        return True

    def early(self, signum, frame) -> None:
        """The handler during the warm-up: the main thread stops where it is."""
        if self._ask(signum):
            raise _Stopped()

    def serving(self, signum, frame) -> None:
        """The handler once the warm-up is over: the server stops, the processes beside it too."""
        if not self._ask(signum):
            return
        self.beside = threading.Thread(target=self._beside, name="stop-beside", daemon=True)
        self.beside.start()
        self._stop_server()

    def install(self, server) -> None:
        """In place of Streamlit's ``_set_up_signal_handler`` (called in its event loop once the
        server has started): the server and its loop noted, :meth:`serving` handles the signals."""
        import asyncio

        self.server, self.loop = server, asyncio.get_running_loop()
        for sig in _SIGNAL_NAMES:
            if sig > 0:
                signal.signal(sig, self.serving)
        if self.asked:   # a signal came while the server was starting
            self._stop_server()

    def _stop_server(self) -> None:
        """Ask Streamlit's server to stop, as its own handler does, without its "Stopping..." line."""
        server, loop = self.server, self.loop
        if server is None or loop is None:
            return   # not started yet: install() stops it

        def stop() -> None:
            # the server waits for every request still open to be answered: the followers' long
            # polls are answered now, and any asked from now on at once
            _end_long_polls()
            starlette = getattr(server, "_starlette_server", None)
            if starlette is not None and callable(getattr(starlette, "stop", None)):
                starlette.stop()
            else:
                server.stop()

        with contextlib.suppress(RuntimeError):   # the loop has ended already
            loop.call_soon_threadsafe(stop)

    def _beside(self) -> None:
        """End what runs beside the server: the online model's compile processes, the run workers."""
        from engine import warmup as W
        from workbench import runner

        with self.lock:
            compiling, self.compiling = self.compiling, None
        if compiling is not None:
            self.was_compiling = "the online model's walks"
            W.stop_processes(compiling)
        # the run workers compile the learning kernels, or start to (spawned, importing: seconds under
        # load, before their preparation begins), unless they could not start; the cache has the
        # kernels only once they are all compiled
        pool, starter = runner._pool, self.starter
        going = (starter is not None and starter.is_alive()) or (pool is not None and not pool.prepared.is_set())
        if not self.was_compiling and going and not W.is_warm(W.stage_names(W.BEHIND)):
            self.was_compiling = "the learning algorithms"
        self.flying = runner.shutdown_pool(_RUN_GRACE)

    def finish(self) -> None:
        """After the warm-up was stopped, or the server's loop has ended (stopped, or failed to
        start): what runs beside the server stopped too, then the stop line."""
        if self.beside is not None:
            self.beside.join(max(0.1, self.at + _STOP_DEADLINE - 0.3 - time.monotonic()))
        elif self.serving_since is not None:
            self._beside()   # Streamlit ended by itself (a port in use ...): no line then
        elif "workbench.runner" in sys.modules:   # stopped in the warm-up: the run workers spawned early end too
            sys.modules["workbench.runner"].shutdown_pool(_RUN_GRACE)
        if self.asked and not _children():
            _end_resource_tracker()
        self.say()

    def line(self) -> str:
        """The one line a stop prints."""
        name = _SIGNAL_NAMES.get(self.signum, f"signal {self.signum}")
        if self.serving_since is None:
            return f"stopped ({name}) during the warm-up: nothing was served; the kernels compiled so far stay in the cache"
        served = self.at - self.serving_since
        parts = [f"stopped ({name}) after serving {served / 60:.0f} min" if served >= 90 else
                 f"stopped ({name}) after serving {served:.0f} s"]
        if self.flying:
            parts.append(f"{self.flying} run{'s' if self.flying != 1 else ''} in flight recorded as interrupted")
        if self.was_compiling:
            parts.append(f"{self.was_compiling} were still compiling (the next start compiles the rest)")
        return "; ".join(parts)

    def say(self) -> None:
        with self.lock:
            if self.said or not self.asked or self.quiet:
                return
            self.said = True
        with contextlib.suppress(Exception):
            print(self.line(), flush=True)

    def _deadline(self) -> None:
        """Whatever still runs at the deadline: the children killed, the line said, the process ended."""
        time.sleep(max(0.0, self.at + _STOP_DEADLINE - time.monotonic()))
        with contextlib.suppress(Exception):
            for pid in _children():
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            self.say()
            sys.stderr.flush()
        os._exit(0)


def _children() -> list[int]:
    """This process's child processes but multiprocessing's resource tracker (it ends once every
    process that holds its pipe has ended; killed early, its users would start another)."""
    from multiprocessing import resource_tracker

    tracker = getattr(getattr(resource_tracker, "_resource_tracker", None), "_pid", None)
    me, out = os.getpid(), []
    try:
        pids = [int(d) for d in os.listdir("/proc") if d.isdigit()]
    except OSError:
        return []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == me and pid != tracker:
            out.append(pid)
    return out


def _end_resource_tracker() -> None:
    """Once every child has ended: multiprocessing's exit clean-up done now (its semaphores
    released) and its resource tracker ended and waited for. Left alone it ends after this process
    and waits, a zombie, for the system's init to collect it."""
    from multiprocessing import resource_tracker, util

    tracker = getattr(resource_tracker, "_resource_tracker", None)
    if getattr(tracker, "_pid", None) is None or not callable(getattr(tracker, "_stop", None)):
        return
    with contextlib.suppress(Exception):
        util._run_finalizers(0)   # what its exit function runs first: the semaphores' unlinking
        tracker._stop()


def stop_with_make() -> None:
    """Under ``make run``: a SIGTERM to ``make`` ends ``make`` only (GNU make does not pass it on to
    its recipe), which would leave this process serving, orphaned. Here the kernel sends this
    process SIGTERM when its parent ``make`` ends (Linux ``PR_SET_PDEATHSIG``), so that it stops as
    after its own SIGTERM. Nothing elsewhere (a parent that is not ``make``, another system)."""
    ppid = os.getppid()
    try:
        with open(f"/proc/{ppid}/comm", encoding="utf-8") as f:
            if f.read().strip() != "make":
                return
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(1, int(signal.SIGTERM), 0, 0, 0) != 0:   # PR_SET_PDEATHSIG
            return
    except (OSError, AttributeError):
        return
    if os.getppid() != ppid:   # make ended before it took effect
        os.kill(os.getpid(), signal.SIGTERM)


#: this process's stop (see :class:`_Stop`)
STOP = _Stop()


def _stop_in_place_of_streamlit() -> None:
    """Streamlit's signal handler replaced by :meth:`_Stop.install` (left as it is should a later
    Streamlit set its handlers elsewhere: its own stop then, and :meth:`_Stop.finish` after it)."""
    from streamlit.web import bootstrap

    if callable(getattr(bootstrap, "_set_up_signal_handler", None)):
        bootstrap._set_up_signal_handler = STOP.install


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m workbench.serve", description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=int(os.environ.get("PORT", 8501)))
    ap.add_argument("--address", default=os.environ.get("TREE_WORKBENCH_ADDRESS", "127.0.0.1"),
                    help="interface to listen on (default 127.0.0.1: this machine only; 0.0.0.0: "
                         "every interface, for the class's laptops on a classroom network)")
    ap.add_argument("--tree", help="the class tree every new session starts from: a tree file or a "
                                   "generator spec such as '{\"generate\": \"random\", \"n\": 1000}' "
                                   "(sets TREE_WORKBENCH_TREE)")
    ap.add_argument("--no-warm-up", action="store_true", help="serve at once (first pages compile kernels)")
    ap.add_argument("--quiet-stop", action="store_true", help=argparse.SUPPRESS)   # a hall's app process
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if not 1 <= args.port <= 65535:
        ap.error(f"--port must be 1..65535, got {args.port}")
    STOP.quiet = args.quiet_stop
    signal.signal(signal.SIGINT, STOP.early)   # a stop during the warm-up: one line (see _Stop)
    signal.signal(signal.SIGTERM, STOP.early)
    try:
        stop_with_make()
        return _main(args)
    except _Stopped:
        STOP.finish()
        return 0


def _main(args) -> int:
    from engine.db import check_url
    from engine.errors import EngineError

    try:  # a wrong or unreachable TREE_WORKBENCH_DB_URL: one line naming the host, before anything starts
        where = check_url()
    except EngineError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 2
    if where:
        print(f"[database] {where}: the run history and the live class are kept there", flush=True)
    from workbench.classroom import start_lines

    for line in start_lines(args.address):
        print(f"[class] {line}", flush=True)
    os.environ.setdefault("NUMBA_CACHE_DIR", str(APP.parent / ".numba_cache"))
    if args.tree:
        os.environ["TREE_WORKBENCH_TREE"] = args.tree
    from streamlit import config

    from engine.jitcache import guard_cache

    guard_cache()
    flags = server_flags(args.port, args.address)
    # the options the server will run with, in force from the start: the warm-up's script runs read
    # them too, and ``streamlit run`` then finds nothing changed in [server] (no "restart" warning)
    config.get_config_options(force_reparse=True, options_from_flags=flags)
    t0 = time.perf_counter()
    from engine import jit
    from engine import warmup as W

    # the learning stages compile in the run workers once the server serves: meanwhile the careful
    # readers of large tree files read them here (the class tree's too), instead of compiling here
    jit.defer(*W.stand_ins([] if W.is_warm(W.stage_names(W.BEHIND)) else W.stage_names(W.BEHIND)))
    spawned = None
    if not args.no_warm_up and W.is_warm(W.stage_names(W.SERVE, W.SOON, W.BEHIND)):
        spawned = _spawn_run_workers_early()
    if not args.no_warm_up:
        later = warm_up(before_pages=spawned)["later"]
    else:   # their plain-Python build answers from the first session on, until they are compiled
        later = [] if W.is_warm(W.stage_names(W.SOON)) else W.stage_names(W.SOON)
        jit.defer(*W.stand_ins(later))
    whole_imports()
    # The warm-up leaves a heap of long-lived objects (numba, plotly, pandas, the shared caches):
    # Python's full collections walked all of it, 0.6-0.7 s with the interpreter held on this
    # loaded machine (every student and the health check waited). Frozen, they are never walked
    # again: a full collection while serving took 30-70 ms.
    gc.collect()
    gc.freeze()
    # Every student's script runs in a thread of this process, and the event loop that answers the
    # websockets and the health check is one more thread: hand the interpreter round every 1 ms
    # instead of 5, so that the loop waits less behind busy scripts.
    sys.setswitchinterval(0.001)
    lighter_runtime()
    kept_scripts()
    batched_handoff()
    plain_membership()
    widget_lookups()
    from workbench import treeview_data

    treeview_data.SEND_GEOMETRY_ONCE = True   # a click recolours a view: its positions are not sent again
    from workbench import treeview

    treeview.LEARN_WIDTHS = True   # a session's first view is drawn at the width its browsers report
    from workbench.turns import scripts_in_turn

    scripts_in_turn()   # two script runs at once, the others wait for a turn (workbench/turns.py)
    follow_route()
    owner_cookie()
    lasting_downloads()
    _stop_in_place_of_streamlit()
    from streamlit.web import cli

    if not args.no_warm_up:
        _say(f"ready in {time.perf_counter() - t0:.0f} s; "
             + ("the online model's walks compile beside the server (Online Marginals runs them as plain "
                "Python meanwhile), then " if later else "")
             + "the learning pages' kernels compile in the run workers while the server serves")
    sys.argv = ["streamlit", "run", str(APP)]
    for name, value in flags.items():
        sys.argv += [f"--{name}", str(value).lower() if isinstance(value, bool) else str(value)]
    # from here a signal stops the server and what runs beside it (_Stop.serving), never the main
    # thread where it is: the warm-up is over
    signal.signal(signal.SIGINT, STOP.serving)
    signal.signal(signal.SIGTERM, STOP.serving)
    if STOP.asked:   # the signal came as the warm-up ended
        raise _Stopped()
    STOP.serving_since = time.monotonic()
    STOP.starter = threading.Thread(target=_start_run_workers, args=(later,), name="run-workers-start", daemon=True)
    STOP.starter.start()
    try:
        return cli.main()
    finally:
        STOP.finish()


if __name__ == "__main__":
    sys.exit(main())
