"""The Reproduce page headless (streamlit AppTest): pick a paper, start its quick protocol (a
recorded run of the run pool), read the report with its figures, download it, and find it again
among the earlier reports of the run history."""

import pytest

from engine.reproduce import ReproduceConfig, run
from engine.runs.execute import execute
from engine.runs.store import RunStore
from tests.conftest import open_app_page

PAGE = "workbench/pages/reproduce.py"


@pytest.fixture
def fresh_history(tmp_path, monkeypatch):
    path = tmp_path / "runs.sqlite"
    monkeypatch.setenv("TREE_WORKBENCH_DB", str(path))
    return path


def test_reproduce_the_cover_quick_and_read_the_report(fresh_history):
    at = open_app_page(PAGE, timeout=300)
    assert not at.exception, at.exception
    assert at.title[0].value == "Reproduce the papers"
    assert any("None yet in the run history" in c.value for c in at.caption)
    at.radio(key="repro_paper").set_value("cover")
    at.run()
    at.button[0].click()
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert any("Reproducing" in h.value and "Online Sum-Product Computation over Trees" in h.value
               for h in at.header)
    assert any("Quick protocol" in w.value for w in at.warning)
    table = at.dataframe[0].value
    assert list(table.columns)[:6] == ["data", "metric", "published", "ours", "spread (sd, n)", "difference"]
    row = table[table.metric.str.startswith("covers of height chi^2_s")].iloc[0]
    assert row.published == "100.00" and row.ours == "100.00" and row.difference == "+0.00"
    assert len(at.get("plotly_chart")) == 1   # the height figure
    labels = [b.label for b in at.get("download_button")]
    assert "Report as Markdown" in labels and "Report as HTML" in labels
    # it is in the run history, and listed among the earlier reports
    with RunStore(fresh_history) as store:
        (rec,) = store.list(algorithm="reproduce")
    assert rec.status == "finished" and rec.config["paper"] == "cover" and rec.config["quick"] is True
    earlier = at.dataframe[1].value
    assert earlier.run.tolist() == [rec.id] and earlier.paper.tolist() == ["cover"]
    assert at.query_params.get("report") == str(rec.id) and "run" not in at.query_params


def test_an_earlier_report_opens_from_the_history_and_by_link(fresh_history):
    with RunStore(fresh_history) as store:
        rec = execute(ReproduceConfig(paper="cover", quick=True), None, store, run_fn=run)
    at = open_app_page(PAGE, timeout=300)
    assert at.dataframe[0].value.run.tolist() == [rec.id]  # listed, nothing open yet
    at.selectbox(key="repro_pick").set_value(rec.id)
    at.run()
    assert not at.exception, at.exception
    assert any("Online Sum-Product Computation over Trees" in h.value for h in at.header)
    assert len(at.dataframe) == 2
    # a link to the report opens it in a new session
    at2 = open_app_page(PAGE, timeout=300)
    at2.query_params["report"] = str(rec.id)
    at2.run()
    assert not at2.exception, at2.exception
    assert any("Online Sum-Product Computation over Trees" in h.value for h in at2.header)


def test_the_plan_names_the_missing_data_sets_before_running(fresh_history):
    at = open_app_page(PAGE, timeout=300)
    at.radio(key="repro_paper").set_value("rta")
    at.run()
    assert not at.exception, at.exception
    assert any("Not in the data folder" in c.value and "medical" in c.value for c in at.caption)
