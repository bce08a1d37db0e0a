"""Every page of the navigation runs headless without an exception (streamlit AppTest)."""

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import open_app_page
from workbench.declarations.page_table import PAGES
from workbench.navigation import script


def open_page(path: str, timeout: float = 180) -> AppTest:  # a cold numba cache compiles on the first visit
    return open_app_page(path, timeout=timeout)


@pytest.mark.parametrize("path", [script(p) for p in PAGES.values()], ids=[p.title for p in PAGES.values()])
def test_page_runs(path):
    at = open_page(path)
    assert not at.exception, at.exception
