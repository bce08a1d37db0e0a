"""Launching a run from a page: ``st.status`` with a progress bar, an ETA and a Cancel button.

Every learning page calls :func:`launch` with a run config and its family's ``run`` function
(the protocol of ``engine.runs.protocol``) and gets the run's :class:`RunResult` back (``None``
when it failed or was cancelled; the reason is shown). The run is recorded in the run history
(``engine.runs.store``).

**Where runs run.** Not in the server's threads (a learning run holds the interpreter and would
freeze every student's page and the health check), but in a bounded pool of worker processes
shared by the whole server: ``TREE_WORKBENCH_RUN_WORKERS`` of them (default: one less than the
CPUs, at least one; ``0`` runs in a thread of the server, as a single user's laptop may prefer).
A session may have ``TREE_WORKBENCH_RUNS_PER_SESSION`` runs queued or running (default 1); when
every worker is busy a run waits in the queue and its status says so ("busy: 3 runs ahead of
yours"). The worker reports progress through a queue that a thread of the server reads; the
script only polls the job, so the page stays live: the bar and the ETA move, Cancel stops the run
at its next progress report (or before it starts) and the run is recorded ``cancelled``. If the
user leaves the page mid-run, the run goes on and is recorded; the Runs page shows it live and
launching the same config again attaches to it. :func:`last_run` is the id of the last run
recorded by :func:`launch` in this session. When the server stops (:func:`shutdown_pool`), queued
runs are dropped and a run in flight ends at once, recorded ``interrupted``; the workers and their
manager leave a Ctrl-C to the server, which stops them in that order.

Every time left it shows counts down from its first value and never rises
(``engine.warmup.Countdown``): "preparing (N s)", and a run's time left once it has one.

**A configuration runs once.** A run config is deterministic given its seed, so a page that
asks for it (``launch(..., reuse=True)``: the learning pages; the Runs page's Re-run does not)
first gets a finished run of exactly that configuration (:func:`cached_result`): the same
config JSON, the same run function, the same code version (``engine.runs.store.code_version``) and
every file it names unchanged since that run started; in this process (the last
:data:`RESULTS_KEPT` results, whoever ran them), then in the run history on disk (so a restarted
server has them too). It shows that run's result at once and says which run it is; a run of the
same configuration already going in another session is watched instead of started again (the
first session keeps its Cancel). When the server starts its pool with the preparation
(:func:`start_pool`), it also runs, one at a time in the background, every run a lesson step's
link starts (``run=1``), in the order the lessons use them (:func:`lesson_runs`), those of the
lesson a session opened last first (:func:`lesson_opened`), unless the history has them already: a
class that reaches such a step finds its result (``TREE_WORKBENCH_LESSON_RUNS=0`` turns that off).
Each worker imports every family's run module as it starts, so that no run pays for them. These
runs ahead are kept in the process, not recorded in the history (nobody asked for them; a restarted
server runs them again, in seconds).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import json
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
import traceback
import types
import uuid
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.managers import SyncManager
from typing import Any, Callable

import streamlit as st
from streamlit.errors import StreamlitAPIException

from engine.files import public_message
from engine.errors import EngineError
from engine.runs.protocol import RunCancelled, RunConfig, RunResult
from engine.runs.registry import family
from engine.runs.store import RunStore, code_version, default_db_target
from engine.warmup import Countdown, busy_factor, busy_text, child_signals, signals_held, start_processes
from engine.warmup import label as stage_label
from workbench.identity import session_owner
from workbench.session import Family, SessionState
from workbench.turns import out_of_turn

__all__ = ["launch", "launch_sweep", "last_run", "format_eta", "Job", "history", "start_pool", "shutdown_pool",
           "pool_size", "per_session_cap", "spawn_processes", "WORKERS_ENV", "PER_SESSION_ENV", "cached_result",
           "lesson_runs", "run_lesson_runs", "lesson_opened", "LESSON_RUNS_ENV", "RESULTS_KEPT"]

_POLL = 0.2  # seconds between two redraws of the progress bar
#: a run's first time-left estimate waits for this much of its run (seconds): from the first tenth of a
#: second it was "under a second left", then "longer than expected" for the rest of a 10 s run
_ETA_AFTER = 1.0


class RunnerState(SessionState, prefix="runner"):
    """A session's runs."""

    jobs: dict | None = None          # this session's jobs, by id
    last_run: int | None = None       # the run history's id of the last run recorded
    cancel: Family[bool] = False      # a job's Cancel button, by job id


S = RunnerState()

WORKERS_ENV = "TREE_WORKBENCH_RUN_WORKERS"
PER_SESSION_ENV = "TREE_WORKBENCH_RUNS_PER_SESSION"
LESSON_RUNS_ENV = "TREE_WORKBENCH_LESSON_RUNS"
#: finished results kept in this process (the lessons' runs are nine)
RESULTS_KEPT = 32
#: the newest finished runs of an algorithm searched for a configuration in the run history
HISTORY_LOOKUP = 500


def format_eta(seconds: float) -> str:
    if seconds < 1:
        return "under a second left"
    if seconds < 90:
        return f"about {seconds:.0f} s left"
    return f"about {seconds / 60:.0f} min left"


def _env_int(name: str, default: int, lo: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return max(lo, int(raw))
    except ValueError:
        return default


def pool_size() -> int:
    """Worker processes for runs (0: runs go to a thread of the server)."""
    return _env_int(WORKERS_ENV, max(1, (os.cpu_count() or 2) - 1), 0)


def per_session_cap() -> int:
    return _env_int(PER_SESSION_ENV, 1, 1)


@st.cache_resource(show_spinner=False)
def _history(path: str) -> RunStore:
    return RunStore(path)


def history() -> RunStore | None:
    """The run history of this app (``$TREE_WORKBENCH_DB_URL`` or ``$TREE_WORKBENCH_DB``); ``None``
    (with a warning) if unusable."""
    try:  # in classroom mode, a view of this session's runs only (the lecturer sees all)
        return _history(default_db_target()).for_owner(session_owner())
    except (EngineError, OSError) as exc:
        st.warning(f"Runs are not recorded: {public_message(exc)}")
        return None


# ------------------------------------------------------------------ results of a configuration
_RESULTS: "collections.OrderedDict[tuple, tuple[RunResult, int | None]]" = collections.OrderedDict()
_RESULTS_LOCK = threading.Lock()
_GOING: dict[tuple, "Job"] = {}   # result key -> a run of it going now (another session's, or a lesson's)


def _files(value) -> list[str]:
    """The existing files a configuration's values name (its data), depth first."""
    if isinstance(value, dict):
        return [f for v in value.values() for f in _files(v)]
    if isinstance(value, (list, tuple)):
        return [f for v in value for f in _files(v)]
    if isinstance(value, str) and value and len(value) < 4096:
        with contextlib.suppress(OSError, ValueError):
            if os.path.isfile(value):
                return [value]
    return []


def result_key(config: RunConfig, run_fn) -> tuple:
    """What makes two runs the same: the run function, the configuration, the code version, and
    each file the configuration names as it is now (its size and time of change); with the run
    history they are recorded in (whose run ids the page names)."""
    stamps = []
    for f in _files(config.to_dict()):
        with contextlib.suppress(OSError):
            st_ = os.stat(f)
            stamps.append((f, st_.st_size, st_.st_mtime_ns))
    return (f"{getattr(run_fn, '__module__', '')}.{getattr(run_fn, '__qualname__', '')}", config.to_json(),
            code_version(), tuple(stamps), default_db_target())


def _remember(key: tuple, result: RunResult, run_id: int | None) -> None:
    with _RESULTS_LOCK:
        _RESULTS[key] = (result, run_id)
        _RESULTS.move_to_end(key)
        while len(_RESULTS) > RESULTS_KEPT:
            _RESULTS.popitem(last=False)


def _is_family_run(config: RunConfig, run_fn) -> bool:
    """Whether ``run_fn`` is the run of ``config``'s family (what its record in the history ran)."""
    try:
        return family(config.algorithm).run is run_fn
    except EngineError:
        return False


def _from_history(store: RunStore, config: RunConfig) -> tuple[RunResult, int] | None:
    """The newest finished run of exactly ``config`` in ``store`` (every owner's), run by this code
    version, every file it names unchanged since it started; ``None`` when there is none."""
    want = config.to_json()
    version = code_version()
    files = _files(config.to_dict())
    for rec in store.list(algorithm=config.algorithm, status="finished", limit=HISTORY_LOOKUP):
        if rec.code_version != version or json.dumps(rec.config, sort_keys=True) != want:
            continue
        try:
            if any(os.stat(f).st_mtime > rec.started for f in files):
                continue
        except OSError:
            continue
        full = store.get(rec.id)
        return full.result, full.id
    return None


def cached_result(config: RunConfig, run_fn, store: RunStore | None = None) -> tuple[RunResult, int | None] | None:
    """``(result, run id)`` of a finished run of exactly this configuration (see the module
    docstring): kept in this process, else found in ``store`` (the run history with every owner's
    runs) when ``run_fn`` is the family's own run; ``None`` when it never ran."""
    key = result_key(config, run_fn)
    with _RESULTS_LOCK:
        hit = _RESULTS.get(key)
    if hit is not None or store is None or not _is_family_run(config, run_fn):
        return hit
    try:
        found = _from_history(store, config)
    except (EngineError, OSError):   # an unreadable history: the run runs
        return None
    if found is not None:
        _remember(key, *found)
    return found


def _job_ended(job: "Job") -> None:
    """A run's job has ended: a finished run of a configuration is kept (:func:`cached_result`)."""
    if job.result_key is not None:
        with _RESULTS_LOCK:
            if _GOING.get(job.result_key) is job:
                del _GOING[job.result_key]
        if job.error is None and isinstance(job.value, dict) and "result" in job.value:
            _remember(job.result_key, job.value["result"], job.value.get("run_id"))


# ------------------------------------------------------------------ the worker side (other processes)
_worker_reports = None   # set in each worker: the queue back to the server
_worker_cancelled = None  # a manager dict: job id -> True once cancel is asked


#: how much lower the run workers' priority is than the server's (``nice``): runs and the compiling of
#: their kernels are batch work; when the cores are busy, a student's click is served first (60
#: students on two app processes just started: slowest clicks 1.1-1.2 s at p95 without it)
RUN_NICENESS = 10


def _lower_priority(by: int) -> None:
    """This process at ``by`` more niceness, every thread of it (on Linux a thread has its own:
    the BLAS threads NumPy started at import would keep the old one)."""
    try:
        tasks = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:   # no /proc: the process, which its later threads inherit
        tasks = []
    try:
        if not tasks:
            os.nice(by)
        for tid in tasks:
            os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + by))
    except OSError:   # not allowed here: the runs share the cores at the server's priority
        pass


def _worker_init(reports, cancelled) -> None:
    global _worker_reports, _worker_cancelled
    _worker_reports, _worker_cancelled = reports, cancelled
    signal.signal(signal.SIGTERM, _worker_stop)
    sys.unraisablehook = _worker_unraisable
    _lower_priority(RUN_NICENESS)
    from engine.jitcache import guard_cache

    guard_cache()   # the workers, the server and the warm-up share one kernel cache
    import engine.runs.execute  # noqa: F401  (the run machinery, loaded once per worker)

    _import_families()


def _import_families() -> None:
    """Import every registered family's run module in this worker now, at its low priority and
    before it takes a run: a family's first run in a fresh worker paid for its imports (scikit-learn,
    SciPy's statistics, pandas: 2.3 s of the RTA lesson's run on the AMD machine). A module that
    cannot be imported is left to the run that needs it, which says why."""
    import importlib

    from engine.runs.registry import FAMILIES

    for module in dict.fromkeys(m for m, _ in FAMILIES.values()):
        with contextlib.suppress(Exception):
            importlib.import_module(module)


def _worker_start(reports, cancelled) -> None:
    """A run worker's start: a Ctrl-C left to the server (``engine.warmup.child_signals``), SIGTERM
    handled (:func:`_worker_stop`), then :func:`_worker_init`."""
    child_signals()
    _worker_init(reports, cancelled)


def _worker_ready() -> int:
    return os.getpid()


_worker_ended = None   # in a worker: the frame of the run SIGTERM has ended (being recorded)
_worker_raised = None  # in a worker: the interrupt that ended it


def _worker_stop(signum, frame) -> None:
    """SIGTERM in a run worker (the server is stopping, :func:`shutdown_pool`): a run in flight ends
    at once as ``interrupted``, recorded so in the run history as after a Ctrl-C
    (``engine.runs.execute``), and a later SIGTERM while it is being recorded waits for the record;
    a worker with no run (idle, or compiling kernels) ends now. An interrupt that lands in a
    finalizer (a ``__del__`` or a weakref callback: numba's type disposal, llvmlite's objects) is
    swallowed by Python and the run goes on: :func:`_worker_unraisable` takes it quietly and leaves
    the run to the next SIGTERM, which :meth:`_Pool.stop` sends 0.1 s later."""
    global _worker_ended, _worker_raised
    while frame is not None and frame.f_code is not _worker_run.__code__:
        frame = frame.f_back
    if frame is None:
        os._exit(0)
    if frame is not _worker_ended:
        _worker_ended = frame
        _worker_raised = KeyboardInterrupt("interrupted: the server stopped while it ran")
        raise _worker_raised


def _worker_unraisable(unraisable) -> None:
    """``sys.unraisablehook`` in a run worker: :func:`_worker_stop`'s interrupt raised inside a
    finalizer (which Python ignores, printing "Exception ignored in" and a traceback) is dropped
    without a word and the run is no longer taken as ended, so the next SIGTERM ends it; any other
    ignored exception is printed as Python does."""
    global _worker_ended
    if _worker_raised is not None and unraisable.exc_value is _worker_raised:
        _worker_ended = None
        return
    sys.__unraisablehook__(unraisable)


def _worker_run(job_id: str, kind: str, payload: tuple, families: dict):
    """Run one job in a worker; returns ``("ok", value)`` or ``("error", kind, message, run_id,
    text)`` (exceptions are described, not pickled: an engine error need not unpickle)."""
    from engine.runs import registry
    from engine.runs.execute import execute, execute_sweep

    registry.FAMILIES.clear()
    registry.FAMILIES.update(families)
    last = [0.0, 0.0]   # time of the last report sent, of the last cancel check

    def progress(fraction: float, message: str) -> None:
        now = time.monotonic()
        if now - last[1] > 0.1:
            last[1] = now
            if _worker_cancelled.get(job_id):
                raise RunCancelled("cancelled by the user")
        if now - last[0] > 0.1 or fraction >= 1:
            last[0] = now
            _worker_reports.put((job_id, float(fraction), str(message)))

    if _worker_cancelled.get(job_id):   # cancelled while it waited in the queue
        return ("error", "cancelled", "cancelled before it started", None, "")
    _worker_reports.put((job_id, 0.0, "starting"))
    try:
        if kind == "run":
            config, run_fn, (store_path, owner), label = payload
            out: dict[str, Any] = {}

            def capture(cfg, prog):  # keep the run's own result (numpy arrays and all)
                out["result"] = run_fn(cfg, prog)
                return out["result"]

            if store_path is None:
                capture(config, progress)
            else:
                with RunStore(store_path) as store:
                    out["run_id"] = execute(config, progress, store.for_owner(owner), run_fn=capture,
                                            label=label).id
            return ("ok", out)
        spec, (store_path, owner), label, n_jobs = payload
        with RunStore(store_path) as store:
            return ("ok", execute_sweep(spec, progress, store.for_owner(owner), n_jobs=n_jobs, label=label))
    except BaseException as exc:  # described for the server, which shows or raises it
        what = ("cancelled" if isinstance(exc, RunCancelled) else "engine" if isinstance(exc, EngineError)
                else "bug")
        return ("error", what, str(exc), getattr(exc, "run_id", None),
                "".join(traceback.format_exception(exc)))


# ------------------------------------------------------------------ the server side
@contextlib.contextmanager
def _bare_main():
    """While processes are spawned: ``sys.modules["__main__"]`` an empty module. Streamlit runs every
    script as the module ``__main__`` (and leaves it there), and a spawned process first runs the
    parent's ``__main__`` again: each worker would run the whole app, without a session, before
    its first task (seconds of work and a log full of "missing ScriptRunContext" warnings)."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def spawn_processes(n: int) -> ProcessPoolExecutor:
    """A pool of ``n`` spawned processes, every one started now under a bare ``__main__`` (see
    :func:`_bare_main`; the executor would start them one per submit, later, under whatever
    ``__main__`` a script run has left then); a Ctrl-C is left to this process, SIGTERM ends them
    (``engine.warmup.start_processes``; ``engine.warmup.stop_processes`` stops them)."""
    with _bare_main():
        return start_processes(n)


def _preparing(clock: Countdown | None) -> str:
    """What "preparing (...)" says of a countdown: "N s" left, never more than it said before, or
    once it has run out "N s so far, longer than expected; <the machine's load>"."""
    if clock is None:
        return "a moment"
    left = clock.left()
    return f"{left:.0f} s" if left >= 1.0 else clock.text()


class _Pool:
    """The server's worker processes, their report queue and the thread that reads it."""

    def __init__(self, workers: int):
        ctx = mp.get_context("spawn")   # never fork a server that runs threads
        # the manager and the workers leave a Ctrl-C to the server, which stops them in order
        # (shutdown_pool): held from their start (engine.warmup.signals_held)
        with _bare_main(), signals_held():
            self.manager = SyncManager(ctx=ctx)
            # deaf to Ctrl-C and SIGTERM: it outlives the run workers that report to it while they
            # record their runs, and stop() ends it after them (an initializer of engine.warmup: the
            # manager's process imports nothing of the app)
            self.manager.start(functools.partial(child_signals, ignore_term=True))
            try:
                self.reports = self.manager.Queue()
                self.cancelled = self.manager.dict()
                self.workers = workers
                self.executor = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_worker_start,
                                                    initargs=(self.reports, self.cancelled))
                # every worker spawned now, under the bare main (the executor spawns one per submit)
                self._ready = [self.executor.submit(_worker_ready) for _ in range(workers)]
            except BaseException:   # no pool: its manager (deaf to SIGTERM) is not left behind
                with contextlib.suppress(Exception):
                    self.manager.shutdown()
                raise
        self.jobs: dict[str, "Job"] = {}
        self.order: list[str] = []    # queued or running, in submission order
        self.lock = threading.Lock()
        self.stopping = False
        self.prepared = threading.Event()   # the workers' kernels are compiled (see prepare)
        self.prepared.set()
        self.prepare_clock: Countdown | None = None   # the time left of the preparation
        # the preparation's stages: their names, when a worker took each, the seconds each took;
        # a run waiting for some of them (``waits``: job id -> its stages and its own countdown)
        self.stage_names: list[str] = []
        self.stages_started: dict[str, float] = {}
        self.stages_done: dict[str, float] = {}
        self.stage_change = threading.Condition()
        self.waits: dict[str, tuple[list[str], Countdown]] = {}
        self.pending: dict[str, tuple] = {}   # job id -> what _hand_over takes, while the run waits
        threading.Thread(target=self._listen, name="run-reports", daemon=True).start()

    @property
    def prepare_ends(self) -> float | None:
        """When the preparation is expected to end (a ``time.perf_counter()`` time), or ``None``."""
        clock = self.prepare_clock
        return None if clock is None else time.perf_counter() + clock.left()

    @prepare_ends.setter
    def prepare_ends(self, when: float | None) -> None:
        self.prepare_clock = None if when is None else Countdown(when - time.perf_counter(), clock=time.perf_counter)

    def prepare(self, on_done: Callable[[float], None] | None = None) -> None:
        """Compile the learning kernels in the workers now (``engine.warmup``'s ``BEHIND`` stages,
        into the shared on-disk cache), in a thread of this process. A run submitted meanwhile waits
        for its own algorithm's stages only (``engine.warmup.run_stages``), which go first, and says
        "preparing (N s)" with the time they have left. ``on_done(seconds)`` is called when it is over."""
        from engine import jit
        from engine.warmup import BEHIND, estimate_seconds, is_warm, stage_names, stand_ins

        names = stage_names(BEHIND)
        if is_warm(names) or self.stopping:
            jit.release(*stand_ins(names))
            return
        self.stage_names = list(names)
        self.prepared.clear()
        # the first estimate for the machine's load now; later ones never longer (engine.warmup.Countdown)
        self.prepare_clock = Countdown(estimate_seconds(names, self.workers) * busy_factor(self.workers),
                                       clock=time.perf_counter)

        def target():
            from engine.warmup import compile_stages

            t0 = time.perf_counter()
            done: dict = {}

            def compiled(name: str, seconds: float, left: list) -> None:
                done[name] = seconds
                jit.release(*stand_ins([name]))   # in the cache: this process calls them from now on
                with self.stage_change:
                    self.stages_done[name] = seconds
                    self.stage_change.notify_all()
                # the runs this stage was the last wait of: handed over now, before the next stage
                with self.lock:
                    free = [j for j, (need, _) in self.waits.items() if all(n in self.stages_done for n in need)]
                for job_id in free:
                    self._release(job_id)
                self._estimate(left, done)

            def started(name: str) -> None:
                self.stages_started[name] = time.perf_counter()

            try:
                compile_stages(names, executor=self.executor, workers=self.workers, on_done=compiled,
                               on_start=started, first=self._wanted)
            except Exception:  # noqa: BLE001 - a run compiles what it needs itself; say why the warm-up stopped
                if self.stopping:   # the server stops: its workers were ended on purpose
                    return
                traceback.print_exc()
            finally:
                self.prepared.set()
                with self.stage_change:
                    self.stage_change.notify_all()
            if on_done is not None and not self.stopping:
                on_done(time.perf_counter() - t0)

        threading.Thread(target=target, name="run-workers-prepare", daemon=True).start()

    def _estimate(self, left: list[str], done: dict) -> None:
        from engine.warmup import estimate_seconds, speed

        clock = self.prepare_clock
        if clock is not None:
            clock.update(estimate_seconds(left, self.workers, speed(done)) if left else 0.0)

    def _wanted(self) -> set[str]:
        """The stages runs wait for now (they go first)."""
        with self.lock:
            return {n for names, _ in self.waits.values() for n in names}

    def _stages_left(self, names: list[str]) -> float:
        """Seconds until the stages ``names`` are compiled: those running, what they have left of
        the time expected for them; those not started, a free worker (the soonest a stage that no
        run waits for ends, when every worker is busy) and then their expected times. Expected:
        measured here before, or declared (``engine.warmup.expected_seconds``), times the speed of
        the stages done so far (before any is done, the machine's load: ``busy_factor``)."""
        from engine.warmup import estimate_seconds, expected_seconds, speed

        done, started = dict(self.stages_done), dict(self.stages_started)   # copies: the preparation adds to them
        pace = speed(done) if done else busy_factor(self.workers)
        now = time.perf_counter()
        running = {n: t for n, t in started.items() if n not in done}

        def rest(n: str) -> float:
            return max(1.0, expected_seconds(n) * pace - (now - running[n]))

        left = [n for n in names if n not in done]
        longest = max((rest(n) for n in left if n in running), default=0.0)
        queued = [n for n in left if n not in running]
        if not queued:
            return longest
        others = [rest(n) for n in running if n not in names]
        free = min(others) if others and len(running) >= self.workers else 0.0
        return max(longest, free + estimate_seconds(queued, self.workers, pace))

    def stages_of(self, job: "Job") -> list[str] | None:
        """The stages ``job`` waits for (not compiled yet), or ``None`` once it waits for none."""
        with self.lock:
            wait = self.waits.get(job.id)
        if wait is None or self.prepared.is_set():
            return None
        left = [n for n in wait[0] if n not in self.stages_done]
        return left or None

    def preparing_left(self, job: "Job | None" = None) -> float | None:
        """Seconds the workers' preparation still needs (an estimate that never rises, at least 1),
        or ``None`` once ready; for ``job``, a run waiting for its own stages, what those need."""
        if self.prepared.is_set():
            return None
        wait = self.waits.get(job.id) if job is not None else None
        if wait is not None:
            left = self.stages_of(job)
            if left is None:
                return None
            wait[1].update(self._stages_left(left))
            return max(1.0, wait[1].left())
        clock = self.prepare_clock
        return max(1.0, clock.left()) if clock is not None else 1.0

    def preparing_text(self, job: "Job | None" = None) -> str:
        """How long the preparation (or what ``job`` waits for of it) has left, as "preparing (...)"
        says it."""
        wait = self.waits.get(job.id) if job is not None else None
        return _preparing(wait[1] if wait is not None else self.prepare_clock)

    def warm(self) -> None:
        """Wait until every worker has started (each imports the run machinery)."""
        for f in self._ready:
            f.result(timeout=300)

    def _listen(self) -> None:
        while True:
            try:
                job_id, fraction, message = self.reports.get()
            except (EOFError, OSError, BrokenPipeError):
                return
            except Exception:  # noqa: BLE001 - the manager stopped under it: the server stops
                if self.stopping:
                    return
                raise
            job = self.jobs.get(job_id)
            if job is not None:
                job.started_at = job.started_at or time.perf_counter()
                job.fraction = min(max(fraction, 0.0), 1.0)
                job.message = message

    def submit(self, job: "Job", kind: str, payload: tuple) -> None:
        from engine.runs import registry

        with self.lock:
            self.jobs[job.id] = job
            self.order.append(job.id)
        families = dict(registry.FAMILIES)
        needs = None if self.prepared.is_set() else self._needs(kind, payload)
        if needs == []:   # its kernels are compiled already: it goes before the stages still to run
            self._hand_over(job, kind, payload, families)
            return
        if not self.prepared.is_set():   # handed to the workers once the kernels it calls are compiled
            with self.lock:
                self.pending[job.id] = (job, kind, payload, families)
                if needs is not None:
                    self.waits[job.id] = (needs, Countdown(self._stages_left(needs), clock=time.perf_counter))
            threading.Thread(target=self._submit_when_prepared, args=(job,), name=f"run-{job.id}-waits",
                             daemon=True).start()
            return
        self._hand_over(job, kind, payload, families)

    def _needs(self, kind: str, payload: tuple) -> list[str] | None:
        """The stages of the preparation a run still needs (``engine.warmup.run_stages`` of its
        algorithm), or ``None`` (all of it) when this pool did not start the preparation."""
        from engine.warmup import run_stages

        if not self.stage_names:
            return None
        head = payload[0] if payload else None
        algorithm = head.get("algorithm") if isinstance(head, dict) else getattr(head, "algorithm", None)
        return [n for n in run_stages(algorithm, self.stage_names) if n not in self.stages_done]

    def _submit_when_prepared(self, job: "Job") -> None:
        """A waiting run handed over once the preparation is over (or stopped), unless the stage it
        waited for last has handed it over already (:meth:`prepare`)."""
        with self.stage_change:   # woken as each stage ends; a cancel or a stop is seen within a second
            while not (self.prepared.is_set() or self.stopping or job.done.is_set() or job.id not in self.pending):
                self.stage_change.wait(1.0)
        self._release(job.id)

    def _release(self, job_id: str) -> None:
        """Hand a waiting run over to the workers (once: the first caller does), unless it was
        cancelled meanwhile or the server stops."""
        with self.lock:
            args = self.pending.pop(job_id, None)
            self.waits.pop(job_id, None)
        if args is None or args[0].done.is_set() or self.stopping:
            return
        try:
            self._hand_over(*args)
        except RuntimeError:   # the executor was shut down meanwhile (the server stops)
            if not self.stopping:
                raise

    def _hand_over(self, job: "Job", kind: str, payload: tuple, families: dict) -> None:
        fut = self.executor.submit(_worker_run, job.id, kind, payload, families)
        job.future = fut
        fut.add_done_callback(lambda f, j=job: self._finished(j, f))

    def _finished(self, job: "Job", fut: Future) -> None:
        self._forget(job)
        try:
            self.cancelled.pop(job.id, None)
        except Exception:  # noqa: BLE001 - the manager is gone: the server stops, nothing to forget
            if not self.stopping:
                raise
        if job.done.is_set():   # cancelled while queued: already told
            return
        if self.stopping:       # the server stops: the page goes with it, nothing to show
            job.error = RunCancelled("the server stopped")
        elif fut.cancelled():
            job.error = RunCancelled("cancelled before it started")
        elif fut.exception() is not None:
            exc = fut.exception()
            job.error = (EngineError("the run's worker process stopped (out of memory?); try again")
                         if isinstance(exc, BrokenProcessPool) else exc)
        else:
            out = fut.result()
            if out[0] == "ok":
                job.value = out[1]
            else:
                _, what, message, run_id, text = out
                job.run_id = run_id
                job.error = (RunCancelled(message) if what == "cancelled" else EngineError(message)
                             if what == "engine" else RuntimeError(f"the run failed:\n{text}"))
        job.ended = time.perf_counter()
        _job_ended(job)
        job.done.set()

    def _forget(self, job: "Job") -> None:
        with self.lock:
            if job.id in self.order:
                self.order.remove(job.id)
            self.jobs.pop(job.id, None)
            self.waits.pop(job.id, None)
            self.pending.pop(job.id, None)

    def ahead(self, job: "Job") -> int:
        """Jobs queued before ``job`` (submitted earlier, not started), while ``job`` waits."""
        if job.started_at is not None:
            return 0
        with self.lock:
            if job.id not in self.order:
                return 0
            before = self.order[: self.order.index(job.id)]
        return sum(1 for j in before if self.jobs.get(j) is not None and self.jobs[j].started_at is None)

    def stop(self, grace: float) -> int:
        """Stop the workers now (the server stops): queued runs are dropped; each worker is sent
        SIGTERM, again every 0.1 s, for at most ``grace`` seconds (a run in flight ends as
        ``interrupted`` and is recorded so, :func:`_worker_stop`; then its worker ends), then killed;
        every worker is waited for, then the manager stopped. The runs left ``running`` by a killed
        worker are then marked ``interrupted`` in the history. Returns the runs that were in flight."""
        self.stopping = True
        with self.lock:
            flying = sum(1 for j in self.jobs.values() if j.started_at is not None and not j.done.is_set())
            handed = any(j.future is not None for j in self.jobs.values())
        procs = list((getattr(self.executor, "_processes", None) or {}).values())
        self.executor.shutdown(wait=False, cancel_futures=True)
        end = time.monotonic() + grace
        while time.monotonic() < end and any(p.exitcode is None for p in procs):
            for proc in procs:
                if proc.exitcode is None:
                    with contextlib.suppress(Exception):
                        proc.terminate()
            for proc in procs:
                with contextlib.suppress(Exception):
                    proc.join(0.1 / max(len(procs), 1))
        for proc in procs:
            with contextlib.suppress(Exception):
                if proc.exitcode is None:
                    proc.kill()
                proc.join(5.0)
        self.prepared.set()   # the runs waiting for the preparation: dropped (see _submit_when_prepared)
        with contextlib.suppress(Exception):
            self.manager.shutdown()
        if handed:
            with contextlib.suppress(Exception), RunStore(default_db_target(), check_interrupted=False) as store:
                store.mark_interrupted()   # a run whose worker had to be killed: its process is gone
        return flying

    def cancel(self, job: "Job") -> None:
        self.cancelled[job.id] = True   # seen by the worker at its next progress report
        if job.future is not None and job.future.cancel():
            return                      # never reached a worker
        if job.started_at is None:      # in the executor's hand-over queue: skipped when its turn comes
            self._forget(job)
            job.error = RunCancelled("cancelled before it started")
            job.ended = time.perf_counter()
            _job_ended(job)
            job.done.set()


_pool_lock = threading.Lock()
_pool: _Pool | None = None
_stopping = False   # the server stops: no pool is started any more


def _get_pool() -> _Pool | None:
    global _pool
    if pool_size() == 0:
        return None
    with _pool_lock:
        if _stopping:
            raise EngineError("the server is stopping: no run starts now")
        if _pool is None:
            _pool = _Pool(pool_size())
            # however the process ends (plain ``streamlit run`` too), its workers are stopped before
            # the executor's own exit handler waits for a run in flight to finish
            with contextlib.suppress(AttributeError, RuntimeError):
                threading._register_atexit(shutdown_pool)
        return _pool


def shutdown_pool(grace: float = 2.5) -> int:
    """Stop the run workers now, so that the server can exit (a worker that does not exit would
    keep the pool's exit handler waiting): queued runs are dropped, a run in flight is interrupted
    and recorded ``interrupted`` (:meth:`_Pool.stop`, within ``grace`` seconds), no process is left.
    No pool starts after it. Returns the runs that were in flight."""
    global _pool, _stopping
    with _pool_lock:   # a pool being started meanwhile is started first, then stopped here
        _stopping = True
        pool, _pool = _pool, None
    return 0 if pool is None else pool.stop(grace)


def start_pool(*, prepare: bool = False, on_prepared: Callable[[float], None] | None = None) -> bool:
    """Start the run workers now (the server calls it as it starts serving); with ``prepare``, the
    workers then compile the learning kernels (:meth:`_Pool.prepare`), ``on_prepared(seconds)``
    called when they are done, and run the lessons' runs in the background (:func:`run_lesson_runs`,
    unless ``TREE_WORKBENCH_LESSON_RUNS=0``). False when runs go to threads of this process (no
    workers)."""
    p = _get_pool()
    if p is None:
        return False
    p.warm()
    if prepare:
        p.prepare(on_prepared)
        if os.environ.get(LESSON_RUNS_ENV, "").strip() != "0":
            threading.Thread(target=run_lesson_runs, args=(p,), name="lesson-runs", daemon=True).start()
    return True


def _lesson_run_steps(lessons=None) -> list[tuple[RunConfig, Callable, list[tuple[str, int]]]]:
    """:func:`lesson_runs`, each with the ``(lesson id, step)`` of every step whose link starts it."""
    from workbench.declarations.page_spec import link_tree
    from workbench.declarations.page_table import PAGES

    if lessons is None:   # read here, not at import: the lesson panel loads the practice families (1.4 s)
        from workbench.declarations.lessons import lessons_folder, load_lessons

        lessons = load_lessons(lessons_folder())[0]
    out, at = [], {}
    for lesson in lessons:
        for k, step in enumerate(lesson.steps, 1):
            link = PAGES.parse_link(step.url)
            if not link.values.get("run") or link.page.build is None:
                continue
            config = link.page.run_config(link.values, link_tree(link.values)[0])
            if config is None:
                continue
            key = config.to_json()
            if key not in at:
                at[key] = len(out)
                out.append((config, family(config.algorithm).run, []))
            out[at[key]][2].append((lesson.id, k))
    return out


def lesson_runs(lessons=None) -> list[tuple[RunConfig, Callable]]:
    """``(config, run function)`` of every run a lesson step's link starts (``run=1``), once each, in
    the order the lessons (default: those the app reads) use them: the configuration the step's page
    builds from the link (its spec's :meth:`~workbench.declarations.page_spec.PageSpec.run_config`)."""
    return [(config, run_fn) for config, run_fn, _ in _lesson_run_steps(lessons)]


#: the lesson step a session opened last, ``(lesson id, step)``: the runs ahead take its lesson's first
_OPENED: list = [None]


def lesson_opened(lesson_id: str, step: int) -> None:
    """A session opened step ``step`` of the lesson ``lesson_id``: the lessons' runs ahead not yet
    run (:func:`run_lesson_runs`) take that lesson's runs from that step on first, the nearest step
    first, so that a class that starts with a late lesson finds its runs ready (or nearly)."""
    _OPENED[0] = (str(lesson_id), int(step))


def _next_run(uses: list[list[tuple[str, int]]]) -> int:
    """The index, among runs whose steps are ``uses``, of the run to run next: the one a step of the
    lesson opened last launches at or soonest after the step opened (:func:`lesson_opened`); else
    the first, in the lessons' order."""
    opened = _OPENED[0]
    if opened is None:
        return 0
    lesson_id, k = opened
    soonest = [(min(s for x, s in steps if x == lesson_id and s >= k), i) for i, steps in enumerate(uses)
               if any(x == lesson_id and s >= k for x, s in steps)]
    return min(soonest)[1] if soonest else 0


def run_lesson_runs(pool: "_Pool", runs: list[tuple[RunConfig, Callable]] | None = None) -> int:
    """Run each of ``runs`` (default :func:`lesson_runs`) that has no result yet
    (:func:`cached_result`) in ``pool``, one at a time (a student's run waits for one of them at
    most), the lesson a session opened last first (:func:`lesson_opened`), their results kept in
    this process (not recorded in the history); a session that launches one of them meanwhile
    watches it. Returns how many ran."""
    try:
        todo = _lesson_run_steps() if runs is None else [(config, run_fn, []) for config, run_fn in runs]
        store = RunStore(default_db_target())
    except (EngineError, OSError) as exc:
        print(f"the lessons' runs are not run ahead: {public_message(exc)}", file=sys.stderr)
        return 0
    ran, total, t0 = 0, len(todo), time.perf_counter()
    with store:
        while todo:
            if pool.stopping:
                break
            config, run_fn, _ = todo.pop(_next_run([uses for _, _, uses in todo]))
            if cached_result(config, run_fn, store) is not None:
                continue
            key = result_key(config, run_fn)
            with _RESULTS_LOCK:
                job = _GOING.get(key)   # a session started it first: wait for it
                new = job is None
                if new:
                    job = _GOING[key] = Job(key=f"lesson|{config.to_json()}")
                    job.result_key = key
            if new:
                try:
                    job.submit(pool, "run", (config, run_fn, (None, None), "lesson"))
                except Exception as exc:   # noqa: BLE001 - the executor shut down (the server stops), or a bug
                    # a session watching it is told (one line), and launches its own next time
                    job.error = (RunCancelled("the server stopped") if pool.stopping else
                                 EngineError(f"the run could not start ({type(exc).__name__}); launch it again"))
                    _job_ended(job)
                    job.done.set()
                    if not pool.stopping:
                        traceback.print_exc()
                    break
                ran += 1
            while not job.done.wait(1.0):
                if pool.stopping:
                    return ran
    if total and not pool.stopping:
        print(f"[warm-up] the lessons' {total} runs ready in {time.perf_counter() - t0:.0f} s ({ran} run now, "
              f"{total - ran} from the run history or another session)", flush=True)
    return ran


class Job:
    """One run, in the worker pool or in a thread, watched by the script: progress, ETA, queue
    position, cancel, outcome.

    ``work(progress)`` (thread mode) runs in a background thread; ``progress(fraction, message)``
    stores the report (no Streamlit call happens in the thread) and raises :class:`RunCancelled`
    once cancel is asked. In pool mode the job is submitted with :meth:`submit` instead.
    """

    def __init__(self, work: Callable[[Callable[[float, str], None]], Any] | None = None, key: str = ""):
        self.work = work
        self.key = key
        self.id = uuid.uuid4().hex[:12]
        self.fraction = 0.0
        self.message = "starting"
        self.value: Any = None
        self.error: BaseException | None = None
        self.run_id: int | None = None
        self.done = threading.Event()
        self.cancelled = threading.Event()
        self.started = time.perf_counter()
        self.started_at: float | None = None   # when a worker took it
        self.ended: float | None = None
        self.future: Future | None = None
        self.pool: _Pool | None = None
        self._eta: Countdown | None = None   # the time left as shown: never more than shown before
        self.result_key: tuple | None = None   # a run's configuration (see cached_result)

    def start(self) -> "Job":
        """Run ``work`` in a background thread of this process."""
        self.started = self.started_at = time.perf_counter()
        threading.Thread(target=self._target, name=f"run-{self.id}", daemon=True).start()
        return self

    def submit(self, pool: _Pool, kind: str, payload: tuple) -> "Job":
        """Queue the job in the worker pool."""
        self.pool = pool
        self.started = time.perf_counter()
        pool.submit(self, kind, payload)
        return self

    def cancel(self) -> None:
        """Ask the run to stop at its next progress report (or not to start)."""
        self.cancelled.set()
        if self.pool is not None:
            self.pool.cancel(self)

    def progress(self, fraction: float, message: str) -> None:
        if self.cancelled.is_set():
            raise RunCancelled("cancelled by the user")
        self.fraction = min(max(float(fraction), 0.0), 1.0)
        self.message = message

    def _target(self) -> None:
        try:
            self.value = self.work(self.progress)
        except BaseException as exc:  # kept for the script thread, which shows or raises it
            self.error = exc
            self.run_id = getattr(exc, "run_id", None)
        finally:
            self.ended = time.perf_counter()
            _job_ended(self)
            self.done.set()

    @property
    def queued(self) -> int:
        """Runs ahead of this one in the queue (0 once it runs)."""
        return 0 if self.pool is None or self.done.is_set() else self.pool.ahead(self)

    @property
    def elapsed(self) -> float:
        start = self.started_at or self.started
        return (self.ended or time.perf_counter()) - start

    @property
    def preparing(self) -> float | None:
        """Seconds left (an estimate) while the workers compile the kernels this run calls, else ``None``."""
        if self.pool is None or self.started_at is not None or self.done.is_set():
            return None
        return self.pool.preparing_left(self)

    def text(self) -> str:
        if self.preparing is not None:
            stages = self.pool.stages_of(self)
            what = (f"the kernels of {', '.join(stage_label(n) for n in stages)} first" if stages else
                    "the learning algorithms")
            return (f"preparing ({self.pool.preparing_text(self)}): the server's run workers compile {what}, once "
                    "after an install. Your run starts by itself; you may leave this page.")
        if self.started_at is None and not self.done.is_set():
            ahead = self.queued
            workers = self.pool.workers if self.pool else 1
            return (f"Busy: the server runs {workers} run{'s' if workers > 1 else ''} at a time; "
                    + (f"{ahead} run{'s' if ahead != 1 else ''} ahead of yours" if ahead else "yours is next")
                    + ". It starts by itself; you may leave this page.")
        return f"{self.message} · {self.eta()}"

    def eta(self) -> str:
        """The time left as the bar says it: from the progress so far, never more than it said before
        (a run that slows down runs out its estimate and says so, with the machine's load)."""
        f = self.fraction
        if f <= 0.02 or self.elapsed < _ETA_AFTER:   # too little progress yet to say anything useful
            return "estimating time left"
        left = self.elapsed * (1 - f) / f
        if self._eta is None:
            self._eta = Countdown(left, clock=time.perf_counter)
        else:
            self._eta.update(left)
        if f >= 1 or not self._eta.overdue:
            return format_eta(self._eta.left())
        return f"{self.elapsed:.0f} s so far, longer than expected, no time left to promise; {busy_text()}"


def _jobs() -> dict[str, Job]:
    return S.setdefault("jobs", {})


def _watch(job: Job, label: str, *, cancel: bool = True):
    """Draw the job's status until it ends (with a Cancel button unless ``cancel`` is false: a run
    another session started); the job's outcome is left on the job. Every update says
    ``expanded=True`` while the run goes on: an update without it clears the expanded state, and
    Streamlit then draws the status closed, its Cancel button hidden and out of the Tab order
    (docs/accessibility.md)."""
    with st.status(label, expanded=True) as status:
        bar = st.progress(job.fraction, text=job.text())
        if not cancel:
            st.caption("This run of the same settings was started already (by another session, or ahead of the "
                       "lessons): its result shows here too.")
        else:
            try:
                st.button("Cancel", key=S.key("cancel", job.id), icon=":material/stop_circle:",
                          on_click=_cancel, args=(job,))
            except StreamlitAPIException:  # launched inside a form, where buttons are not allowed
                st.caption("The run cannot be cancelled from inside a form.")
        queued = job.started_at is None
        preparing = job.preparing is not None
        if preparing:
            status.update(label=f"{label}: preparing", state="running", expanded=True)
        elif queued:
            status.update(label=f"{label}: queued (the server is busy)", state="running", expanded=True)
        with out_of_turn():   # a run of minutes must not hold one of the server's script turns
            while not job.done.wait(_POLL):
                if preparing and job.preparing is None:
                    preparing = False
                    if job.started_at is None:
                        status.update(label=f"{label}: queued (the server is busy)", state="running",
                                      expanded=True)
                if queued and job.started_at is not None:
                    queued = preparing = False
                    status.update(label=label, state="running", expanded=True)
                bar.progress(job.fraction, text=job.text())
        _jobs().pop(job.key, None)
        if isinstance(job.error, RunCancelled):
            bar.progress(job.fraction, text=f"cancelled after {job.elapsed:.1f} s")
            status.update(label=f"{label}: cancelled", state="error", expanded=False)
        elif job.error is not None:
            status.update(label=f"{label}: failed", state="error")
        else:
            bar.progress(1.0, text=f"done in {job.elapsed:.1f} s")
            status.update(label=f"{label}: done in {job.elapsed:.1f} s", state="complete", expanded=False)
    return status


def _cancel(job: Job) -> None:
    job.cancel()
    with out_of_turn():
        job.done.wait(3.0)  # most runs report often: let the history say "cancelled" before the page redraws
    st.toast("Run cancelled", icon=":material/stop_circle:")


def _start(key: str, kind: str, payload: tuple, work, result_key: tuple | None = None,
           share: bool = False) -> Job | None:
    """The job for ``key``: the same run still going (attach to it), or a new one; ``None`` (with
    a message) when this session already has its share of the server's runs. ``result_key`` (a
    run's configuration, :func:`result_key`) keeps the run's result once it finishes; with
    ``share``, a run of it that another session or the lessons' runs ahead started is attached to
    as well (it is not this session's: no Cancel, no share of the runs)."""
    jobs = _jobs()
    job = jobs.get(key)
    if job is not None and not job.done.is_set():
        return job
    if result_key is not None and share:
        with _RESULTS_LOCK:
            going = _GOING.get(result_key)
        if going is not None and not going.done.is_set():
            return going
    mine = [j for j in jobs.values() if not j.done.is_set()]
    cap = per_session_cap()
    if len(mine) >= cap:
        st.warning(f"You already have {len(mine)} run{'s' if len(mine) > 1 else ''} going on this server "
                   f"(at most {cap} per session, so that every student's run gets its turn): wait for it "
                   "or cancel it, then launch again. The Runs page shows it live.",
                   icon=":material/hourglass_top:")
        return None
    try:
        pool = _get_pool()
    except EngineError as exc:   # the server is stopping
        st.warning(public_message(exc))
        return None
    job = Job(work, key)
    job.result_key = result_key
    if result_key is not None:
        with _RESULTS_LOCK:
            _GOING[result_key] = job
    job = job.start() if pool is None else job.submit(pool, kind, payload)
    jobs[key] = job
    return job


def _succeeded(job: Job) -> bool:
    """Whether a finished job succeeded; a cancellation is silent, an engine error is shown, and any
    other error is raised (a bug, not bad input)."""
    if isinstance(job.error, RunCancelled):
        return False
    if isinstance(job.error, EngineError):
        st.error(public_message(job.error))
        return False
    if job.error is not None:
        raise job.error
    return True


def _where(store: RunStore | None) -> tuple[str | None, str | None]:
    """What a worker process needs to record a run as this session would: the history's target
    (``None``: not recorded) and the view's owner (a classroom student's; ``None``: nobody's)."""
    return (None, None) if store is None else (store.target, store.owner)


def last_run() -> int | None:
    """The id of the last run :func:`launch` recorded in this session (None: none yet)."""
    return S.last_run


def _every_owner(store: RunStore | None) -> RunStore | None:
    """The whole run history behind ``store`` (a session's view of it): a configuration's result is
    the same whoever ran it."""
    return None if store is None else _history(default_db_target())


def _show_earlier(label: str, result: RunResult, run_id: int | None) -> None:
    """Say that the result shown is an earlier run's, of exactly these settings."""
    took = f" (it ran in {result.seconds:.1f} s)" if result.seconds is not None else ""
    where = f"run {run_id} of the run history" if run_id is not None else "an earlier run on this server"
    st.caption(f"{label}: the result of {where}, with exactly these settings{took}; the same settings give "
               "the same result, so it opens at once.", help="A run's configuration fixes its seed: runs of it "
               "agree. Change a setting or the seed for a new run.")


def launch(config: RunConfig, run_fn, *, label: str = "Running", reuse: bool = False) -> RunResult | None:
    """Run ``run_fn(config, progress)`` with visible progress, record it; ``None`` if it failed (shown).
    With ``reuse``, a configuration that ran before opens on that run's result (:func:`cached_result`,
    said so) and one running in another session is watched, not started again."""
    from engine.runs.execute import execute

    store = history()
    earlier = cached_result(config, run_fn, _every_owner(store)) if reuse else None
    if earlier is not None:
        _show_earlier(label, *earlier)
        return earlier[0]

    def work(progress):   # thread mode: the same steps as a worker's
        out: dict[str, Any] = {}

        def capture(cfg, progress):
            out["result"] = run_fn(cfg, progress)
            return out["result"]

        if store is None:
            capture(config, progress)
        else:
            out["run_id"] = execute(config, progress, store, run_fn=capture, label=label).id
        return out

    key = f"{label}|{getattr(run_fn, '__module__', '')}.{getattr(run_fn, '__qualname__', '')}|{config.to_json()}"
    job = _start(key, "run", (config, run_fn, _where(store), label), work, result_key(config, run_fn), share=reuse)
    if job is None:
        return None
    mine = job.key == key and _jobs().get(key) is job
    _watch(job, label, cancel=mine)
    if not _succeeded(job):
        return None
    rid = job.value.get("run_id")
    if rid is not None and mine:
        S.last_run = rid
        st.caption(f"Recorded as run {rid} in the run history (see the Runs page).")
    elif rid is not None:
        st.caption(f"Recorded as run {rid} in the run history, by the session that started it.")
    return job.value["result"]


def launch_sweep(spec: dict, *, label: str = "Sweep", n_jobs: int | None = None):
    """Run a sweep config in the background with a status box; its records, or ``None`` (shown)."""
    from engine.runs.execute import execute_sweep

    store = history()
    if store is None:
        return None
    job = _start(f"sweep|{label}|{json.dumps(spec, sort_keys=True, default=str)}", "sweep",
                 (spec, _where(store), "", n_jobs),
                 lambda progress: execute_sweep(spec, progress, store, n_jobs=n_jobs, label=""))
    if job is None:
        return None
    _watch(job, label)
    return job.value if _succeeded(job) else None
