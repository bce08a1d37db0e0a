"""Running a config and recording it in the run history; sweeps over a grid of settings.

:func:`execute` runs one config through its family's ``run`` (the protocol of
:mod:`engine.runs.protocol`) and records it in a :class:`~engine.runs.store.RunStore`: the record
is written as ``running`` before the run starts, its progress is saved now and then, and its end
(``finished`` with metrics, curves and artefacts; ``failed`` with the error; ``cancelled``;
``interrupted``) is one transaction.

Sweep syntax. A config with a ``"sweep"`` key is a sweep; every other key is an ordinary setting,
so a setting whose value is genuinely a list (a list of sizes) is never mistaken for a grid::

    {"algorithm": "hedge", "tree": {"generate": "path", "n": 15}, "eta": 0.1,
     "sweep": {"eta": [0.05, 0.1, 0.2], "seed": [0, 1], "tree.n": [15, 63]}}

* ``"sweep": {setting: [values...], ...}`` is a grid: the Cartesian product of the lists, in key
  order, the last key varying fastest (here 3 x 2 x 2 = 12 runs). A dotted name (``tree.n``)
  reaches into a dict-valued setting. To sweep a list-valued setting, give a list of lists:
  ``"sweep": {"sizes": [[10, 20], [10, 20, 40]]}``.
* ``"sweep": [{...}, {...}]`` is an explicit list of points, each a dict of overrides (settings
  that change together, e.g. ``[{"eta": 0.1, "seed": 0}, {"eta": 0.2, "seed": 5}]``).

:func:`execute_sweep` runs the points in parallel with joblib (``backend="loky"``, processes on
this machine; ``"threading"``; or ``"dask"``, on a ``dask.distributed`` cluster through joblib's
dask backend). Every point is recorded as its own run, all sharing one sweep id.

On a ``dask.distributed`` cluster each point is one task of the scheduler, recorded by this process
when its result arrives, so a point is recorded once whatever happens to the workers: a worker that
dies (killed, out of memory, its node gone) has its points run again by the others. A scheduler
that goes away stops the sweep with one :class:`SweepInterrupted` error: the points already done stay
recorded, the others are recorded ``interrupted`` with an error saying they were not run, and
:func:`resume_sweep` (``python -m engine runs resume SWEEP_ID``) runs them, under the same records.
"""

from __future__ import annotations

import copy
import importlib
import itertools
import os
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

from engine import limits
from engine.errors import EngineError, InvalidParameterError
from engine.runs.protocol import ProgressCallback, RunCancelled, RunConfig, RunResult
from engine.runs.registry import config_from_dict, family, load_spec
from engine.runs.store import RunRecord, RunStore

__all__ = ["execute", "execute_sweep", "resume_sweep", "expand_sweep", "is_sweep", "SweepPoint", "Outcome",
           "SweepInterrupted", "BACKENDS", "NOT_RUN"]

BACKENDS = ("loky", "threading", "dask")
_REPORT_EVERY = 0.5  # seconds between two progress writes to the history
#: how the error of a sweep point that never ran because the sweep stopped begins
NOT_RUN = "not run"


class SweepInterrupted(EngineError):
    """A sweep stopped before its end because its dask scheduler went away. The points done are
    recorded; the others are recorded ``interrupted`` (not run). ``sweep_id`` names the sweep to
    resume with :func:`resume_sweep`."""

    def __init__(self, message: str, sweep_id: str | None = None, reason: str = ""):
        super().__init__(message)
        self.sweep_id = sweep_id
        self.reason = reason or message


@dataclass(frozen=True)
class SweepPoint:
    """One point of a sweep: the full config dict and the settings that define the point."""

    config: dict[str, Any]
    overrides: dict[str, Any]

    @property
    def label(self) -> str:
        return " ".join(f"{k}={_short(v)}" for k, v in self.overrides.items())


def _short(v) -> str:
    s = str(v) if not isinstance(v, str) else v
    return s if len(s) <= 40 else s[:37] + "..."


def is_sweep(spec) -> bool:
    """Whether a config (dict, path or config object) is a sweep."""
    return not isinstance(spec, RunConfig) and "sweep" in load_spec(spec)


def _set(d: dict, dotted: str, value) -> None:
    keys = dotted.split(".")
    for k in keys[:-1]:
        if not isinstance(d.get(k), dict):
            raise InvalidParameterError(
                f"sweep setting {dotted!r}: {k!r} is not a dict-valued setting of the config")
        d[k] = dict(d[k])
        d = d[k]
    d[keys[-1]] = value


def expand_sweep(spec) -> list[SweepPoint]:
    """The points of a sweep (a config without ``"sweep"`` is a sweep of one point)."""
    spec = load_spec(spec)
    base = {k: v for k, v in spec.items() if k != "sweep"}
    sweep = spec.get("sweep")
    if sweep is None:
        return [SweepPoint(base, {})]
    if isinstance(sweep, dict):
        if not sweep:
            raise InvalidParameterError("'sweep' is empty; give {setting: [values, ...]}")
        for k, v in sweep.items():
            if not isinstance(v, list) or not v:
                raise InvalidParameterError(
                    f"sweep setting {k!r} must be a non-empty list of values, got {str(v)[:40]}")
        names = list(sweep)
        from engine import limits

        points = 1
        for k in names:
            points *= len(sweep[k])
            limits.check("grid", points, "sweep: " + " x ".join(str(len(sweep[n])) for n in names) + " points =")
        overrides = [dict(zip(names, combo)) for combo in itertools.product(*(sweep[k] for k in names))]
    elif isinstance(sweep, list):
        from engine import limits

        limits.check("grid", len(sweep), "sweep: points")
        if not sweep or not all(isinstance(p, dict) for p in sweep):
            raise InvalidParameterError("a 'sweep' list must be a non-empty list of dicts of settings")
        overrides = [dict(p) for p in sweep]
    else:
        raise InvalidParameterError(
            f"'sweep' must be a dict of lists or a list of dicts, got {type(sweep).__name__}")
    points = []
    for ov in overrides:
        d = copy.deepcopy(base)
        for k, v in ov.items():
            if k == "sweep":
                raise InvalidParameterError("a sweep cannot sweep 'sweep'")
            _set(d, k, copy.deepcopy(v))
        points.append(SweepPoint(d, ov))
    return points


class _Reporter:
    """The progress callback handed to a run: clamps, forwards, saves to the history now and then."""

    def __init__(self, progress: ProgressCallback | None, store: RunStore, run_id: int):
        self.progress, self.store, self.run_id = progress, store, run_id
        self.last = 0.0

    def __call__(self, fraction: float, message: str = "") -> None:
        f = float(fraction)
        f = 0.0 if f != f else min(max(f, 0.0), 1.0)
        if self.progress is not None:
            self.progress(f, message)  # may raise RunCancelled
        now = time.monotonic()
        if now - self.last >= _REPORT_EVERY:
            self.last = now
            self.store.report(self.run_id, f, message)


class Outcome(NamedTuple):
    """How one run ended: ``status`` (``finished``, ``failed``, ``cancelled``, ``interrupted``),
    ``payload`` (the :class:`RunResult` when finished, else the error line to record), when it
    started (Unix time), how long it ran, and the exception it ended with (None when finished)."""

    status: str
    payload: Any
    started: float
    seconds: float
    error: BaseException | None = None


def _outcome(run_fn: Callable, config: RunConfig, progress) -> Outcome:
    """Run ``run_fn(config, progress)`` and say how it ended; the one place a run's end is classified."""
    started = time.time()
    t0 = time.perf_counter()

    def ended(status, payload, error=None):
        return Outcome(status, payload, started, time.perf_counter() - t0, error)

    try:
        result = run_fn(config, progress)
        if not isinstance(result, RunResult):
            raise TypeError(f"{config.algorithm} run returned {type(result).__name__}, not a RunResult")
        return ended("finished", result)
    except RunCancelled as exc:
        return ended("cancelled", str(exc) or "cancelled", exc)
    except EngineError as exc:
        return ended("failed", str(exc), exc)
    except (KeyboardInterrupt, SystemExit) as exc:
        # a Ctrl-C says nothing; a server that stops its run workers says so (the app's run pool)
        why = str(exc) if isinstance(exc, KeyboardInterrupt) else ""
        return ended("interrupted", why or "interrupted by the user", exc)
    except Exception as exc:  # a bug: recorded with its type, then raised again by the caller
        return ended("failed", f"{type(exc).__name__}: {exc}", exc)


def execute(config, progress: ProgressCallback | None = None, store: RunStore | None = None, *,
            run_fn: Callable | None = None, label: str = "", sweep: str | None = None) -> RunRecord:
    """Run ``config`` (a config object, dict or JSON file) and record it; the finished record.

    ``progress(fraction, message)`` is called as the run advances and may raise
    :class:`RunCancelled`. ``store`` defaults to the history at ``$TREE_WORKBENCH_DB``.
    ``run_fn`` overrides the family's ``run`` (the app passes its own).

    A run that fails or is cancelled is recorded (``failed``/``cancelled``), then its exception is
    raised again with the record's id as ``exc.run_id``; Ctrl-C records ``interrupted``.
    """
    cfg = config if isinstance(config, RunConfig) else None
    if cfg is None:
        spec = load_spec(config)
        if "sweep" in spec:
            raise InvalidParameterError("this config is a sweep (it has a 'sweep' key): use execute_sweep")
        cfg = config_from_dict(spec)
    cfg.validate()  # the contract: an invalid config is refused before anything is recorded
    if run_fn is None:
        run_fn = family(cfg.algorithm).run
    own = store is None
    store = RunStore() if own else store
    try:
        run_id = store.start(cfg.to_dict(), label=label, sweep=sweep)
        out = _outcome(run_fn, cfg, _Reporter(progress, store, run_id))
        _record(store, run_id, out._replace(started=None))  # keep the start time written above
        if out.error is not None:
            out.error.run_id = run_id
            raise out.error
        return store.get(run_id)
    finally:
        if own:
            store.close()


def _run_point(module: str, class_name: str, config: dict[str, Any]) -> Outcome:
    """Run one sweep point in a worker (its family was imported and its config validated by the parent)."""
    mod = importlib.import_module(module)
    cfg = getattr(mod, class_name).from_dict(config)
    out = _outcome(mod.run, cfg, None)
    if out.status == "interrupted":
        raise out.error
    return out._replace(error=None)  # exceptions need not pickle back to the parent


def execute_sweep(spec, progress: ProgressCallback | None = None, store: RunStore | None = None, *,
                  n_jobs: int | None = None, backend: str = "loky", scheduler: str | None = None,
                  label: str = "") -> list[RunRecord]:
    """Run every point of a sweep (see the module docstring) and record each; the records, in grid order.

    ``n_jobs`` (default: one per core; with dask, every point at once) runs in parallel through
    joblib's ``backend``: ``"loky"`` (processes) or ``"threading"``; or ``"dask"``, each point a
    task of a ``dask.distributed`` cluster. With ``"dask"``, ``scheduler`` is the address of its
    scheduler (``tcp://host:8786``); without it the current ``distributed.Client`` is used.
    ``n_jobs=1`` runs the points one after another in this process (with per-run progress).
    ``progress(fraction, message)`` reports the share of points done and may raise
    :class:`RunCancelled`: the points not yet done are then recorded ``cancelled`` and the exception
    is raised again. A failing point is recorded ``failed`` and the sweep goes on. A dask scheduler
    that goes away raises :class:`SweepInterrupted` (see the module docstring).
    """
    _check_backend(backend)
    if n_jobs is not None:   # (joblib would start that many workers)
        limits.check("jobs", n_jobs, "n_jobs")
    points = expand_sweep(spec)
    configs = []
    for p in points:
        try:
            configs.append(config_from_dict(p.config))
        except EngineError as exc:
            if not p.overrides:
                raise
            msg = f"{exc} (sweep point {p.label})"
            try:
                named = type(exc)(msg)
            except TypeError:  # an error class with other constructor arguments
                named = InvalidParameterError(msg)
            raise named from None
    sequential = n_jobs == 1 or (len(configs) == 1 and backend != "dask")
    client = _dask_client(scheduler) if backend == "dask" and not sequential else None  # before any record
    sweep_id = "sw-" + uuid.uuid4().hex[:10]
    own = store is None
    store = RunStore() if own else store
    try:
        ids = [store.start(c.to_dict(), label=(f"{label} {p.label}".strip()), sweep=sweep_id)
               for c, p in zip(configs, points)]
        _run_points(configs, ids, store, progress, sweep_id, n_jobs=n_jobs, backend=backend,
                    sequential=sequential, client=client)
        return [store.get(i) for i in ids]
    finally:
        _close(client)
        if own:
            store.close()


def resume_sweep(sweep_id: str, progress: ProgressCallback | None = None, store: RunStore | None = None, *,
                 n_jobs: int | None = None, backend: str = "loky", scheduler: str | None = None
                 ) -> list[RunRecord]:
    """Run again the points of sweep ``sweep_id`` that did not finish (not run because the sweep
    stopped, failed, cancelled or interrupted), each under its own record; all the sweep's records,
    in grid order. The options are those of :func:`execute_sweep`. A point still running (in a live
    process) is refused: the sweep is not over.

    >>> from engine.runs.store import RunStore
    >>> resume_sweep("sw-0000000000", store=RunStore(":memory:"))
    Traceback (most recent call last):
    ...
    engine.errors.InvalidParameterError: no sweep 'sw-0000000000' in the history :memory:
    """
    _check_backend(backend)
    if n_jobs is not None:   # (joblib would start that many workers)
        limits.check("jobs", n_jobs, "n_jobs")
    own = store is None
    store = RunStore() if own else store
    client = None
    try:
        store.mark_interrupted()
        recs = sorted(store.list(sweep=str(sweep_id)), key=lambda r: r.id)
        if not recs:
            raise InvalidParameterError(f"no sweep {str(sweep_id)[:40]!r} in the history {store.path}")
        busy = [r for r in recs if r.status == "running"]
        if busy:
            r = busy[0]
            raise InvalidParameterError(
                f"sweep {sweep_id} has {len(busy)} point{'s' if len(busy) > 1 else ''} still running (run {r.id}, "
                f"process {r.pid} on {r.host}); wait for it to end or stop it, then resume")
        todo = [r for r in recs if r.status != "finished"]
        if todo:
            configs = [config_from_dict(r.config) for r in todo]  # validated before any record changes
            sequential = n_jobs == 1 or (len(configs) == 1 and backend != "dask")
            client = _dask_client(scheduler) if backend == "dask" and not sequential else None
            for r in todo:
                store.reopen(r.id)
            _run_points(configs, [r.id for r in todo], store, progress, str(sweep_id), n_jobs=n_jobs,
                        backend=backend, sequential=sequential, client=client, done_before=len(recs) - len(todo))
        return [store.get(r.id) for r in recs]
    finally:
        _close(client)
        if own:
            store.close()


def _check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise InvalidParameterError(f"unknown sweep backend {backend!r}; expected one of {', '.join(BACKENDS)}")


def _run_points(configs, ids, store, progress, sweep_id, *, n_jobs, backend, sequential, client,
                done_before: int = 0) -> None:
    """Run the recorded points ``ids`` (one per config) and record each end; the one place a
    sweep's points run, for :func:`execute_sweep` and :func:`resume_sweep`."""
    fams = {c.algorithm: family(c.algorithm) for c in configs}
    pending = set(range(len(ids)))
    base = progress or (lambda f, m: None)
    total = len(ids) + done_before

    def report(fraction, message):  # the share of the whole sweep, points done before included
        base((done_before + fraction * len(ids)) / total, message)

    try:
        if sequential:
            _sequential(configs, ids, fams, store, report, pending)
        elif backend == "dask":
            _dask(client, configs, ids, fams, store, report, pending, sweep_id, n_jobs, done_before)
        else:
            _parallel(configs, ids, fams, store, report, pending, n_jobs, backend)
    except RunCancelled:
        for i in sorted(pending):
            store.end(ids[i], "cancelled", "the sweep was cancelled")
        raise
    except SweepInterrupted as exc:
        for i in sorted(pending):
            store.end(ids[i], "interrupted", f"{NOT_RUN}: {exc.reason}; resume the sweep with "
                      f"python -m engine runs resume {sweep_id}")
        raise
    except BaseException as exc:
        status = "interrupted" if isinstance(exc, (KeyboardInterrupt, SystemExit)) else "failed"
        for i in sorted(pending):
            store.end(ids[i], status, f"the sweep stopped: {type(exc).__name__}: {exc}"[:500])
        raise


def _record(store: RunStore, run_id: int, out: Outcome) -> None:
    if out.status == "finished":
        store.finish(run_id, out.payload, seconds=out.seconds, started=out.started)
    else:
        store.end(run_id, out.status, out.payload, seconds=out.seconds, started=out.started)


def _sequential(configs, ids, fams, store, report, pending) -> None:
    n = len(configs)
    for i, (cfg, run_id) in enumerate(zip(configs, ids)):
        def sub(f, m, i=i):
            report((i + f) / n, f"run {i + 1}/{n}: {m}")

        out = _outcome(fams[cfg.algorithm].run, cfg, _Reporter(sub, store, run_id))
        if out.status in ("cancelled", "interrupted"):
            raise out.error  # the sweep records this point and the ones not yet run
        _record(store, run_id, out)
        pending.discard(i)
        report((i + 1) / n, f"{i + 1}/{n} runs done")


def _dask_client(scheduler: str | None):
    """A client of ``scheduler`` (closed by the caller), or the current client (left open)."""
    try:
        from distributed import Client, get_client
    except ImportError:
        raise InvalidParameterError(
            "the dask backend needs dask.distributed (pip install 'dask[distributed]')") from None
    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as exc:
            raise InvalidParameterError(f"cannot reach the dask scheduler {scheduler}: {exc}") from None
        client._workbench_own = True
        return client
    try:
        return get_client()
    except ValueError:
        raise InvalidParameterError(
            "the dask backend needs a scheduler address (--scheduler tcp://host:8786) "
            "or a running distributed.Client") from None


def _close(client) -> None:
    """Close a client this module opened (quietly and briefly: its scheduler may be gone)."""
    if client is None or not getattr(client, "_workbench_own", False):
        return
    with _quiet_dask():
        try:
            client.close(timeout=5)
        except Exception:  # noqa: BLE001 - a client of a lost scheduler may fail to close; nothing is left to save
            pass


class _quiet_dask:
    """Keep the dask client's own log lines (a traceback per failed reconnection) off stderr while a
    sweep runs: what went wrong reaches the user as one error line."""

    _NAMES = ("distributed.client", "distributed.comm", "distributed.core", "distributed.batched",
              "distributed.utils")

    def __enter__(self):
        import logging

        self.saved = [(logging.getLogger(n), logging.getLogger(n).level) for n in self._NAMES]
        for lg, _ in self.saved:
            lg.setLevel(logging.CRITICAL)
        return self

    def __exit__(self, *exc):
        for lg, level in self.saved:
            lg.setLevel(level)


_POLL = 0.1  # seconds between two looks at the dask futures


def _dask(client, configs, ids, fams, store, report, pending, sweep_id, n_jobs, done_before) -> None:
    """Every point a task of the scheduler; each result recorded as it arrives (in any order).

    A worker lost mid-task: the scheduler runs the task again elsewhere, and it is recorded once,
    here. The scheduler lost: the client cancels every future (``scheduler-connection-lost``) and
    the sweep stops with :class:`SweepInterrupted`.
    """
    n = len(configs)
    address = getattr(getattr(client, "scheduler", None), "address", None) or "of the current client"
    order = list(range(n))
    limit = n_jobs if n_jobs and n_jobs > 0 else n
    live: dict[Any, int] = {}
    done = 0
    last = time.monotonic()
    token = uuid.uuid4().hex[:6]

    def submit():
        while order and len(live) < limit:
            i = order.pop(0)
            c = configs[i]
            fut = client.submit(_indexed, i, fams[c.algorithm].module, type(c).__name__, c.to_dict(),
                                key=f"{sweep_id}-{token}-point-{i}", pure=False)
            live[fut] = i

    report(0.0, f"0/{n} runs done")
    with _quiet_dask():
        try:
            submit()
            while live:
                ready = [f for f in live if f.done()]
                if not ready:
                    if client.status in ("closing", "closed"):
                        raise _lost(address, sweep_id, done_before + done, done_before + n, "the client closed")
                    time.sleep(_POLL)
                    if time.monotonic() - last >= 1.0:  # lets a progress callback cancel while nothing ends
                        last = time.monotonic()
                        report(done / n, f"{done}/{n} runs done")
                    continue
                for fut in ready:
                    i = live.pop(fut)
                    if fut.status == "cancelled":
                        raise _lost(address, sweep_id, done_before + done, done_before + n,
                                    "the client lost the connection to it")
                    if fut.status == "error":
                        exc = fut.exception()
                        # the task itself failed (a point's own errors come back as outcomes): e.g. its
                        # workers kept dying (KilledWorker), or it could not reach a worker
                        store.end(ids[i], "failed", f"dask could not run this point: {type(exc).__name__}: {exc}"[:500])
                    else:
                        _, out = fut.result()
                        _record(store, ids[i], out)
                    pending.discard(i)
                    done += 1
                    report(done / n, f"{done}/{n} runs done")
                submit()
        finally:
            if live:
                try:
                    client.cancel(list(live), force=True)
                except Exception:  # noqa: BLE001 - the scheduler may be gone already
                    pass


def _lost(address, sweep_id: str, done: int, total: int, why: str) -> SweepInterrupted:
    return SweepInterrupted(
        f"the dask scheduler {address} went away ({why}) after {done} of {total} points of sweep {sweep_id}: "
        f"the {done} done are recorded, the other {total - done} are marked not run; finish them with "
        f"python -m engine runs resume {sweep_id}", sweep_id, f"the dask scheduler {address} went away")


def _parallel(configs, ids, fams, store, report, pending, n_jobs, backend) -> None:
    from joblib import Parallel, delayed, parallel_config

    n = len(configs)
    jobs = n_jobs or min(n, os.cpu_count() or 1)
    report(0.0, f"0/{n} runs done")
    with parallel_config(backend=backend, n_jobs=jobs):
        gen = Parallel(return_as="generator_unordered")(
            delayed(_indexed)(i, fams[c.algorithm].module, type(c).__name__, c.to_dict(),
                              os.getpid() if backend == "loky" else None)
            for i, c in enumerate(configs))
        try:
            for done, (i, out) in enumerate(gen, 1):
                _record(store, ids[i], out)
                pending.discard(i)
                report(done / n, f"{done}/{n} runs done")
        finally:
            gen.close()  # cancels the points not yet started


def _indexed(i: int, module: str, class_name: str, config: dict[str, Any], parent: int | None = None):
    if parent is not None and parent != os.getpid():
        _watch_parent(parent)
    return i, _run_point(module, class_name, config)


_WATCHING: set[int] = set()


def _watch_parent(parent: int, interval: float = 1.0) -> None:
    """In a sweep's worker process: exit as soon as the process that started the sweep is gone
    (killed, crashed), instead of running its points on for nobody (loky keeps idle workers)."""
    import threading

    if parent in _WATCHING:
        return
    _WATCHING.add(parent)

    def watch():
        while True:
            time.sleep(interval)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(3)
            except PermissionError:  # alive, another user's (cannot happen for our own parent)
                pass
            if os.getppid() == 1 and parent != 1:  # re-parented to init: the parent died
                os._exit(3)

    threading.Thread(target=watch, name="sweep-parent-watch", daemon=True).start()
