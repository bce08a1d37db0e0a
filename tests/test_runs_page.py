"""The Runs page and the app's launcher, headless (AppTest), on the tests' own family ``treeflip``."""

import json
import os
import subprocess
import sys
import threading
import time

import pytest
from streamlit.testing.v1 import AppTest

from engine.errors import InvalidParameterError
from engine.runs.execute import execute
from engine.runs.export import export_runs
from engine.runs.protocol import RunCancelled
from engine.runs.store import RunStore
from tests import runs_family
from tests.conftest import ROOT, open_app_page
from tests.test_runs import TINY, merged, results

PAGE = "workbench/pages/runs.py"


def open_runs(timeout: float = 60) -> AppTest:
    at = open_app_page(PAGE, timeout=timeout)
    assert not at.exception, at.exception
    return at


def seed_runs(db, n=2):
    with RunStore(db) as s:
        recs = [execute({"algorithm": "treeflip", "seed": i, "tree": {"generate": "path", "n": 30 + 10 * i}},
                        None, s, label=f"seed {i}") for i in range(n)]
        with pytest.raises(InvalidParameterError):
            execute({"algorithm": "treeflip", "flip": 2.0}, None, s, label="broken")
    return recs


def test_empty_history(db):
    at = open_runs()
    assert at.title[0].value == "Runs"
    assert any("No runs yet" in i.value for i in at.info)


# the tests' family and one of the workbench's (every family's record is checked against its own
# run in test_runs.py::test_family_quick_run_is_recorded; a subprocess per family would cost ~10 s)
@pytest.mark.slow   # over ten seconds here (subprocesses, compiling, a large file or pgmpy): make test only
@pytest.mark.parametrize("name", ["treeflip", "hedge"])
def test_app_and_cli_record_the_same_run(db, tmp_path, name):
    if name == "treeflip":
        config = {"algorithm": "treeflip", "seed": 21, "flip": 0.35, "tree": {"generate": "caterpillar", "n": 41}}
    elif not merged(name):
        pytest.skip(f"{name} is not merged yet")
    elif name not in TINY:
        pytest.skip(f"no tiny config for {name} yet")
    else:
        config = {"algorithm": name, "seed": 3, **TINY[name]}
    (tmp_path / "c.json").write_text(json.dumps(config))
    env = dict(os.environ, TREE_WORKBENCH_DB=str(db), TREE_WORKBENCH_FAMILIES=runs_family.ENV)
    r = subprocess.run([sys.executable, "-m", "engine", "run", str(tmp_path / "c.json"), "--json"], cwd=ROOT,
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    from_cli = json.loads(r.stdout)

    at = open_runs(timeout=300)
    at.text_area(key="runs_config_text").set_value(json.dumps(config)).run()
    at.button(key="runs_launch").click().run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    assert any(f"{name} run recorded as run #2" in s.value for s in at.success)
    assert at.multiselect(key="runs_chosen").value == [2]
    with RunStore(db) as s:
        app_rec, cli_rec = s.list(results=True)
    assert cli_rec.id == from_cli["id"] and app_rec.id != cli_rec.id
    assert app_rec.config == cli_rec.config == from_cli["config"]
    assert app_rec.status == cli_rec.status == "finished" and app_rec.code_version == cli_rec.code_version
    assert results(app_rec) == results(cli_rec)
    if name == "treeflip":  # no timings in it: the records are equal to the last bit
        assert app_rec.metrics == cli_rec.metrics and app_rec.curves == cli_rec.curves


def test_filter_show_overlay_export_delete(db):
    recs = seed_runs(db)
    at = open_runs()
    table = at.dataframe[0].value
    assert list(table["id"]) == [3, 2, 1] and "failed" in table["status"].iloc[0]
    # the newest run is shown by default: the failed one, with its error
    assert at.multiselect(key="runs_chosen").value == [3]
    assert any("flip must be in [0, 1], got 2.0" in e.value for e in at.error)
    at.multiselect(key="runs_status").set_value(["finished"]).run()
    assert list(at.dataframe[0].value["id"]) == [2, 1]
    at.text_input(key="runs_search").set_value("seed 1").run()
    assert list(at.dataframe[0].value["id"]) == [2]
    at.text_input(key="runs_search").set_value("").run()
    at.multiselect(key="runs_chosen").set_value([1, 2]).run()
    assert not at.exception
    assert at.header[0].value == "2 runs compared"
    assert at.selectbox(key="runs_curve_many").options == ["estimate", "log_loss"]
    overlay = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [t["name"] for t in overlay["data"]] == ["#1 treeflip · seed 0", "#2 treeflip · seed 1"]
    assert [len(t["x"]) for t in overlay["data"]] == [r.metrics["n_edges"] for r in recs]
    # export: what the buttons offer is export_runs of the chosen records
    with RunStore(db) as s:
        chosen = [s.get(1), s.get(2)]
    assert json.loads(export_runs(chosen, "json"))["runs"][1]["metrics"] == recs[1].metrics
    assert {b.key for b in at.get("download_button") if b.key.startswith("runs_export")} == {"runs_export_json", "runs_export_csv"}
    # delete asks first; Keep keeps
    at.button(key="runs_delete").click().run()
    assert "Delete runs #1, #2" in at.warning[0].value
    at.button(key="runs_delete_no").click().run()
    with RunStore(db) as s:
        assert len(s.list()) == 3
    at.button(key="runs_delete").click().run()
    at.button(key="runs_delete_yes").click().run()
    assert not at.exception and any("Deleted 2 runs" in s.value for s in at.success)
    with RunStore(db) as s:
        assert [r.id for r in s.list()] == [3]


def test_rerun_a_config(db):
    recs = seed_runs(db, n=1)
    at = open_runs()
    at.multiselect(key="runs_chosen").set_value([1]).run()
    at.button(key="runs_rerun").click().run()
    assert not at.exception, at.exception
    assert any("re-run as run #3" in s.value for s in at.success)
    assert at.multiselect(key="runs_chosen").value == [3]
    with RunStore(db) as s:
        new = s.get(3)
    assert new.config == recs[0].config and new.metrics == recs[0].metrics and new.status == "finished"


@pytest.mark.slow   # over ten seconds here (subprocesses, compiling, a large file or pgmpy): make test only
def test_sweep_from_the_page(db):
    # the sweep's points run in joblib's processes, each importing the engine: seconds here, but a
    # minute on a loaded two-core CI machine (where 60 s timed out): the script run may take 300 s
    at = open_runs(timeout=300)
    sweep = {"algorithm": "treeflip", "sweep": {"seed": [0, 1], "flip": [0.1, 0.2]}}
    at.text_area(key="runs_config_text").set_value(json.dumps(sweep)).run()
    at.button(key="runs_launch").click().run()
    assert not at.exception and any("4 runs recorded (4 finished)" in s.value for s in at.success)
    assert len(at.dataframe[0].value) == 4
    assert sorted(at.multiselect(key="runs_chosen").value) == [1, 2, 3, 4]
    assert at.header[0].value == "4 runs compared"


def test_bad_config_in_the_page(db):
    at = open_runs()
    for text, msg in [("{nope", "config: invalid JSON at line 1, column 2"), ('{"algorithm": "nope"}', "unknown algorithm 'nope'"),
                      ('{"algorithm": "treeflip", "flip": 9}', "flip must be in [0, 1], got 9")]:
        at.text_area(key="runs_config_text").set_value(text).run()
        at.button(key="runs_launch").click().run()
        assert not at.exception and any(msg in e.value for e in at.error), text


def _launch_script():
    import streamlit as st

    from engine.runs.registry import load_config
    from tests import runs_family
    from workbench.runner import launch

    cfg = load_config({"algorithm": "treeflip", "seed": 5, "flip": st.session_state.get("flip", 0.2)})
    result = launch(cfg, runs_family.run, label="Running treeflip")
    if result is not None:
        st.metric("log loss", f"{result.metrics['log_loss']:.12f}")


def test_launch_returns_the_result_and_records_it(db):
    at = AppTest.from_function(_launch_script, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    want = runs_family.run(runs_family.TreeFlipConfig(seed=5))
    assert at.metric[0].value == f"{want.metrics['log_loss']:.12f}"
    assert at.status[0].label.startswith("Running treeflip: done in")
    with RunStore(db) as s:
        (rec,) = s.list(results=True)
    assert rec.label == "Running treeflip" and rec.metrics == want.metrics
    at.session_state["flip"] = 3.0
    at.run()
    assert not at.exception and "flip must be in [0, 1], got 3.0" in at.error[0].value and not at.metric
    with RunStore(db) as s:
        assert [r.status for r in s.list()] == ["failed", "finished"]


def test_job_cancel_stops_the_run_and_records_it(db):
    from workbench.runner import Job

    started = threading.Event()

    def slow(progress):
        def report(f, m):
            started.set()
            progress(f, m)

        with RunStore(db) as s:
            return execute({"algorithm": "treeflip", "steps": 200, "delay": 0.02}, report, s)

    job = Job(slow).start()
    assert started.wait(30)
    time.sleep(0.1)
    assert 0 < job.fraction < 1 and "edge" in job.message and "left" in job.text()
    job.cancel()
    assert job.done.wait(30)
    assert isinstance(job.error, RunCancelled) and job.run_id is not None
    with RunStore(db) as s:
        assert s.get(job.run_id).status == "cancelled"


def _launch_in_form():
    import streamlit as st

    from engine.runs.registry import load_config
    from tests import runs_family
    from workbench.runner import launch

    with st.form("f"):
        result = launch(load_config({"algorithm": "treeflip", "seed": 2}), runs_family.run, label="In a form")
        st.form_submit_button("Go")
    if result is not None:
        st.metric("edges", result.metrics["n_edges"])


def test_launch_inside_a_form_runs_without_cancel(db):
    at = AppTest.from_function(_launch_in_form, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert at.metric[0].value == "30" and "cannot be cancelled" in at.caption[0].value


def test_runs_in_progress_are_shown_live(db):
    seed_runs(db, n=1)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with RunStore(db) as s:  # a run owned by another live process, halfway through
            rid = s.start({"algorithm": "treeflip", "seed": 8}, label="elsewhere")
            s.report(rid, 0.5, "edge 15 of 30")
            s._conn.execute("UPDATE runs SET pid = ?, pid_start = NULL WHERE id = ?", (sleeper.pid, rid))
        at = open_runs()
        assert any(m.value == "**Running now** (1)" for m in at.markdown)
        bars = [p for p in at.get("progress")]
        assert bars and any("edge 15 of 30" in str(p.proto) for p in bars)
        assert at.multiselect(key="runs_chosen").value == [rid]
        at.text_input(key="runs_search").set_value("elsewhere").run()
        assert list(at.dataframe[0].value["id"]) == [rid]
    finally:
        sleeper.kill()
        sleeper.wait()
    at.run()
    with RunStore(db) as s:
        assert s.get(rid).status == "interrupted"
