"""Issue 32: one database layer (engine/db.py), the embedded SQLite file or a real PostgreSQL server.

The run history's own tests (tests/test_runs.py) run on both backends through the ``db_target``
fixture; here: the SQL translation, one schema history shared by components, a run recorded by one
process seen by another, writers that take turns, a server restarting under an open store, and a
wrong or unreachable URL refused in one line naming the host (never the password, never a traceback)
by the CLI and by the app's launcher.
"""

import logging
import os
import subprocess
import sys
import threading

import pytest

from engine.db import DatabaseUnavailableError, open_database, postgres_sql, redact
from engine.errors import EngineError, InvalidParameterError
from engine.runs.store import RunStore
from tests import runs_family
from tests.conftest import ROOT
from tests.postgres import PASSWORD, free_port

PARTS = [["CREATE TABLE polls (id INTEGER PRIMARY KEY AUTOINCREMENT, question TEXT NOT NULL, score REAL)"],
         ["ALTER TABLE polls ADD COLUMN closed INTEGER NOT NULL DEFAULT 0",
          "CREATE UNIQUE INDEX polls_question ON polls (question)"]]


def test_sql_is_translated_outside_literals_only():
    assert postgres_sql("SELECT 'a?b', \"c?\" FROM t WHERE x = ? AND y LIKE ?") == \
        "SELECT 'a?b', \"c?\" FROM t WHERE x = %s AND y ILIKE %s"
    assert postgres_sql("SELECT 'likely' FROM t WHERE unlike = 1") == "SELECT 'likely' FROM t WHERE unlike = 1"
    assert postgres_sql("INSERT OR IGNORE INTO t (a) VALUES (?)") == \
        "INSERT INTO t (a) VALUES (%s) ON CONFLICT DO NOTHING"
    assert postgres_sql("CREATE TABLE t (n INTEGER, r REAL, b BLOB, s TEXT DEFAULT 'REAL')", ddl=True) == \
        "CREATE TABLE t (n BIGINT, r DOUBLE PRECISION, b BYTEA, s TEXT DEFAULT 'REAL')"
    assert redact("postgresql://u:p%40ss@h/db") == "postgresql://u@h:5432/db"


def test_components_share_one_schema_history(db_target):
    """Two components in one database: each its own row of ``schema_version``, migrated on its own."""
    with RunStore(db_target) as runs:
        run_id = runs.start({"algorithm": "hedge", "seed": 1})
        with open_database(db_target, component="classroom", migrations=PARTS[:1]) as db:
            assert db.version("classroom") == 1 and db.version("runs") == runs.schema_version
        with open_database(db_target, component="classroom", migrations=PARTS) as db:  # an upgrade
            with db.transaction() as tx:
                first = tx.insert("INSERT INTO polls (question, score) VALUES (?, ?)", ("Which edge?", 0.5))
                tx.execute("INSERT OR IGNORE INTO polls (question) VALUES (?)", ("Which edge?",))
            assert db.query("SELECT id, question, score, closed FROM polls") == [(first, "Which edge?", 0.5, 0)]
            with db.reading() as r:
                assert r.execute("SELECT COUNT(*) FROM polls WHERE question LIKE ?", ("which%",)).fetchone() == (1,)
            assert dict(db.query("SELECT component, version FROM schema_version")) == \
                {"runs": runs.schema_version, "classroom": 2}
        with pytest.raises(InvalidParameterError, match="newer than this workbench"):
            open_database(db_target, component="classroom", migrations=PARTS[:1], what="class store")
        assert runs.get(run_id).status == "running"


def test_a_failed_transaction_leaves_nothing(db_target):
    with open_database(db_target, component="classroom", migrations=PARTS) as db:
        with pytest.raises(ZeroDivisionError), db.transaction() as tx:
            tx.insert("INSERT INTO polls (question) VALUES (?)", ("half",))
            raise ZeroDivisionError("mid-transaction")
        assert db.query("SELECT COUNT(*) FROM polls") == [(0,)]


def test_text_search_ignores_case_and_nul_is_kept_visible(pg_url):
    with RunStore(pg_url) as s:
        a = s.start({"algorithm": "treeflip", "seed": 1}, label="Alpha\x00beta")
        assert [r.id for r in s.list(text="ALPHA")] == [a]
        assert s.get(a).label == "Alpha\ufffdbeta"
        assert s.integrity_check() == "ok" and pg_url not in str(s.path) and PASSWORD not in str(s.path)


@pytest.mark.slow
def test_a_run_recorded_by_one_process_is_in_every_history(pg_url, tmp_path):
    """The CLI in another process records on the server; this process's open store lists it."""
    with RunStore(pg_url) as mine:
        cfg = tmp_path / "c.json"
        cfg.write_text('{"algorithm": "treeflip", "seed": 3, "tree": {"generate": "path", "n": 9}}')
        env = dict(os.environ, TREE_WORKBENCH_DB_URL=pg_url, TREE_WORKBENCH_FAMILIES=runs_family.ENV)
        r = subprocess.run([sys.executable, "-m", "engine", "run", str(cfg), "--json", "--quiet"], cwd=ROOT,
                           env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert [(x.algorithm, x.status, x.seed) for x in mine.list()] == [("treeflip", "finished", 3)]
        r = subprocess.run([sys.executable, "-m", "engine", "runs", "list", "--json"], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and '"treeflip"' in r.stdout, r.stderr


def test_writers_take_turns(pg_url):
    """Eight threads, each its own store (its own pool), open a fresh database at once and record:
    one migration, every run recorded once."""
    ids, errors = [], []

    def work():
        try:
            with RunStore(pg_url) as s:
                for i in range(5):
                    ids.append(s.start({"algorithm": "treeflip", "seed": i}))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors and len(set(ids)) == 40
    with RunStore(pg_url) as s:
        assert sorted(r.id for r in s.list()) == sorted(ids)
        assert s._db.query("SELECT COUNT(*) FROM schema_version WHERE component = 'runs'") == [(1,)]


@pytest.mark.slow
@pytest.mark.waits
def test_the_server_restarting_costs_one_log_line(pg_server, pg_url, caplog):
    with RunStore(pg_url) as s:
        first = s.start({"algorithm": "treeflip", "seed": 0})
        pg_server.stop()
        try:
            caplog.set_level(logging.WARNING, logger="engine.db")
            with pytest.raises(DatabaseUnavailableError) as exc:
                s.list()
            msg = str(exc.value)
            assert f"127.0.0.1:{pg_server.port}" in msg and "\n" not in msg and PASSWORD not in msg
            with pytest.raises(DatabaseUnavailableError):
                s.get(first)   # still away: refused again, and said once in the log
        finally:
            pg_server.start()
        lines = [r for r in caplog.records if r.name == "engine.db"]
        assert len(lines) == 1 and "reconnecting" in lines[0].getMessage(), [r.getMessage() for r in lines]
        # back: the next operations reconnect, without reopening the store
        assert s.get(first).status == "running"
        second = s.start({"algorithm": "treeflip", "seed": 1})
        assert [r.id for r in s.list()] == [second, first]


def _refused(argv, url, *, timeout=120) -> str:
    env = dict(os.environ, TREE_WORKBENCH_DB_URL=url)
    r = subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=timeout)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "topsecret" not in r.stderr and PASSWORD not in r.stderr
    return lines[0]


@pytest.mark.parametrize("entry", [["-m", "engine", "runs", "list"],
                                   ["-m", "workbench.serve", "--no-warm-up", "--port", "1"]])
def test_a_wrong_or_unreachable_url_is_one_line(entry, pg_server):
    port = free_port()
    assert f"127.0.0.1:{port} cannot be reached" in _refused(entry, f"postgresql://ana:topsecret@127.0.0.1:{port}/x")
    line = _refused(entry, pg_server.url(password="topsecret"))
    assert f"127.0.0.1:{pg_server.port}" in line and "password authentication failed" in line
    assert "nohost.invalid" in _refused(entry, "postgresql://ana:topsecret@nohost.invalid/x")
    assert "(got mysql)" in _refused(entry, "mysql://ana:topsecret@db/x")


def test_engine_errors_for_the_store_are_one_line(pg_server):
    with pytest.raises(EngineError) as exc:
        RunStore(pg_server.url(database="no_such_db"))
    assert "no_such_db" in str(exc.value) and "\n" not in str(exc.value) and PASSWORD not in str(exc.value)


@pytest.mark.slow
@pytest.mark.waits
def test_the_app_says_one_line_while_the_server_is_away_and_recovers(pg_server, pg_url, monkeypatch):
    """The Runs page on a PostgreSQL history; the server stops: one error line, no exception; it
    starts again: the next rerun shows the runs, with no restart of the app."""
    from tests.conftest import open_app_page
    from tests.test_runs_page import PAGE

    monkeypatch.setenv("TREE_WORKBENCH_DB_URL", pg_url)
    with RunStore(pg_url) as s:
        s.end(s.start({"algorithm": "hedge", "seed": 0}, label="kept on the server"), "failed", "x")
    at = open_app_page(PAGE, timeout=120)
    assert not at.exception and "kept on the server" in str(at)
    pg_server.stop()
    try:
        at.run()
        assert not at.exception, at.exception
        away = [e.value for e in at.error if "cannot be reached" in e.value]
        assert len(away) == 1 and f"127.0.0.1:{pg_server.port}" in away[0] and PASSWORD not in away[0]
    finally:
        pg_server.start()
    at.run()
    assert not at.exception and not [e for e in at.error if "cannot be reached" in e.value]
    assert "kept on the server" in str(at)


@pytest.mark.slow
def test_a_process_killed_mid_run_loses_no_record(pg_url, tmp_path):
    """A run's process killed (SIGKILL) on a PostgreSQL history: the finished run before it is
    intact, the killed one is there, marked interrupted when the history is next opened here."""
    import json
    import signal

    env = dict(os.environ, TREE_WORKBENCH_DB_URL=pg_url, TREE_WORKBENCH_FAMILIES=runs_family.ENV)
    quick = tmp_path / "quick.json"
    quick.write_text(json.dumps({"algorithm": "treeflip", "seed": 4}))
    done = subprocess.run([sys.executable, "-m", "engine", "run", str(quick), "--json", "--quiet"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with runs_family.slow_run_in_progress(tmp_path / "slow.json", env, pg_url, timeout=90) as (proc, running):
        os.kill(proc.pid, signal.SIGKILL)
    with RunStore(pg_url) as s:
        rec = s.get(running.id)
        assert rec.status == "interrupted" and 0 < rec.progress < 1
        assert s.get(json.loads(done.stdout)["id"]).metrics == json.loads(done.stdout)["metrics"]
        assert [r.status for r in s.list()] == ["interrupted", "finished"]
