"""``engine.reproduce`` and ``python -m engine reproduce``: the report (rows, Markdown, HTML, JSON,
figures), every paper's protocol on tiny settings, the recorded sweep and its report after a resume,
a dask cluster, and the command line's output."""

import json
import re
import xml.etree.ElementTree as ET

import pytest

import engine.reproduce.bhtmm as rbhtmm
import engine.reproduce.ofde as rofde
import engine.reproduce.rta as rrta
from engine.errors import InvalidParameterError
from engine.reproduce import PAPERS, ReproduceConfig, plan, report_from_sweep, reproduce, run
from engine.reproduce.report import ROW_KEYS, Figure, Missing, Report, Row, spread_of
from engine.runs.store import RunStore
from tests.test_runs import cli_in


def _report() -> Report:
    return Report("demo", "A <paper>", "A. Author", (Row("set", "loss (%)", 10.0, 10.5, 0.25, 5, 1, "sd 0.3"),
                                                       Row("other", "level", None, -2.0, digits=3)),
                  (Figure("curve", "A curve", "t", "y", {"ours": ([1, 10, 100], [1.0, 2.0, 3.0]),
                                                        "published": ([1, 100], [2.5, 2.5])},
                          logx=True, dashed=("published",), caption="ours against the level"),),
                  (Missing("gone", "Table 9", "from the authors"),), "Five folds.", ("a note",),
                  {"quick": True, "seeds": 5, "data_folder": "/data/x"})


def test_rows_spread_and_the_json_line():
    assert spread_of([1.0, 2.0, 3.0, float("nan")]) == (2.0, 1.0, 3) and spread_of([]) == (None, None, 0)
    r = _report()
    line = r.json_line()
    assert list(line) == ["paper", "rows", "settings"] and line["paper"] == "demo"
    assert [list(x) for x in line["rows"]] == [list(ROW_KEYS)] * 2
    assert line["rows"][0]["difference"] == 0.5 and line["rows"][1]["difference"] is None
    assert line["settings"]["missing"] == ["gone"]
    assert Row("x", "m", 1.0, float("nan")).ours is None
    assert Row("x", "m", 1.0, 0.999).cells()[5] == "+0.00"  # no "-0.00"


def test_report_round_trips_and_renders(tmp_path):
    r = _report()
    back = Report.from_dict(json.loads(json.dumps(r.to_dict(), sort_keys=True)))  # as the run history keeps it
    assert list(back.figures[0].series) == ["ours", "published"]
    assert back == r
    md = r.markdown()
    assert "**Quick protocol**" in md and "| set | loss (%) | 10.0 | 10.5 | 0.2 (n = 5) | +0.5 | sd 0.3 |" in md
    assert "![A curve](figures/demo-curve.svg)" in md and "`gone` (Table 9): from the authors" in md
    assert "`/data/x`" in md
    inline = r.markdown(figure_dir=None)
    assert "(data:image/svg+xml;base64," in inline and "figures/" not in inline
    html = r.html()
    assert html.count("<svg") == 1 and "A &lt;paper&gt;" in html and "<td class=\"n\">+0.5</td>" in html
    paths = r.write(tmp_path / "out")
    assert {p.name for p in paths.values()} == {"demo.md", "demo.html", "demo.json", "demo-curve.svg"}
    ET.fromstring(paths["figure:curve"].read_text())  # a well-formed SVG
    assert Report.from_dict(json.loads(paths["json"].read_text())) == r
    assert not list((tmp_path / "out").rglob("*.part"))


def test_plans_and_their_errors():
    assert list(PAPERS) == ["cover", "hedge", "rta", "ofde", "bhtmm"]
    with pytest.raises(InvalidParameterError, match="unknown paper 'nope'; expected one of cover, hedge"):
        plan("nope")
    with pytest.raises(InvalidParameterError, match="seeds must be an integer in 1..100, got 0"):
        plan("hedge", seeds=0)
    assert len(plan("hedge", quick=True).points) == 12 and len(plan("hedge").points) == 60
    assert len(plan("hedge", quick=True, seeds=2).points) == 6
    with pytest.raises(InvalidParameterError, match="paper = 'x': expected 'cover', "):
        ReproduceConfig(paper="x")
    with pytest.raises(InvalidParameterError, match=r"seeds = -1: expected an integer in \[0, 100\]"):
        ReproduceConfig(seeds=-1)


def test_missing_data_sets_are_named_with_where_to_get_them(tmp_path, monkeypatch):
    monkeypatch.setenv("TREE_WORKBENCH_DATA", str(tmp_path))
    p = plan("rta", quick=True)
    assert p.points == () and {m.name for m in p.missing} == set(rrta.PAPER_TABLE1)
    assert "mulan.sourceforge.net" in {m.name: m.where for m in p.missing}["medical"]
    assert {m.name for m in plan("ofde").missing} == set(rofde.FIGURE2_SETS)
    assert {m.name for m in plan("bhtmm").missing} == {"symm", "inex05", "inex06"}
    r = reproduce("rta", quick=True)   # nothing to run: a report that says so
    assert r.rows == () and len(r.missing) == 10 and "none found" in r.protocol


@pytest.fixture
def tiny(monkeypatch):
    """The quick protocols made tinier still (the tests check the plumbing, not the numbers)."""
    monkeypatch.setattr(rrta, "QUICK", {**rrta.QUICK, "n_trees": 2, "max_passes": 2})
    monkeypatch.setattr(rofde, "QUICK_ROUNDS", 300)
    monkeypatch.setattr(rbhtmm, "QUICK_ITERATIONS", (2, 1))


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PAPERS))
def test_every_paper_reproduces_on_tiny_settings(name, data_dir, tiny):
    seen = []
    r = reproduce(name, quick=True, seeds=1, progress=lambda f, m: seen.append(f))
    assert r.paper == name and r.settings["quick"] is True and r.rows and r.figures
    compared = [row for row in r.rows if row.difference is not None]
    assert compared and all(row.ours is not None for row in compared)
    assert seen and seen[-1] == pytest.approx(1.0) and all(0 <= f <= 1 for f in seen)
    for f in r.figures:
        ET.fromstring(f.svg())
    if name == "rta":
        assert {row.data for row in r.rows} == {"emotions", "yeast", "scene"}
        assert {m.name for m in r.missing} == {"enron", "cal500", "fingerprint", "nci60", "medical", "circle10",
                                               "circle50"}


def test_cover_is_theorem_6_exactly():
    r = reproduce("cover", quick=True)
    rows = {row.metric: row for row in r.rows}
    assert rows["covers of height chi^2_s, the brute-force minimum (%)"].ours == 100.0
    assert rows["chi* <= chi^2 <= chi^2_s <= 2 chi* holds (%)"].ours == 100.0
    assert rows["largest chi^2_s / chi*"].ours <= 2
    assert rows["height"].ours == 1.0  # the star


@pytest.mark.slow
def test_recorded_sweep_and_the_report_made_from_it(tmp_path):
    with RunStore(tmp_path / "runs.sqlite") as store:
        r = reproduce("hedge", quick=True, seeds=1, store=store)
        sweep = r.settings["sweep"]
        recs = store.list(sweep=sweep)
        assert len(recs) == 3 and all(x.status == "finished" for x in recs)
        again = report_from_sweep("hedge", sweep, store, quick=True, seeds=1)
        assert again.rows == r.rows
        with pytest.raises(InvalidParameterError, match=f"sweep {sweep} has no finished run of the hedge quick"):
            report_from_sweep("hedge", sweep, store, quick=True, seeds=2)


@pytest.mark.slow
def test_reproduction_on_a_dask_cluster(tmp_path):
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            RunStore(tmp_path / "runs.sqlite") as store:
        r = reproduce("hedge", quick=True, seeds=1, store=store, backend="dask", n_jobs=None,
                      scheduler=cluster.scheduler_address)
    assert r.settings["backend"] == "dask" and r.settings["sweep"].startswith("sw-")
    assert r.rows == reproduce("hedge", quick=True, seeds=1).rows


def test_a_reproduction_is_a_recorded_run(tmp_path):
    from engine.runs.execute import execute

    with RunStore(tmp_path / "runs.sqlite") as store:
        rec = execute(ReproduceConfig(paper="cover", quick=True), None, store, run_fn=run)
    assert rec.algorithm == "reproduce" and rec.status == "finished"
    assert rec.metrics["rows"] == Report.from_dict(rec.artefacts["report"]).json_line()["rows"]


def test_the_json_rows_tell_a_bound_from_a_failed_match(tmp_path, capsys):
    """``--json`` kept the numbers and dropped the note: "published 2.0, ours 1.0" is a bound met
    (chi^2_s <= 2 chi*), not a failed reproduction. A row has the note and the n of its spread too,
    after the six keys it always had, unchanged."""
    bound = Row("paths", "largest chi^2_s / chi*", 2.0, 1.0, note="published: the bound chi^2_s <= 2 chi*")
    r = Report("cover", "T", "A", (bound, Row("set", "loss (%)", 10.0, 10.5, 0.25, 5, 1, "sd 0.3")))
    rows = r.json_line()["rows"]
    assert [list(row)[:6] for row in rows] == [["data", "metric", "published", "ours", "spread", "difference"]] * 2
    assert rows[0] == {"data": "paths", "metric": "largest chi^2_s / chi*", "published": 2.0, "ours": 1.0,
                       "spread": None, "difference": -1.0, "note": "published: the bound chi^2_s <= 2 chi*", "n": 1}
    assert rows[1]["note"] == "sd 0.3" and rows[1]["n"] == 5 and rows[1]["difference"] == 0.5
    # the command line prints them: cover's quick protocol has a row of each kind
    out, _ = cli_in(capsys, "reproduce", "cover", "--quick", "--json", "--out", tmp_path / "rep",
                    db=tmp_path / "runs.sqlite")
    rows = json.loads(out)["rows"]
    assert all(isinstance(row["note"], str) and isinstance(row["n"], int) for row in rows)
    assert any("bound" in row["note"] and row["difference"] for row in rows), rows


def test_cli_reproduce_json_files_and_history(tmp_path, capsys):
    db = tmp_path / "runs.sqlite"
    out, err = cli_in(capsys, "reproduce", "cover", "--quick", "--json", "--out", tmp_path / "rep", db=db)
    lines = out.strip().splitlines()
    assert len(lines) == 1
    obj = json.loads(lines[0])
    assert list(obj) == ["paper", "rows", "settings"] and obj["paper"] == "cover"
    assert all(list(row) == list(ROW_KEYS) for row in obj["rows"]) and obj["settings"]["quick"] is True
    assert "[100.0%]" in err
    assert {p.name for p in (tmp_path / "rep").rglob("*") if p.is_file()} == {
        "cover.md", "cover.html", "cover.json", "cover-height.svg", "README.md"}
    assert "[cover.md](cover.md)" in (tmp_path / "rep" / "README.md").read_text()
    with RunStore(db) as store:
        assert [r.config["paper"] for r in store.list(algorithm="reproduce")] == ["cover"]
    out, _ = cli_in(capsys, "reproduce", "cover", "--quick", "--out", tmp_path / "rep", "--quiet", db=db)
    assert "covers of height chi^2_s" in out and re.search(r"report: .*cover\.md \(recorded as run 2 in ", out)


def test_cli_reproduce_bad_input_is_one_line(tmp_path, capsys):
    from engine.cli import main

    (tmp_path / "file").write_text("x")
    for args, msg in [(["reproduce", "nope"], "argument PAPER: invalid choice: 'nope'"),
                      (["reproduce", "cover", "--out", str(tmp_path / "file")], "is a file, not a folder"),
                      (["reproduce", "all", "--sweep", "sw-1"], "--sweep names one paper's sweep"),
                      (["reproduce", "cover", "--jobs", "-1"], "argument --jobs: expected a whole number >= 0"),
                      (["reproduce", "hedge", "--seeds", "0"], "--seeds must be an integer in 1..100, got 0")]:
        with pytest.raises(SystemExit) if args[1] == "nope" or "-1" in args else _no_raise():
            code = main([*args, "--db", str(tmp_path / "r.sqlite")])
            assert code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("error:") and msg in err, err


def test_cli_reproduce_says_how_to_finish_after_a_lost_scheduler(tmp_path, capsys, monkeypatch):
    import engine.runs.execute as ex
    from engine.cli import main

    def lost(*a, **k):
        raise ex.SweepInterrupted("the dask scheduler tcp://x went away ...; finish them with python -m engine "
                                  "runs resume sw-abc", "sw-abc")

    monkeypatch.setattr(ex, "execute_sweep", lost)
    assert main(["reproduce", "hedge", "--quick", "--quiet", "--db", str(tmp_path / "r.sqlite")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.strip().endswith(
        "runs resume sw-abc, then write the report with python -m engine reproduce hedge --quick --sweep sw-abc")


class _no_raise:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
