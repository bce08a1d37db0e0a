"""App-side hardening (issue 17): no HTML from data, scenario loads set widgets safely, pasted
configs may not name server files, the server listens on localhost by default."""

import json
import os
import subprocess
import tomllib

from engine.trees.model import Tree
from tests.conftest import ROOT
from tests.test_app_pages import open_page

EVIL = '![x](http://attacker.invalid/p.png)<img src="http://attacker.invalid/q.png">:red[x]$y$'


def test_vertex_names_reach_markdown_escaped_on_belief_propagation():
    at = open_page("workbench/pages/belief_propagation.py")
    at.session_state["tree"] = Tree.from_named_edges([(EVIL, "b"), ("b", "c")])
    at.session_state["tree_version"] = at.session_state["tree_version"] + 1 if "tree_version" in at.session_state else 1
    at.run()
    at.slider(key="bp_messages").set_value(1)
    at.run()
    assert not at.exception, at.exception
    texts = [m.value for m in at.markdown]
    msg = next(t for t in texts if t.startswith("**Message 1"))
    assert "<img" not in msg and "![" not in msg and "](" not in msg and ":red[" not in msg
    assert all(not getattr(m.proto, "allow_html", False) for m in at.markdown if m.value.startswith("**Message"))


def test_runs_page_refuses_a_config_naming_a_server_file(tmp_path, monkeypatch):
    monkeypatch.setenv("TREE_WORKBENCH_DB", str(tmp_path / "runs.sqlite"))
    at = open_page("workbench/pages/runs.py")
    for target in ("/etc/passwd", "/dev/zero", "../../etc/passwd"):
        at.text_area(key="runs_config_text").set_value(json.dumps({"algorithm": "hedge", "tree": target, "trials": 20}))
        next(b for b in at.button if b.key == "runs_launch").click()
        at.run()
        errors = " ".join(e.value for e in at.error)
        assert "is not a sample tree or a file under the data folder" in errors, errors
        assert "root:" not in errors


def test_server_listens_on_localhost_by_default():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["server"]["address"] == "127.0.0.1"
    assert cfg["client"]["showErrorDetails"] in ("none", "type")  # never the message (paths) or a traceback
    # what `make run` would start, one process or a hall of several (make -n prints, runs nothing)
    for workers, module in (("1", "-m workbench.serve "), ("3", "-m workbench.hall --workers 3 ")):
        shown = subprocess.run(["make", "-n", "run", f"WORKERS={workers}"], cwd=ROOT, capture_output=True,
                               text=True, timeout=60, check=True).stdout
        command = next(line for line in shown.splitlines() if "-m workbench." in line)
        assert module in command and "--address 127.0.0.1" in command, command
    from workbench.serve import build_parser

    env = os.environ.pop("TREE_WORKBENCH_ADDRESS", None)
    try:
        assert build_parser().parse_args([]).address == "127.0.0.1"
    finally:
        if env is not None:
            os.environ["TREE_WORKBENCH_ADDRESS"] = env


def _history_with_three_owners(path):
    from engine.runs.store import RunStore

    with RunStore(path) as s:
        for owner in ("student-ana-0123456789", "student-ben-0123456789", None):
            rid = s.for_owner(owner).start({"algorithm": "hedge", "seed": 0}, label=f"by {owner}")
            s.end(rid, "failed", "x")


def test_classroom_mode_each_session_sees_its_own_runs(tmp_path, monkeypatch):
    db = tmp_path / "runs.sqlite"
    _history_with_three_owners(db)
    monkeypatch.setenv("TREE_WORKBENCH_DB", str(db))
    monkeypatch.setenv("TREE_WORKBENCH_CLASSROOM", "1")
    monkeypatch.setenv("TREE_WORKBENCH_LECTURER_TOKEN", "s3cret-lecturer")
    from streamlit.testing.v1 import AppTest

    def session(**state):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        for k, v in state.items():
            at.session_state[k] = v
        at.run()
        at.switch_page("workbench/pages/runs.py")
        at.run()
        assert not at.exception, at.exception
        return at

    ana = session(run_owner="student-ana-0123456789")
    assert list(ana.dataframe[0].value["label"]) == ["by student-ana-0123456789"]
    assert "Classroom mode" in " ".join(c.value for c in ana.caption)
    lecturer = session(lecturer=True)
    assert len(lecturer.dataframe[0].value) == 3
    stranger = session()  # a new session gets a fresh token: no runs
    assert stranger.session_state["run_owner"] not in ("student-ana-0123456789", "student-ben-0123456789")
    assert not stranger.dataframe or len(stranger.dataframe[0].value) == 0


def test_owner_views_delete_only_their_runs(tmp_path):
    from engine.runs.store import RunStore, UnknownRunError

    _history_with_three_owners(tmp_path / "h.sqlite")
    with RunStore(tmp_path / "h.sqlite") as s:
        ana, ben = s.for_owner("student-ana-0123456789"), s.for_owner("student-ben-0123456789")
        import pytest

        with pytest.raises(UnknownRunError):
            ben.delete(1)  # ana's run: not there for ben
        ana.delete(1)
        assert [r.id for r in s.list()] == [3, 2]
