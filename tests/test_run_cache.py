"""A configuration runs once (workbench.runner): a finished run's result serves every later launch of
exactly that configuration -- in this process and from the run history on disk -- and nothing else;
the lessons' runs are the configurations their steps' pages launch, run ahead in the background."""

import json
import os

import pytest
from streamlit.testing.v1 import AppTest

from engine.jsonio import to_jsonable
from engine.runs.execute import execute
from engine.runs.registry import load_config
from engine.runs.store import RunStore
from tests import runs_family
from tests.conftest import ROOT
from workbench import runner
from workbench.declarations.lessons import load_lessons
from workbench.declarations.page_table import PAGES
from workbench.navigation import script


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with nothing kept in this process."""
    with runner._RESULTS_LOCK:
        runner._RESULTS.clear()
        runner._GOING.clear()
    yield
    with runner._RESULTS_LOCK:
        runner._RESULTS.clear()
        runner._GOING.clear()


def _same(a, b) -> bool:
    """Two results agree exactly in every metric, curve and artefact (as the history keeps them)."""
    return all(json.dumps(to_jsonable(getattr(a, k)), sort_keys=True) == json.dumps(to_jsonable(getattr(b, k)),
                                                                                  sort_keys=True)
               for k in ("metrics", "curves", "artefacts"))


def _flip(**kw):
    return load_config({"algorithm": "treeflip", "seed": 4, **kw})


def test_a_result_from_the_history_is_a_fresh_run_of_that_configuration(db):
    cfg = _flip()
    with RunStore(db) as store:
        rid = execute(cfg, store=store, run_fn=runs_family.run).id
        got, got_id = runner.cached_result(cfg, runs_family.run, store)
    assert got_id == rid
    assert _same(got, runs_family.run(cfg))
    # kept in this process now: found without the history
    assert runner.cached_result(cfg, runs_family.run)[1] == rid


@pytest.mark.parametrize("other", [{"seed": 5}, {"flip": 0.3}, {"steps": 21}], ids=["seed", "flip", "steps"])
def test_another_seed_or_parameter_misses(db, other):
    cfg = _flip()
    with RunStore(db) as store:
        execute(cfg, store=store, run_fn=runs_family.run)
        assert runner.cached_result(cfg, runs_family.run, store) is not None
        assert runner.cached_result(_flip(**other), runs_family.run, store) is None


def test_another_code_version_or_run_function_misses(db, monkeypatch):
    cfg = _flip()
    with RunStore(db) as store:
        execute(cfg, store=store, run_fn=runs_family.run)

        def other_run(config, progress=None):
            return runs_family.run(config, progress)

        assert runner.cached_result(cfg, other_run, store) is None   # the history does not say it ran other_run
        monkeypatch.setattr(runner, "code_version", lambda: "0.0.0+gother")
        assert runner.cached_result(cfg, runs_family.run, store) is None


def test_unfinished_runs_are_not_results(db):
    cfg = _flip()
    with RunStore(db) as store:
        rid = store.start(cfg.to_dict())
        assert runner.cached_result(cfg, runs_family.run, store) is None
        store.end(rid, "cancelled")
        assert runner.cached_result(cfg, runs_family.run, store) is None


def test_a_changed_data_file_misses(db, tmp_path):
    tree = tmp_path / "t.nwk"
    tree.write_text("((a,b),(c,(d,e)));\n")
    cfg = _flip(tree=str(tree))
    with RunStore(db) as store:
        execute(cfg, store=store, run_fn=runs_family.run)
        assert runner.cached_result(cfg, runs_family.run, store) is not None
        tree.write_text("((a,b),(c,d),e);\n")
        later = os.stat(tree).st_mtime + 5
        os.utime(tree, (later, later))
        assert runner.cached_result(cfg, runs_family.run, store) is None   # neither kept nor in the history


def test_every_owner_s_runs_serve_and_the_cache_is_bounded(db):
    with RunStore(db) as store:
        execute(_flip(), store=store.for_owner("ana"), run_fn=runs_family.run)
        assert runner.cached_result(_flip(), runs_family.run, store) is not None   # ben's page finds ana's run
    for seed in range(runner.RESULTS_KEPT + 3):
        runner._remember(runner.result_key(_flip(seed=seed), runs_family.run), runs_family.run(_flip(seed=seed)), None)
    assert len(runner._RESULTS) == runner.RESULTS_KEPT
    assert runner.cached_result(_flip(seed=0), runs_family.run) is None          # the oldest went first
    assert runner.cached_result(_flip(seed=runner.RESULTS_KEPT + 2), runs_family.run) is not None


def _launch_twice_app():
    import streamlit as st

    from engine.runs.registry import load_config
    from tests import runs_family
    from workbench.runner import launch

    cfg = load_config({"algorithm": "treeflip", "seed": 4})
    st.session_state["first"] = launch(cfg, runs_family.run, label="First", reuse=True)
    st.session_state["second"] = launch(cfg, runs_family.run, label="Again", reuse=True)
    st.session_state["third"] = launch(cfg, runs_family.run, label="Anew")


def test_a_second_launch_opens_on_the_first_run_s_result(db, monkeypatch):
    """A page that reuses results opens on the first run's; a launch without ``reuse`` (the Runs
    page's Re-run) runs anew."""
    monkeypatch.setenv(runner.WORKERS_ENV, "0")
    at = AppTest.from_function(_launch_twice_app, default_timeout=60).run()
    assert not at.exception, at.exception
    first, second, third = at.session_state["first"], at.session_state["second"], at.session_state["third"]
    assert first is not None and second is first
    assert third is not first and _same(third, first)
    captions = [c.value for c in at.caption]
    runs = [r.id for r in RunStore(db).list()]
    assert len(runs) == 2   # the first and the third
    assert any(c.startswith(f"Again: the result of run {min(runs)} of the run history, with exactly these settings")
               for c in captions), captions


SLOWISH = {"steps": 40, "delay": 0.05}   # about 2 s


def _launch_slowish_app():
    import streamlit as st

    from engine.runs.registry import load_config
    from tests import runs_family
    from workbench.runner import launch

    cfg = load_config({"algorithm": "treeflip", "seed": 4, "steps": 40, "delay": 0.05})
    st.session_state["got"] = launch(cfg, runs_family.run, label="Mine", reuse=True)


def test_a_launch_watches_the_run_of_its_configuration_going_elsewhere(db, monkeypatch):
    """Another session's run of the same configuration is going: the page watches it (no Cancel, no
    second run) and shows its result."""
    monkeypatch.setenv(runner.WORKERS_ENV, "0")
    cfg = _flip(**SLOWISH)

    def work(progress):
        out = {}

        def capture(c, p):
            out["result"] = runs_family.run(c, p)
            return out["result"]

        with RunStore(db) as store:
            out["run_id"] = execute(cfg, progress, store, run_fn=capture, label="elsewhere").id
        return out

    elsewhere = runner.Job(work, key="elsewhere")
    elsewhere.result_key = runner.result_key(cfg, runs_family.run)
    runner._GOING[elsewhere.result_key] = elsewhere
    elsewhere.start()
    at = AppTest.from_function(_launch_slowish_app, default_timeout=60).run()
    assert not at.exception, at.exception
    assert elsewhere.done.is_set() and at.session_state["got"] is elsewhere.value["result"]
    assert not [b for b in at.button if str(b.key).startswith("runner_cancel")]
    assert any("was started already" in c.value for c in at.caption)
    assert len(RunStore(db).list()) == 1
    assert runner.cached_result(cfg, runs_family.run)[1] == elsewhere.value["run_id"]   # kept once it ended


# ------------------------------------------------------------------ the lessons' runs
RUN_STEPS = [(lesson.id, k, step.url) for lesson in load_lessons()[0] for k, step in enumerate(lesson.steps, 1)
             if "run" in PAGES.parse_link(step.url).raw]


def _open_step(url: str) -> AppTest:
    link = PAGES.parse_link(url)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    at.switch_page(script(link.page))
    at.query_params.clear()
    for name, text in link.raw.items():
        at.query_params[name] = text
    return at.run()


def test_the_lessons_runs_are_what_their_steps_launch(monkeypatch):
    """Each step whose link says run=1, opened in a new session, launches one of the configurations
    :func:`runner.lesson_runs` runs ahead -- exactly, so that its result is found -- and they come
    in the order of the lessons."""
    launched = []

    def record(config, run_fn, *, label="Running", reuse=False):
        assert reuse
        launched.append((config.to_json(), run_fn))
        return None

    monkeypatch.setattr(runner, "launch", record)
    ahead = [(c.to_json(), fn) for c, fn in runner.lesson_runs()]
    assert len(ahead) == len({c for c, _ in ahead}) >= 6
    order = []
    for lesson, k, url in RUN_STEPS:
        before = len(launched)
        at = _open_step(url)
        assert not at.exception, (lesson, k, at.exception)
        if len(launched) > before:
            assert launched[-1] in ahead, (lesson, k, launched[-1][0])
            if launched[-1] not in order:
                order.append(launched[-1])
    assert order == [x for x in ahead if x in order]
    assert set(c for c, _ in order) == set(c for c, _ in ahead)   # every run ahead is one a step launches


def test_a_lesson_step_opens_on_the_result_its_run_left(db, monkeypatch):
    """The TREE-HEDGE step of a lesson: once its configuration has run (the background run of the
    lessons, here in this process), a new session opening the step shows the run's numbers at once,
    says whose run they are, and starts no run."""
    monkeypatch.setenv(runner.WORKERS_ENV, "0")
    lesson, k, url = next(x for x in RUN_STEPS if "/tree_hedge" in x[2] and "env=" not in x[2])
    config, run_fn = runner.lesson_runs()[0]
    assert config.algorithm == "hedge"
    with RunStore(db) as store:
        rid = execute(config, store=store, run_fn=run_fn).id
        fresh = store.get(rid).result
    started = []
    monkeypatch.setattr(runner.Job, "start", lambda self: started.append(self) or self)
    at = _open_step(url)
    assert not at.exception, at.exception
    assert not started
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["TREE-HEDGE loss"] == f"{fresh.metrics['tree_hedge_loss']:,.1f}"
    assert any(f"the result of run {rid} of the run history" in c.value for c in at.caption)
    assert len(RunStore(db).list()) == 1


def test_the_lessons_runs_run_ahead_once_each(db, pool):
    """The background runs: what the history has is not run again; the rest run one at a time,
    kept in the process (not recorded: nobody asked for them), and are then found by a page's launch."""
    had, new = _flip(seed=7), _flip(seed=8)
    with RunStore(db) as store:
        execute(had, store=store, run_fn=runs_family.run)
    assert runner.run_lesson_runs(pool, [(had, runs_family.run), (new, runs_family.run)]) == 1
    result, rid = runner.cached_result(new, runs_family.run)
    assert rid is None and _same(result, runs_family.run(new))
    with RunStore(db) as store:
        assert len(store.list()) == 1
    assert runner.run_lesson_runs(pool, [(had, runs_family.run), (new, runs_family.run)]) == 0


def test_a_run_ahead_that_cannot_start_leaves_no_run_to_wait_for(db, capsys):
    """A pool that refuses the run: nothing is left for a session to watch forever; the error is
    said in the log."""
    import types

    def refuse(job, kind, payload):
        raise RuntimeError("refused")

    refusing = types.SimpleNamespace(stopping=False, submit=refuse)
    assert runner.run_lesson_runs(refusing, [(_flip(seed=9), runs_family.run)]) == 0
    assert not runner._GOING
    assert "RuntimeError: refused" in capsys.readouterr().err


def test_the_runs_ahead_take_the_lesson_a_session_opened_first(db, pool, monkeypatch):
    """A class that starts with a late lesson: once a session opens a step of it, the runs ahead not
    yet run take that lesson's runs from that step on first, the nearest step first; the rest
    follow in the lessons' order."""
    a2, b3, b1a5 = _flip(seed=11), _flip(seed=12), _flip(seed=13)
    monkeypatch.setattr(runner, "_lesson_run_steps", lambda: [
        (a2, runs_family.run, [("a", 2)]), (b3, runs_family.run, [("b", 3)]),
        (b1a5, runs_family.run, [("b", 1), ("a", 5)])])
    monkeypatch.setattr(runner, "_OPENED", [None])
    submitted = []
    real = pool.submit
    monkeypatch.setattr(pool, "submit", lambda job, kind, payload: submitted.append(payload[0].seed) or
                        real(job, kind, payload))
    runner.lesson_opened("b", 2)
    assert runner.run_lesson_runs(pool) == 3
    assert submitted == [12, 11, 13]   # b's step 3; then no step of b at or after 2 is left
    with runner._RESULTS_LOCK:
        runner._RESULTS.clear()
    submitted.clear()
    runner.lesson_opened("a", 3)
    assert runner.run_lesson_runs(pool) == 3
    assert submitted == [13, 11, 12]   # a's step 5 (at or after 3), then the lessons' order


def test_opening_a_lesson_step_tells_the_runs_ahead(monkeypatch):
    monkeypatch.setattr(runner, "_OPENED", [None])
    lesson, k, url = next(x for x in RUN_STEPS if x[0] == "rta")
    link = PAGES.parse_link(url)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    at.switch_page(script(link.page))
    at.query_params.clear()
    for name, text in {**link.raw, "run": "0", "lesson": lesson, "step": str(k)}.items():
        at.query_params[name] = text
    at.run()
    assert not at.exception, at.exception
    assert runner._OPENED[0] == (lesson, k)
