"""Runs from the app go to a bounded pool of worker processes: a run waits in the queue when the
workers are busy (and says so), cancel works queued and running, results and errors come back, and
a session has at most its share of runs (AppTest)."""

import sys
import time

import pytest

from streamlit.testing.v1 import AppTest

from engine.errors import EngineError
from engine.runs.protocol import RunCancelled
from engine.runs.registry import load_config
from engine.runs.store import RunStore
from tests import runs_family
from workbench import runner


def _submit(pool, db, **settings):
    cfg = load_config({"algorithm": "treeflip", **settings})
    return runner.Job(key=str(settings)).submit(pool, "run", (cfg, runs_family.run, (str(db), None), "pool test"))


def test_queue_cancel_and_results(db, pool):
    slow = _submit(pool, db, steps=200, delay=0.03, tree={"generate": "path", "n": 200})   # about 6 s
    queued = _submit(pool, db, seed=1)
    third = _submit(pool, db, seed=2)
    deadline = time.time() + 60
    while slow.started_at is None and time.time() < deadline:
        time.sleep(0.05)
    assert slow.started_at is not None and "·" in slow.text()
    assert queued.started_at is None and queued.queued == 0 and "yours is next" in queued.text()
    assert third.queued == 1 and "1 run ahead of yours" in third.text()
    queued.cancel()                                     # never starts, never recorded
    assert queued.done.wait(10) and isinstance(queued.error, RunCancelled)
    while slow.fraction == 0 and time.time() < deadline:
        time.sleep(0.05)
    slow.cancel()                                       # stops at its next progress report
    assert slow.done.wait(30)
    assert isinstance(slow.error, RunCancelled) and slow.run_id is not None, (slow.fraction, slow.message)
    assert third.done.wait(60) and third.error is None
    want = runs_family.run(runs_family.TreeFlipConfig(seed=2))
    assert third.value["result"].metrics == want.metrics
    with RunStore(db) as s:
        assert s.get(slow.run_id).status == "cancelled"
        assert s.get(third.value["run_id"]).status == "finished"
        assert len(s.list()) == 2


def test_engine_errors_come_back_as_engine_errors(db, pool):
    cfg = runs_family.TreeFlipConfig(flip=0.5, tree={"generate": "nope", "n": 3})
    job = runner.Job(key="bad").submit(pool, "run", (cfg, runs_family.run, (str(db), None), "bad"))
    assert job.done.wait(60)
    assert isinstance(job.error, EngineError) and "nope" in str(job.error)


def test_a_run_in_a_worker_keeps_its_owner(db, pool):
    """A classroom student's run goes through a worker process and is recorded as hers: her view of
    the history lists it, another student's does not, the lecturer's (every run) does."""
    cfg = load_config({"algorithm": "treeflip", "seed": 3})
    job = runner.Job(key="ana").submit(pool, "run", (cfg, runs_family.run, (str(db), "ana-token"), "ana's"))
    assert job.done.wait(60) and job.error is None
    rid = job.value["run_id"]
    with RunStore(db) as s:
        assert s.get(rid).owner == "ana-token"
        assert [r.id for r in s.for_owner("ana-token").list()] == [rid]
        assert s.for_owner("ben-token").list() == []
        assert rid in [r.id for r in s.list()]


def _two_runs():
    import time

    import streamlit as st

    from engine.runs.registry import load_config
    from tests import runs_family
    from workbench.runner import Job, _jobs, launch

    # a run of this session still going (left behind by an earlier page): the cap is reached
    slow = Job(lambda progress: time.sleep(5), key="elsewhere").start()
    _jobs()["elsewhere"] = slow
    st.session_state["got"] = launch(load_config({"algorithm": "treeflip", "seed": 4}), runs_family.run,
                                     label="Second run")


def test_a_session_has_its_share_of_runs(db, monkeypatch):
    monkeypatch.setenv(runner.PER_SESSION_ENV, "1")
    at = AppTest.from_function(_two_runs, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["got"] is None
    assert any("You already have 1 run going" in w.value for w in at.warning)


@pytest.mark.parametrize("finalizer", ["__del__", "weakref callback"])
def test_a_sigterm_in_a_finalizer_waits_for_the_next_one(monkeypatch, capsys, finalizer):
    """A SIGTERM that lands in a finalizer (an llvmlite object's ``__del__``, numba's weakref
    callback for a type disposed of while the run compiles) raises where Python swallows it: it
    would print "Exception ignored in" with a traceback and the run go on. The worker's
    unraisable hook takes it without a word and leaves the run to the next SIGTERM, which
    ``_Pool.stop`` sends 0.1 s later; outside a finalizer the run ends at once, and a later SIGTERM
    while it is being recorded waits. Python's own finalizer machinery, not a mock, swallows it."""
    import weakref
    from types import SimpleNamespace as Frame

    monkeypatch.setattr(runner, "_worker_ended", None)
    monkeypatch.setattr(sys, "unraisablehook", runner._worker_unraisable)
    run = Frame(f_code=runner._worker_run.__code__, f_back=None)
    inside = Frame(f_code=Frame(co_name="_on_type_disposal"), f_back=Frame(f_code=Frame(co_name="compile"), f_back=run))

    class Freed:
        def __del__(self):
            if finalizer == "__del__":
                runner._worker_stop(15, inside)

    obj = Freed()
    if finalizer != "__del__":
        keep = weakref.ref(obj, lambda _ref: runner._worker_stop(15, inside))  # noqa: F841
    del obj   # the SIGTERM's interrupt raised in the finalizer, ignored by Python
    assert runner._worker_ended is None
    assert capsys.readouterr().err == ""
    plain = Frame(f_code=Frame(co_name="compile"), f_back=run)
    with pytest.raises(KeyboardInterrupt, match="the server stopped"):
        runner._worker_stop(15, plain)
    assert runner._worker_ended is run
    assert runner._worker_stop(15, plain) is None   # a later one, while the run is being recorded, waits


def test_a_workers_other_ignored_exceptions_are_printed(monkeypatch, capsys):
    """The worker's unraisable hook drops only its own interrupt: a finalizer's bug is still shown."""
    monkeypatch.setattr(sys, "unraisablehook", runner._worker_unraisable)

    class Broken:
        def __del__(self):
            raise ValueError("a finalizer's own bug")

    obj = Broken()
    del obj
    err = capsys.readouterr().err
    assert "Exception ignored in" in err and "a finalizer's own bug" in err


def test_a_worker_has_imported_every_familys_run_module_before_its_first_run():
    """A family's first run in a fresh worker does not pay for its imports (scikit-learn for RTA's
    baseline among them): the worker imported them as it started."""
    from engine.runs.registry import FAMILIES
    from tests.imported_modules import imported

    modules = sorted({m for m, _ in FAMILIES.values()} | {"sklearn.svm"})
    assert "engine.multilabel.run" in modules
    fresh = runner._Pool(1)   # no run yet
    try:
        fresh.warm()
        assert fresh.executor.submit(imported, modules).result(timeout=120) == modules
    finally:
        fresh.executor.shutdown(cancel_futures=True)
        fresh.manager.shutdown()


def test_a_family_module_that_cannot_be_imported_is_left_to_its_run(monkeypatch):
    from engine.runs import registry

    monkeypatch.setitem(registry.FAMILIES, "broken", ("engine.no_such_module", "NoConfig"))
    runner._import_families()   # no exception: the run of that family will say why


def test_a_pool_that_cannot_start_leaves_no_manager_behind(monkeypatch):
    """The workers cannot be started (no processes left, say) after the pool's manager was: the
    error goes up, and the manager (deaf to SIGTERM, so a stop would wait for it) is ended."""
    from workbench import runner

    managers = []   # held here: a manager nobody holds is ended by its finalizer anyway, sooner or later

    start = runner.SyncManager.start

    def kept(self, *args, **kwargs):
        managers.append(self)
        return start(self, *args, **kwargs)

    def refuse(*args, **kwargs):
        raise OSError("Resource temporarily unavailable: no more processes")

    monkeypatch.setattr(runner.SyncManager, "start", kept)
    monkeypatch.setattr(runner, "ProcessPoolExecutor", refuse)
    with pytest.raises(OSError, match="no more processes"):
        runner._Pool(1)
    assert len(managers) == 1
    managers[0]._process.join(10)
    assert not managers[0]._process.is_alive()
