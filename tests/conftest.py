"""Shared test settings: a hypothesis profile sized for CI, and the path to the benchmark data."""

import os
import subprocess
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



def one_line_error(error: type, read, path: Path, *fragments: str, text: str | None = None) -> str:
    """``read(path)`` refuses the file (written with ``text`` first, when given) with ``error``: a
    one-line message naming the file and holding every fragment (what the house rules ask of every
    bad input). Returns the message."""
    if text is not None:
        path.write_text(text)
    with pytest.raises(error) as exc:
        read(path)
    msg = str(exc.value)
    assert "\n" not in msg and path.name in msg and all(f in msg for f in fragments), msg
    return msg


def engine_cli(*args, cwd: Path | None = None, env: dict | None = None,
               input: str | None = None) -> subprocess.CompletedProcess:
    """``python -m engine *args`` run in this process (``engine.cli.main``), answered as
    ``subprocess.run(..., capture_output=True, text=True)`` answers: ``returncode``, ``stdout``,
    ``stderr``. A fresh interpreter pays 1–2 CPU s importing NumPy, SciPy and numba before the
    command starts, and most CLI tests are about what the command prints and writes. ``cwd`` and
    ``env`` (the whole environment, as for ``subprocess``) hold for the call only; ``input`` is its
    stdin. The entry point itself, exit codes and signals keep real processes
    (tests/test_cli_start.py, the ``subprocess`` tests of each command)."""
    import contextlib
    import io
    import sys

    from engine.cli import main

    argv = [str(a) for a in args]
    out, err = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True) for _ in range(2))
    stdin = io.TextIOWrapper(io.BytesIO((input or "").encode()), encoding="utf-8")
    saved_env, saved_cwd, saved_stdin = dict(os.environ), os.getcwd(), sys.stdin
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        sys.stdin = stdin
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:   # argparse: a refused flag (2), --help (0)
                code = 0 if exc.code is None else exc.code
                if not isinstance(code, int):   # SystemExit("message"): printed, status 1
                    print(code, file=sys.stderr)
                    code = 1
    finally:
        sys.stdin = saved_stdin
        os.chdir(saved_cwd)
        if env is not None:
            os.environ.clear()
            os.environ.update(saved_env)
    text = [s.buffer.getvalue().decode("utf-8") for s in (out, err)]
    return subprocess.CompletedProcess([sys.executable, "-m", "engine", *argv], code, *text)


def open_tab(at, key: str, label: str):
    """Open the tab ``label`` of the tabs ``key`` and rerun (a page computes only its open tab)."""
    at.session_state[key] = label
    return at.run()


def shown_stats(at) -> dict[str, str]:
    """The headline numbers a page shows (``workbench.components.stats``: HTML rows), by label."""
    import html
    import re

    return {html.unescape(k): html.unescape(v) for h in at.html
            for k, v in re.findall(r"<dt>([^<]*)</dt><dd>([^<]*)</dd>", h.proto.body)}


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


def run_rta_page(*, examples: int, folds: int, passes: int, trees: int):
    """The RTA page after a small synthetic run at a fixed C (``examples`` examples, ``folds`` folds,
    ``passes`` passes, ``trees`` spanning trees), as the headless app shows it."""
    at = open_app_page("workbench/pages/rta.py", timeout=240)
    nums = {n.label: n for n in at.number_input}
    nums["Examples"].set_value(examples)
    nums["Folds"].set_value(folds)
    nums["Passes"].set_value(passes)
    at.slider[0].set_value(trees)
    at.radio[0].set_value("fixed")
    at.run()
    at.button[0].click()
    return at.run()


@pytest.hookimpl(tryfirst=True)   # before pytest-xdist reads the groups (its hook is registered last)
def pytest_collection_modifyitems(config, items):
    """A test that asks for ``data_dir`` reads the benchmark data: it carries the ``data`` marker,
    so ``-m "not data"`` (``make test-fast``) leaves it out. A browser test gets one rerun after
    a timeout (:func:`_browser_rerun`).

    The browser tests form no group: pytest-xdist hands them out one at a time like the others,
    and every test process that gets one serves its own app and drives its own Chromium for the
    rest of its session (``app_url`` and ``browser`` in tests/browser/conftest.py are session
    fixtures: one app per process, shared by all its browser tests). They are collected first, so
    every process starts on them, and the tests marked ``waits`` go among them (:func:`spread_waiting`). As one group they ran one after another on one process, the
    run's longest chain (docs/benchmarks.md, "The test suite's time")."""
    for item in items:
        if "data_dir" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.data)
        if item.get_closest_marker("browser") is not None and item.get_closest_marker("flaky") is None:
            item.add_marker(_BROWSER_RERUN)
    items[:] = spread_waiting(items)


def spread_waiting(items: list) -> list:
    """The tests marked ``waits`` (a dask cluster's faults, a database server stopped and started:
    seconds of timers, with the cores idle) spread evenly among the browser tests, which come
    first, rather than in their files' places. Collected side by side, the two dask tests and the
    database restart ran at the same time on both test processes: 30 s with the machine 15 % busy.
    Among the browser tests, each waits while the other processes keep the cores busy."""
    waiting = [it for it in items if it.get_closest_marker("waits") is not None]
    if not waiting:
        return items
    rest = [it for it in items if it.get_closest_marker("waits") is None]
    browser = sum(1 for it in rest if it.get_closest_marker("browser") is not None)
    step = max(1, browser // (len(waiting) + 1))
    out = []
    for k, item in enumerate(rest):
        if k and k % step == 0 and len(out) - k < len(waiting):
            out.append(waiting[len(out) - k])
        out.append(item)
    return out + waiting[len(out) - len(rest):]


def _browser_rerun():
    """A browser test whose wait for the page timed out runs once more (pytest-rerunfailures; the
    summary lists it as RERUN, and a second timeout fails it). On a loaded machine (two cores,
    Chromium and an app per test process) a run of the whole suite now and then lost a click or
    a key to a page that never answered it (cause not found); the failure's report shows what the page showed, its
    console and the app's log (tests/browser/conftest.py). Any other failure fails at once."""
    try:
        from playwright.sync_api import TimeoutError as PageTimeout
    except ImportError:   # no Playwright: the browser tests are skipped anyway
        return pytest.mark.flaky(reruns=0)
    return pytest.mark.flaky(reruns=1, only_rerun=[PageTimeout])


_BROWSER_RERUN = _browser_rerun()


class _XdistGroupsOnPytest9:
    """pytest-xdist 3.8 puts an ``xdist_group`` into the test's id by setting ``item._nodeid``, which
    pytest 9 no longer reads (the id lives in ``item._id``): without this the groups are ignored."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        if not getattr(config.option, "loadgroup", False):
            return
        try:
            from _pytest.nodeid import coerce_node_id
        except ImportError:   # an older pytest: xdist's own suffix works
            return
        for item in items:
            names = sorted({str(m.args[0]) for m in item.iter_markers("xdist_group") if m.args})
            if names and not item.nodeid.endswith("@" + "_".join(names)):
                item._id = coerce_node_id(f"{item.nodeid}@{'_'.join(names)}")


def pytest_configure(config):
    """Every test process shares one compiled-kernel cache: its writes are made safe across
    processes (``engine.jitcache``)."""
    from engine.jitcache import guard_cache

    guard_cache()
    config.pluginmanager.register(_XdistGroupsOnPytest9(), "xdist-groups-on-pytest-9")


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
    url = os.environ.pop("TREE_WORKBENCH_DB_URL", None)  # a tester's own server is not the tests'
    yield
    if url is not None:
        os.environ["TREE_WORKBENCH_DB_URL"] = url
    if old is None:
        os.environ.pop("TREE_WORKBENCH_DB", None)
    else:
        os.environ["TREE_WORKBENCH_DB"] = old


@pytest.fixture(scope="session")
def pg_server():
    """A real PostgreSQL server (Debian's package) for this test process; skipped where not installed."""
    from tests.postgres import PostgresServer, pg_bin

    if pg_bin() is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL is not installed (.ci/run installs the postgresql package)")
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    server = PostgresServer()
    yield server
    server.destroy()


@pytest.fixture
def pg_url(pg_server) -> str:
    """The URL (with its password) of a fresh empty database on :func:`pg_server`."""
    return pg_server.new_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_target(request, tmp_path) -> str:
    """A fresh run history on each backend: an SQLite file, or a PostgreSQL database's URL."""
    if request.param == "sqlite":
        return str(tmp_path / "runs.sqlite")
    return request.getfixturevalue("pg_url")


@pytest.fixture(scope="module")
def pool():
    """The app's pool of run workers (``workbench.runner``) with one process, warmed, for a module."""
    from workbench import runner   # only the modules that use the pool import the app's runner

    p = runner._Pool(1)
    p.warm()
    yield p
    p.executor.shutdown(cancel_futures=True)
    p.manager.shutdown()


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


def pytest_terminal_summary(terminalreporter):
    """For each test run again (:func:`_browser_rerun`): why its first run failed, and what its page
    said in its console, so a flaky wait is seen in CI's printout, not only counted."""
    reruns = terminalreporter.stats.get("rerun", [])
    if not reruns:
        return
    terminalreporter.section("why each rerun test failed the first time")
    for rep in reruns:
        crash = getattr(rep.longrepr, "reprcrash", None)
        terminalreporter.write_line(f"{rep.nodeid}: {crash.message.splitlines()[0] if crash else rep.longrepr}")
        for title, text in rep.sections:
            if title == "the page's console and socket":
                for line in text.splitlines()[-8:]:
                    terminalreporter.write_line(f"    {line}")


def pytest_sessionfinish(session, exitstatus):
    """Stop the run workers the app's pages started in this process, so pytest can exit (seen
    once in CI: pytest waited for ever on a worker after its summary)."""
    import sys

    runner = sys.modules.get("workbench.runner")
    if runner is not None:
        runner.shutdown_pool()


def tree_views(at) -> list:
    """The tree views (``workbench.treeview``: a Streamlit v2 component, which AppTest lists as an
    unknown element of type ``bidi_component``) on the page, in order; not the figures' skip links
    (``workbench.components.FigureText``, keyed ``<figure>-a11y``), the other v2 component."""
    return [el for el in at.get("bidi_component") if not str(el.key or "").endswith("-a11y")]


#: the geometries the tree views were sent, by name (what treeview.js keeps), and its fields
GEOMETRIES: dict[str, dict] = {}
GEOMETRY_KEYS = ("vxy", "vid", "vname", "ep", "eo", "gp", "go", "gcount", "gname", "glabel", "gtext")


def view_data(at, key: str) -> dict:
    """What the tree view ``key`` was sent (``workbench.treeview.view_payload``), its base64 arrays
    decoded: ``vid`` (drawn vertices), ``vflag`` (ringed), ``gcount`` (collapsed marks' counts), ..."""
    import base64
    import json

    import numpy as np

    types = {"vxy": np.float32, "vid": np.int32, "vfill": np.uint8, "vflag": np.uint8, "ep": np.float32,
             "eo": np.int32, "ew": np.uint8, "gp": np.float32, "go": np.int32, "gcount": np.int32,
             "gfill": np.uint8, "gstat": np.float32, "gflag": np.int32, "path": np.float32, "hxy": np.float32}
    for el in tree_views(at):
        if el.key == key:
            data = json.loads(el.proto.bytes or el.proto.json)   # the JSON text's bytes (treeview.py)
            # as treeview.js: a view's geometry comes once, then its name ("geo") while it is recoloured
            if "vxy" in data:
                GEOMETRIES[data["geo"]] = {k: data[k] for k in GEOMETRY_KEYS}
            else:
                data.update(GEOMETRIES[data["geo"]])
            for name, dtype in types.items():
                data[name] = np.frombuffer(base64.b64decode(data.get(name) or ""), dtype=dtype)
            return data
    raise KeyError(f"no tree view {key!r} on the page")


@pytest.fixture(autouse=True)
def _kernels_not_left_deferred():
    """A test that defers kernels (``engine.jit.defer``: a served app's start, run here in-process)
    does not leave them deferred for the next test of the same worker."""
    from engine import jit

    before = set(jit._DEFERRED)
    yield
    with jit._LOCK:
        jit._DEFERRED.clear()
        jit._DEFERRED.update(before)
