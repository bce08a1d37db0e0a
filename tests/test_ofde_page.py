"""The OFDE page headless (streamlit AppTest): a short synthetic run and the scale comparison."""

from streamlit.testing.v1 import AppTest

from tests.conftest import open_app_page

PAGE = "workbench/pages/ofde.py"


def open_page() -> AppTest:
    return open_app_page(PAGE)


def test_page_runs_a_synthetic_experiment():
    at = open_page()
    assert not at.exception
    assert at.title[0].value == "OFDE vs Chow-Liu"
    at.slider(key="ofde_vars").set_value(6)
    at.select_slider(key="ofde_train").set_value(500)
    at.button(key="ofde_run").click()
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    labels = [mt.label for mt in at.metric]
    assert "OFDE final" in labels and "Chow-Liu" in labels
    final = float(next(mt.value for mt in at.metric if mt.label == "OFDE final"))
    cl = float(next(mt.value for mt in at.metric if mt.label == "Chow-Liu"))
    assert final < 0 and cl < 0
    # forests, and the perturbation-scale comparison
    at.radio(key="ofde_experts").set_value("forests")
    at.button(key="ofde_trade").click()
    at.run()
    assert not at.exception and not at.error
    assert "ofde_tradeoff" in at.session_state and len(at.session_state["ofde_tradeoff"][1]) == 4


def test_upload_without_files_is_an_error_line():
    at = open_page()
    at.radio(key="ofde_data").set_value("Upload CSV")
    at.run()
    at.button(key="ofde_run").click()
    at.run()
    assert not at.exception
    assert any("upload a training CSV" in e.value for e in at.error)


def test_benchmark_option_on_a_short_nltcs_run(data_dir, monkeypatch):
    monkeypatch.setenv("TREE_WORKBENCH_DATA", str(data_dir))
    at = open_page()
    at.radio(key="ofde_data").set_value("Benchmark")
    at.run()
    assert at.selectbox(key="ofde_benchmark").value == "nltcs"
    at.number_input(key="ofde_rounds").set_value(1500)
    at.button(key="ofde_run").click()
    at.run()
    assert not at.exception and not at.error
    cl = float(next(mt.value for mt in at.metric if mt.label == "Chow-Liu"))
    assert abs(cl - (-6.759)) < 0.02


def test_benchmark_file_with_a_bad_value_is_an_error_line(tmp_path, monkeypatch):
    import gzip

    d = tmp_path / "density"
    d.mkdir()
    good = gzip.compress(b"0,1,0\n1,1,0\n0,0,1\n")
    for split in ("valid", "test"):
        (d / f"nltcs.{split}.data.gz").write_bytes(good)
    (d / "nltcs.ts.data.gz").write_bytes(gzip.compress(b"0,1,0\n1,x,0\n"))
    monkeypatch.setenv("TREE_WORKBENCH_DATA", str(tmp_path))
    at = open_page()
    at.radio(key="ofde_data").set_value("Benchmark")
    at.run()
    at.button(key="ofde_run").click()
    at.run()
    assert not at.exception, at.exception
    assert any("nltcs.ts.data.gz: line 2, column 2" in e.value for e in at.error), [e.value for e in at.error]
