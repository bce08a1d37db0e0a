"""Every page of the navigation runs headless without an exception (streamlit AppTest)."""

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import open_app_page
from workbench.navigation import PAGES


def open_page(path: str, timeout: float = 180) -> AppTest:  # a cold numba cache compiles on the first visit
    return open_app_page(path, timeout=timeout)


@pytest.mark.parametrize("path", [p[1] for p in PAGES], ids=[p[2] for p in PAGES])
def test_page_runs(path):
    at = open_page(path)
    assert not at.exception, at.exception
