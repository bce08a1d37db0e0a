"""Shared test settings: a hypothesis profile sized for CI, and the path to the benchmark data."""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from engine.datasets import data_home

settings.register_profile("default", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

ROOT = Path(__file__).resolve().parent.parent



def open_app_page(page: str, *, timeout: float = 120, state: dict | None = None):
    """The app run headless (``streamlit.testing.v1.AppTest``) and switched to ``page`` (a script of
    workbench/pages), with ``state`` put in the session first (e.g. a tree to show)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.run()
    for key, value in (state or {}).items():
        at.session_state[key] = value
    at.switch_page(page)
    at.run()
    return at


def pytest_collection_modifyitems(config, items):
    """A test that asks for ``data_dir`` reads the benchmark data: it carries the ``data`` marker,
    so ``-m "not data"`` (``make test-fast``) leaves it out."""
    for item in items:
        if "data_dir" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.data)


@pytest.fixture(scope="session", autouse=True)
def _compiling_said():
    """Commands run in this process (``engine.cli.main``) do not announce compiling: the tests check
    their stderr line by line, and kernels get compiled here whenever a test first needs them. The
    announcement has its own test, in a fresh process with an empty cache."""
    from engine.cli import _Compiling

    _Compiling.said = True


@pytest.fixture(scope="session", autouse=True)
def _isolated_run_history(tmp_path_factory):
    """Runs recorded by any test go to a temporary history, never the user's own database."""
    old = os.environ.get("TREE_WORKBENCH_DB")
    os.environ["TREE_WORKBENCH_DB"] = str(tmp_path_factory.mktemp("history") / "runs.sqlite")
    yield
    if old is None:
        os.environ.pop("TREE_WORKBENCH_DB", None)
    else:
        os.environ["TREE_WORKBENCH_DB"] = old


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """``engine.datasets.data_home()``; tests that need it fail in CI when it is missing, skip elsewhere."""
    data = data_home()
    if not data.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"benchmark data not found at {data}")
        pytest.skip(f"benchmark data not found at {data}")
    return data


@pytest.fixture
def db(tmp_path, monkeypatch):
    """A fresh run history (``TREE_WORKBENCH_DB``) with the tests' run family ``treeflip`` registered."""
    from engine.runs import registry
    from tests import runs_family

    path = tmp_path / "runs.sqlite"
    monkeypatch.setenv("TREE_WORKBENCH_DB", str(path))
    registry.register_family(*runs_family.FAMILY)
    yield path
    registry.unregister_family("treeflip")


def pytest_sessionfinish(session, exitstatus):
    """Stop the run workers the app's pages started in this process, so pytest can exit (seen
    once in CI: pytest waited for ever on a worker after its summary)."""
    import sys

    runner = sys.modules.get("workbench.runner")
    if runner is not None:
        runner.shutdown_pool()
