"""The Hidden Tree Markov Models page headless (streamlit AppTest): a small synthetic run."""

from tests.test_app_pages import open_page

PAGE = "workbench/pages/bhtmm.py"


def test_page_opens_with_instructions():
    at = open_page(PAGE)
    assert not at.exception
    assert at.title[0].value == "Hidden Tree Markov Models"
    assert any("Train and evaluate" in i.value for i in at.info)


def small(at, model="tf", task="label"):
    at.radio(key="bhtmm_model").set_value(model)
    at.radio(key="bhtmm_task").set_value(task)
    at.slider(key="bhtmm_states").set_value(3)
    at.slider(key="bhtmm_iterations").set_value(3)
    at.slider(key="bhtmm_synthetic").set_value(5)
    at.button[0].click()
    at.run()
    assert not at.exception, at.exception


def test_labelling_runs_for_both_models_and_fills_the_table():
    at = open_page(PAGE, timeout=120)
    small(at, "tf")
    assert not at.error
    labels = [m.label for m in at.metric]
    assert "Generated accuracy" in labels
    small(at, "sp")
    df = at.dataframe[0].value
    assert {"this run TF-BHTMM %", "this run SP-BHTMM %"} <= set(df.columns)
    assert list(df["label (children)"]) == ["0", "1", "2", "3", "All"]
    # the test-tree slider redraws without error
    at.slider(key="bhtmm_test_tree").set_value(2)
    at.run()
    assert not at.exception


def test_classification_run():
    at = open_page(PAGE, timeout=120)
    small(at, "tf", "classify")
    assert not at.error
    assert "C" in at.dataframe[0].value.columns


def test_sp_as_the_authors_code_is_named_in_the_table():
    at = open_page(PAGE, timeout=120)
    at.selectbox(key="bhtmm_sp").set_value("authors")
    small(at, "sp")
    assert not at.error
    df = at.dataframe[0].value
    assert "this run SP-BHTMM (authors' code) %" in df.columns
    assert df["this run SP-BHTMM (authors' code) %"].notna().all()
