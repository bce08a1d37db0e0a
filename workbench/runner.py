"""Launching a run from a page: ``st.status`` with a progress bar, an ETA and a Cancel button.

Every learning page calls :func:`launch` with a run config and its family's ``run`` function
(the protocol of ``engine.runs.protocol``) and gets the run's :class:`RunResult` back (``None``
when it failed or was cancelled; the reason is shown). The run itself goes to a background thread
and is recorded in the run history (``engine.runs.store``); the script only polls it, so the page
stays live: the bar and the ETA move, Cancel stops the run at its next progress report (the
callback raises ``RunCancelled``) and the run is recorded ``cancelled``. If the user leaves the
page or touches another widget mid-run, the run goes on in the background and is recorded; the
Runs page shows it live (fragment polling) and launching the same config again attaches to it.
The id of the last run recorded by :func:`launch` is kept in ``st.session_state["runner_last_run"]``.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any, Callable, Optional

import streamlit as st
from streamlit.errors import StreamlitAPIException

from engine.files import public_message
from engine.errors import EngineError
from engine.runs.protocol import RunCancelled, RunConfig, RunResult
from engine.runs.store import RunStore, default_db_path

__all__ = ["launch", "launch_sweep", "format_eta", "Job", "history"]

_POLL = 0.2  # seconds between two redraws of the progress bar


def format_eta(seconds: float) -> str:
    if seconds < 1:
        return "under a second left"
    if seconds < 90:
        return f"about {seconds:.0f} s left"
    return f"about {seconds / 60:.0f} min left"


@st.cache_resource(show_spinner=False)
def _history(path: str) -> RunStore:
    return RunStore(path)


def history() -> Optional[RunStore]:
    """The run history of this app (``$TREE_WORKBENCH_DB``); ``None`` (with a warning) if unusable."""
    from workbench.state import session_owner

    try:  # in classroom mode, a view of this session's runs only (the lecturer sees all)
        return _history(str(default_db_path())).for_owner(session_owner())
    except (EngineError, OSError) as exc:
        st.warning(f"Runs are not recorded: {public_message(exc)}")
        return None


class Job:
    """Work running in a background thread, watched by the script: progress, ETA, cancel, outcome.

    ``work(progress)`` runs in the thread; ``progress(fraction, message)`` stores the report (no
    Streamlit call happens in the thread) and raises :class:`RunCancelled` once cancel is asked.
    """

    def __init__(self, work: Callable[[Callable[[float, str], None]], Any], key: str = ""):
        self.work = work
        self.key = key
        self.id = uuid.uuid4().hex[:12]
        self.fraction = 0.0
        self.message = "starting"
        self.value: Any = None
        self.error: Optional[BaseException] = None
        self.run_id: Optional[int] = None
        self.done = threading.Event()
        self.cancelled = threading.Event()
        self.started = time.perf_counter()
        self.ended: Optional[float] = None
        self._thread = threading.Thread(target=self._target, name=f"run-{self.id}", daemon=True)

    def start(self) -> "Job":
        self.started = time.perf_counter()
        self._thread.start()
        return self

    def cancel(self) -> None:
        """Ask the run to stop at its next progress report."""
        self.cancelled.set()

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
            self.done.set()

    @property
    def elapsed(self) -> float:
        return (self.ended or time.perf_counter()) - self.started

    def text(self) -> str:
        f = self.fraction
        eta = format_eta(self.elapsed * (1 - f) / f) if f > 0.02 else "estimating time left"
        return f"{self.message} · {eta}"


def _jobs() -> dict[str, Job]:
    return st.session_state.setdefault("_runner_jobs", {})


def _watch(job: Job, label: str):
    """Draw the job's status until it ends; the job's outcome is left on the job."""
    with st.status(label, expanded=True) as status:
        bar = st.progress(job.fraction, text=job.text())
        try:
            st.button("Cancel", key=f"runner_cancel_{job.id}", icon=":material/stop_circle:",
                      on_click=_cancel, args=(job,))
        except StreamlitAPIException:  # launched inside a form, where buttons are not allowed
            st.caption("The run cannot be cancelled from inside a form.")
        while not job.done.wait(_POLL):
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
    job.done.wait(3.0)  # most runs report often: let the history say "cancelled" before the page redraws
    st.toast("Run cancelled", icon=":material/stop_circle:")


def _start(key: str, work) -> Job:
    job = _jobs().get(key)
    if job is None or job.done.is_set():  # the same run still going in the background: attach to it
        job = Job(work, key).start()
        _jobs()[key] = job
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


def launch(config: RunConfig, run_fn, *, label: str = "Running") -> RunResult | None:
    """Run ``run_fn(config, progress)`` with visible progress, record it; ``None`` if it failed (shown)."""
    from engine.runs.execute import execute

    store = history()

    def work(progress):
        out: dict[str, Any] = {}

        def capture(cfg, progress):  # keep the run's own result (numpy arrays and all), not the JSON copy
            out["result"] = run_fn(cfg, progress)
            return out["result"]

        if store is None:
            capture(config, progress)
        else:
            out["run_id"] = execute(config, progress, store, run_fn=capture, label=label).id
        return out

    key = f"{label}|{getattr(run_fn, '__module__', '')}.{getattr(run_fn, '__qualname__', '')}|{config.to_json()}"
    job = _start(key, work)
    _watch(job, label)
    if not _succeeded(job):
        return None
    rid = job.value.get("run_id")
    if rid is not None:
        st.session_state["runner_last_run"] = rid
        st.caption(f"Recorded as run {rid} in the run history (see the Runs page).")
    return job.value["result"]


def launch_sweep(spec: dict, *, label: str = "Sweep", n_jobs: Optional[int] = None):
    """Run a sweep config in the background with a status box; its records, or ``None`` (shown)."""
    from engine.runs.execute import execute_sweep

    store = history()
    if store is None:
        return None
    job = _start(f"sweep|{label}|{json.dumps(spec, sort_keys=True, default=str)}",
                 lambda progress: execute_sweep(spec, progress, store, n_jobs=n_jobs, label=""))
    _watch(job, label)
    return job.value if _succeeded(job) else None
