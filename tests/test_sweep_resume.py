"""Resuming a sweep: the points that did not finish run again under their own records
(``engine.runs.execute.resume_sweep``, ``python -m engine runs resume``)."""

import json

import pytest

from engine.errors import InvalidParameterError
from engine.runs.execute import execute_sweep, resume_sweep
from engine.runs.protocol import RunCancelled
from engine.runs.store import RunStore
from tests.test_runs import cli_in

SPEC = {"algorithm": "treeflip", "tree": {"generate": "random", "n": 30, "seed": 2},
        "sweep": {"seed": [0, 1, 2, 3]}}


@pytest.fixture
def store(db):
    with RunStore(db) as s:
        yield s


def _stopped_sweep(store) -> str:
    def stop(f, m):  # in the third point
        if f > 0.5:
            raise RunCancelled("enough")

    with pytest.raises(RunCancelled):
        execute_sweep(SPEC, stop, store, n_jobs=1)
    return store.list(limit=1)[0].sweep


def test_resume_runs_the_points_left_under_the_same_records(store):
    sweep = _stopped_sweep(store)
    before = sorted(store.list(sweep=sweep), key=lambda r: r.id)
    assert [r.status for r in before] == ["finished", "finished", "cancelled", "cancelled"]
    seen = []
    recs = resume_sweep(sweep, lambda f, m: seen.append(f), store, n_jobs=1)
    assert [r.id for r in recs] == [r.id for r in before] and [r.status for r in recs] == ["finished"] * 4
    assert recs[0].ended == before[0].ended  # a finished point is not run again
    assert seen[0] >= 0.5 and seen[-1] == 1.0  # progress counts the points done before
    fresh = execute_sweep(SPEC, None, store, n_jobs=1)
    assert [r.metrics for r in recs] == [r.metrics for r in fresh]
    assert [r.label for r in recs] == [r.label for r in fresh]
    again = resume_sweep(sweep, None, store)  # nothing left: the records as they are
    assert [(r.id, r.status, r.ended) for r in again] == [(r.id, r.status, r.ended) for r in recs]


def test_resume_refuses_an_unknown_sweep_and_a_finished_run_cannot_reopen(store):
    with pytest.raises(InvalidParameterError, match="no sweep 'sw-nope'"):
        resume_sweep("sw-nope", None, store)
    recs = execute_sweep(SPEC, None, store, n_jobs=1)
    with pytest.raises(InvalidParameterError, match="is finished; only a run that did not finish"):
        store.reopen(recs[0].id)


def test_resume_refuses_a_sweep_still_running(store):
    sweep = _stopped_sweep(store)
    rec = store.list(sweep=sweep, status="cancelled")[0]
    store.reopen(rec.id)  # as if another live process had taken it up
    with pytest.raises(InvalidParameterError, match=rf"sweep {sweep} has 1 point still running \(run {rec.id}"):
        resume_sweep(sweep, None, store)


def test_cli_runs_resume(tmp_path, capsys, db):
    with RunStore(db) as s:
        sweep = _stopped_sweep(s)
    out, _ = cli_in(capsys, "runs", "resume", sweep, "--jobs", "1", "--json", db=db)
    assert [r["status"] for r in json.loads(out)["runs"]] == ["finished"] * 4
