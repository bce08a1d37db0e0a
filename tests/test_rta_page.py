"""The RTA page headless (streamlit AppTest): defaults render, a small synthetic run shows Table 1,
Figure 1, the trees and the label-pair graph; a bad upload setting gives an error, not a traceback."""

from streamlit.testing.v1 import AppTest

from tests.conftest import open_app_page, run_rta_page

PAGE = "workbench/pages/rta.py"


def _open() -> AppTest:
    return open_app_page(PAGE, timeout=240)


def test_rta_page_small_synthetic_run():
    at = run_rta_page(examples=80, folds=2, passes=3, trees=3)
    assert not at.exception, at.exception
    assert "random spanning trees" in at.title[0].value
    assert not at.error, [e.value for e in at.error]
    labels = [m.label for m in at.metric]
    assert "Microlabel loss" in labels and "0/1 loss" in labels and "Certified exact" in labels
    assert len(at.dataframe) >= 1
    table = at.dataframe[0].value
    assert ("Microlabel loss (%)", "RTA (this run)") in table.columns
    assert ("0/1 loss (%)", "SVM (this run)") in table.columns
    assert not any("settings have changed" in c.value for c in at.caption)
    {n.label: n for n in at.number_input}["Seed"].set_value(5)
    at.run()
    assert any("settings have changed" in c.value for c in at.caption)


def test_rta_page_upload_without_file_disables_run():
    at = _open()
    at.selectbox[0].set_value("Upload an ARFF file")
    at.run()
    assert not at.exception, at.exception
    assert at.button[0].disabled


def test_rta_page_bad_data_file_is_an_error_line(tmp_path, monkeypatch):
    """A data file with a NaN feature is st.error naming the file, not a traceback at run time."""
    import engine.multilabel.data as mdata

    bad = tmp_path / "broken.arff"
    bad.write_text("@relation broken\n@attribute f numeric\n@attribute l0 {0,1}\n@attribute l1 {0,1}\n@data\n"
                   "nan,0,1\n1,1,0\n")
    (tmp_path / "broken.xml").write_text('<labels><label name="l0"/><label name="l1"/></labels>')
    monkeypatch.setattr(mdata, "benchmark_files", lambda: {"broken": bad})
    at = _open()
    at.selectbox[0].set_value("broken")
    at.run()
    assert not at.exception, at.exception
    assert any("broken.arff: attribute 'f' of example 1 is nan" in e.value for e in at.error), [e.value for e in at.error]
    assert not at.metric  # no run, no results
