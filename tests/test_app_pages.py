"""Every page of the navigation runs headless without an exception (streamlit AppTest)."""

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from workbench.navigation import PAGES


def open_page(path: str, timeout: float = 60) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.run()
    at.switch_page(path)
    at.run()
    return at


@pytest.mark.parametrize("path", [p[1] for p in PAGES], ids=[p[2] for p in PAGES])
def test_page_runs(path):
    at = open_page(path)
    assert not at.exception, at.exception
