"""The TREE-HEDGE page headless (AppTest): set up a run, launch it, scrub, switch views."""

from streamlit.testing.v1 import AppTest

from tests.conftest import open_app_page, tree_views

PAGE = "workbench/pages/tree_hedge.py"


def open_page() -> AppTest:
    at = open_app_page(PAGE)
    assert not at.exception, at.exception
    return at


def test_launch_scrub_and_switch():
    at = open_page()
    assert at.title[0].value == "TREE-HEDGE"
    at.number_input(key="hedge_trials").set_value(300)
    at.button(key="FormSubmitter:hedge_setup-Run TREE-HEDGE").click()
    at.run()
    assert not at.exception, at.exception
    labels = [mt.label for mt in at.metric]
    assert "TREE-HEDGE loss" in labels and "Theorem 9 bound" in labels
    assert any("Theorem 9 bound" in s.value for s in at.success) or any("Theorem 9 bound" in s.value for s in at.info)
    assert len(at.get("plotly_chart")) == 2 and len(tree_views(at)) == 2   # curves, heat map; regret and actions
    at.radio(key="hedge_map").set_value("best").run()
    assert not at.exception, at.exception
    at.select_slider(key="hedge_time").set_value(0).run()
    assert not at.exception, at.exception
    at.radio(key="hedge_view").set_value("Cumulative loss").run()
    at.selectbox(key="hedge_learner").set_value("independent_hedge").run()
    assert not at.exception, at.exception


def test_file_environment_without_file_is_an_error():
    at = open_page()
    at.selectbox(key="hedge_env").set_value("file")
    at.button(key="FormSubmitter:hedge_setup-Run TREE-HEDGE").click()
    at.run()
    assert not at.exception
    assert any("loss file" in e.value for e in at.error)
