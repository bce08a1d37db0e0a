"""Issue 17: every input the probe turned into a traceback is one ``error:`` line with exit 2, and
the garbage it saw accepted is refused. In-process through ``engine.cli.main`` (the fuzz suite
runs the same through forked children with time and memory limits)."""

import json
import re
import sqlite3

import pytest

from engine.cli import main
from engine.errors import EngineError
from engine.runs.store import RunStore


PROGRESS = re.compile(r"^\[\s*\d+\.\d%\] ")


def run_cli(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:   # a flag refused as it is parsed: argparse exits with status 2
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def one_error(capsys, *argv) -> str:
    code, out, err = run_cli(capsys, *argv)
    lines = [ln for ln in err.splitlines() if ln.strip() and not PROGRESS.match(ln)]  # progress lines are fine
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (code, err)
    assert "internal error" not in lines[0] and "Traceback" not in err
    return lines[0]


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TREE_WORKBENCH_DB", str(tmp_path / "runs.sqlite"))
    return tmp_path


SCEN = {"tree": {"edges": [["a", "b"], ["b", "c"]]}, "states": 2, "ops": [{"marginal": "a"}]}


@pytest.mark.parametrize("patch, message", [
    ({"states": 10**4300 // 10**4299}, None),  # 10: fine (a control)
    ({"tree": {"generate": "path", "n": "abc"}}, "n must be a whole number"),
    ({"tree": {"generate": "path", "n": 4, "foo": 1}}, "generator spec: unknown key 'foo'"),
    ({"tree": {"generate": "random", "n": 4, "seed": "x"}}, "seed must be a whole number in 0..2^63-1, got 'x'"),
    ({"tree": {"generate": "random", "n": 4, "seed": -1}}, "seed must be a whole number in 0..2^63-1, got -1"),
    ({"tree": {"generate": "random", "n": 4, "seed": 2**70}}, "seed must be a whole number in 0..2^63-1"),
    ({"tree": {"edges": [["a", "b", "c"]]}}, "edge 0 must be a pair [u, v] of names"),
    ({"states": 200000}, "exceeds the limit of 4,096 labels (states) per vertex (limit 'states'); raise it with "
                         "TREE_WORKBENCH_MAX_STATES=200000"),
])
def test_scenarios_that_gave_tracebacks(here, capsys, patch, message):
    (here / "s.json").write_text(json.dumps({**SCEN, **patch}))
    if message is None:
        assert run_cli(capsys, "replay", "s.json")[0] == 0
    else:
        assert message in one_error(capsys, "replay", "s.json")


@pytest.mark.parametrize("text, message", [
    ('{"tree": {"edges": [["a", "b"]]}, "states": 2' + "0" * 4300 + "}", "digits"),
    ('{"tree": ' + "[" * 100_000 + "]" * 100_000 + ', "states": 2}', "nested deeper than"),
])
def test_huge_numbers_and_deep_nesting(here, capsys, text, message):
    (here / "s.json").write_text(text)
    assert message in one_error(capsys, "replay", "s.json")


@pytest.mark.parametrize("argv, message", [
    (["ofde", "--train", "a.data", "--test", "a.data", "--mixture-size", "1000000000"], "limit 'mixture'"),
    (["ofde", "--train", "a.data", "--test", "a.data", "--rounds", "1000000000000"], "limit 'rounds'"),
    (["hedge", "--tree", "path:5", "--trials", "1000000000000"], "limit 'trials'"),
    (["chowliu", "--train", "a.data", "--test", "a.data", "--pseudocount", "inf"], "pseudocount = inf: expected a number > 0"),
    (["chowliu", "--train", "ovf.data", "--test", "a.data"], "is not an integer code"),
    (["chowliu", "--train", "sq.data", "--test", "a.data"], "'²' is not an integer code"),
    (["chowliu", "--train", "wide.data", "--test", "wide.data"], "limit 'columns'"),
    (["bhtmm", "--train", "synthetic", "--test", "synthetic", "--states", "2", "--phi", "inf"], "phi = inf: expected a number >= 0"),
    (["bhtmm", "--train", "synthetic", "--test", "synthetic", "--states", "2", "--lmin", "-1"], "lmin"),
    (["marginals", "t.csv", "--states", "200000"], "limit 'states'"),
    (["marginals", "t.csv", "--coupling", "1e300"], "coupling = 1e+300: expected a number in [-700, 700]"),
    (["info", "/dev/zero"], "is a character device, not a regular file"),
    (["info", "fifo.csv"], "is a FIFO (named pipe), not a regular file"),
    (["info", "nul.csv"], "a NUL byte at line 1, column 1"),
    (["info", "quote.csv"], "unterminated or misplaced quote"),
    (["info", "root.gml"], "the graph's root 'zz' is not a node label"),
    (["info", "codes.jsonl"], "label 0 is not a position 1..1 of 'label_names'"),
    (["generate", "random", "--n", "5", "--seed", "-1", "x.csv"], "seed must be a whole number"),
    (["runs", "show", "1000000000000000000000"], "no run"),
    (["runs", "list", "--limit", "-1"], "the list limit must be a whole number >= 0"),
    (["rta", "--data", "d.arff", "--labels", "ent.xml", "--folds", "2"], "entity declarations are refused"),
])
def test_flags_and_files_that_gave_tracebacks_or_were_accepted(here, capsys, argv, message):
    import os

    (here / "a.data").write_text("0,1\n1,0\n1,1\n")
    (here / "ovf.data").write_text("0,1\n1,99999999999999999999999\n")
    (here / "sq.data").write_text("0,1\n1,\u00b2\n")
    (here / "wide.data").write_text(",".join(["0"] * 20_000) + "\n" + ",".join(["1"] * 20_000) + "\n")
    (here / "t.csv").write_text("a,b\nb,c\n")
    (here / "nul.csv").write_bytes(b"\0" * 32)
    (here / "quote.csv").write_text('"a,b\nb,c\n')
    (here / "root.gml").write_text('graph [ directed 0 root "zz" node [ id 0 label "a" ] node [ id 1 label "b" ] '
                                   'edge [ source 0 target 1 ] ]')
    (here / "codes.jsonl").write_text('{"children": [[2], []], "labels": [0, 1], "label_names": ["x"]}\n')
    (here / "d.arff").write_text("@relation r\n@attribute a {0,1}\n@attribute b {0,1}\n@attribute f numeric\n"
                                 "@data\n0,1,0.5\n1,0,0.2\n")
    (here / "ent.xml").write_text('<!DOCTYPE x [<!ENTITY e "boom">]><labels><label name="&e;"/></labels>')
    os.mkfifo(here / "fifo.csv")
    assert message in one_error(capsys, *argv)


def test_graphml_after_a_long_comment_and_jsonl_with_bom(here, capsys):
    (here / "c.xml").write_text('<?xml version="1.0"?><!--' + "x" * 5000 + '--><graphml xmlns="http://graphml.graphdrawing'
                                '.org/xmlns"><graph edgedefault="undirected"><node id="a"/><node id="b"/>'
                                '<edge source="a" target="b"/></graph></graphml>')
    code, out, _ = run_cli(capsys, "info", "c.xml", "--json")
    assert code == 0 and json.loads(out)["n"] == 2  # GraphML, not an XML document of 5 elements
    (here / "b.jsonl").write_bytes(b'\xef\xbb\xbf{"children": [[2], []]}\n')
    code, out, _ = run_cli(capsys, "info", "b.jsonl", "--json")
    assert code == 0 and json.loads(out)["n"] == 2


def test_a_damaged_history_still_lists(here, capsys):
    db = here / "runs.sqlite"
    with RunStore(db) as s:
        rid = s.start({"algorithm": "hedge", "seed": 0}, label="ok")
        s.end(rid, "failed", "boom")
    c = sqlite3.connect(db)
    c.execute("UPDATE runs SET metrics = '{not json', label = CAST(X'FFFE41' AS TEXT), config = X'FF7B'")
    c.commit()
    c.close()
    code, out, err = run_cli(capsys, "runs", "list", "--json")
    assert code == 0, err
    rec = json.loads(out)["runs"][0]
    assert "stored config is unreadable" in rec["error"] and "stored metrics is unreadable" in rec["error"]
    assert run_cli(capsys, "runs", "show", str(rid))[0] == 0


def test_a_read_only_history_lists_and_refuses_to_record(here, capsys, monkeypatch):
    from engine import db as store_mod

    db = here / "runs.sqlite"
    with RunStore(db) as s:
        s.end(s.start({"algorithm": "hedge", "seed": 0}), "failed", "x")
    monkeypatch.setattr(store_mod, "_writable", lambda p: False)  # as on a read-only mount
    with RunStore(db) as s:
        assert s.read_only and [r.id for r in s.list()] == [1]
        with pytest.raises(Exception, match="is read-only here"):
            s.start({"algorithm": "hedge", "seed": 0})
    code, out, _ = run_cli(capsys, "runs", "list", "--json")
    assert code == 0 and len(json.loads(out)["runs"]) == 1
    assert "is read-only here" in one_error(capsys, "runs", "delete", "1")


def test_network_file_systems_use_the_rollback_journal(here, monkeypatch):
    from engine import db as store_mod

    monkeypatch.setattr(store_mod, "_rollback_journal", lambda p: True)
    with RunStore(here / "nfs.sqlite") as s:
        assert s._conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        s.end(s.start({"algorithm": "hedge", "seed": 0}), "failed", "x")
        assert len(s.list()) == 1


def test_run_failure_is_one_stderr_line(here, capsys):
    (here / "c.json").write_text(json.dumps({"algorithm": "hedge", "tree": "missing.csv", "trials": 20}))
    line = one_error(capsys, "run", "c.json", "--quiet")
    assert "missing.csv" in line


def test_debug_shows_the_traceback(here, capsys):
    (here / "s.json").write_text("{")
    with pytest.raises(EngineError, match="invalid JSON"):
        main(["--debug", "replay", "s.json"])
