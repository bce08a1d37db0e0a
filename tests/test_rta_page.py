"""The RTA page headless (streamlit AppTest): defaults render, a small synthetic run shows Table 1,
Figure 1, the trees and the label-pair graph; a bad upload setting gives an error, not a traceback."""

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT

PAGE = "workbench/pages/rta.py"


def _open():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    at.run()
    at.switch_page(PAGE)
    at.run()
    return at


def test_rta_page_small_synthetic_run():
    at = _open()
    assert not at.exception, at.exception
    assert "random spanning trees" in at.title[0].value
    nums = {n.label: n for n in at.number_input}
    nums["Examples"].set_value(80)
    nums["Folds"].set_value(2)
    nums["Passes"].set_value(3)
    at.slider[0].set_value(3)  # trees
    at.radio[0].set_value("fixed")
    at.run()
    at.button[0].click()
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    labels = [m.label for m in at.metric]
    assert "Microlabel loss" in labels and "0/1 loss" in labels and "Certified exact" in labels
    assert len(at.dataframe) >= 1
    table = at.dataframe[0].value
    assert ("Microlabel loss (%)", "RTA (this run)") in table.columns
    assert ("0/1 loss (%)", "SVM (this run)") in table.columns


def test_rta_page_upload_without_file_disables_run():
    at = _open()
    at.selectbox[0].set_value("Upload an ARFF file")
    at.run()
    assert not at.exception, at.exception
    assert at.button[0].disabled
