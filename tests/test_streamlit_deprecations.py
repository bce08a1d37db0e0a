"""The app uses Streamlit's current API: no ``use_container_width`` (deprecated, its removal date
passed; ``width="stretch"`` replaces it) anywhere in the app, and drawing the results of the RTA and
OFDE pages puts no deprecation warning in the server's log (it put two per RTA result)."""

import logging
import re

import pytest

from tests.conftest import ROOT, open_app_page, run_rta_page

DEPRECATED = re.compile(r"\buse_container_width\b")


def test_no_use_container_width_in_the_app():
    found = [f"{p.relative_to(ROOT)}:{i}" for p in [ROOT / "app.py", *sorted((ROOT / "workbench").rglob("*.py"))]
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if DEPRECATED.search(line)]
    assert not found, f"use_container_width=True is width='stretch' (False: width='content'): {found}"


class _Kept(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)


@pytest.fixture
def streamlit_log():
    """The warnings Streamlit's loggers write to the server's console while the test runs (they do
    not propagate to the root logger, so each gets the handler)."""
    import streamlit.deprecation_util  # noqa: F401 - its logger exists before the handler is added

    kept = _Kept()
    loggers = [logging.getLogger(name) for name in list(logging.Logger.manager.loggerDict)
               if name == "streamlit" or name.startswith("streamlit.")]
    for lg in loggers:
        lg.addHandler(kept)
    yield kept
    for lg in loggers:
        lg.removeHandler(kept)


def _deprecations(kept: _Kept) -> list[str]:
    return [r.getMessage() for r in kept.records
            if "deprecat" in r.getMessage().lower() or "will be removed" in r.getMessage()]


def test_rta_results_log_no_deprecation_warning(streamlit_log):
    at = run_rta_page(examples=60, folds=2, passes=2, trees=2)
    assert not at.exception, at.exception
    assert len(at.dataframe) >= 2, "the results (Table 1 and the folds) are drawn"
    assert not _deprecations(streamlit_log), _deprecations(streamlit_log)


def test_ofde_results_log_no_deprecation_warning(streamlit_log):
    at = open_app_page("workbench/pages/ofde.py")
    at.slider(key="ofde_vars").set_value(5)
    at.select_slider(key="ofde_train").set_value(500)
    at.button(key="ofde_run").click()
    at.run()
    assert not at.exception, at.exception
    assert any(m.label == "OFDE final" for m in at.metric), "the results are drawn"
    at.button(key="ofde_trade").click()
    at.run()
    assert not at.exception, at.exception
    assert not _deprecations(streamlit_log), _deprecations(streamlit_log)
