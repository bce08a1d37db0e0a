"""The run history: every run's config, code version, seed, status, times, metrics and curves.

An embedded SQLite database (the standard library's ``sqlite3``) at the path in the environment
variable ``TREE_WORKBENCH_DB``, else ``runs.sqlite`` in the user's data directory (platformdirs:
``~/.local/share/tree-workbench/`` on Linux). Each change is one transaction in WAL mode, so a
process killed at any instant leaves the database consistent: a run is either not there, or there
as ``running`` with its config, or there with its final status and results.

A run's status is one of ``running``, ``finished``, ``failed``, ``cancelled``, ``interrupted``. A
record keeps the process id and host that run it; opening the store marks ``interrupted`` every
``running`` run of this host whose process is gone (killed, crashed, power cut). Runs of another
host cannot be checked and are left as they are.

The journal is WAL where it can be; on a network file system (NFS, SMB, sshfs: WAL needs shared
memory on one host) the classic rollback journal is used, and a history on a read-only file system
(or one this user cannot write) is opened read-only: it lists and shows, and refuses to record with
one line. ``TREE_WORKBENCH_DB_JOURNAL=delete`` forces the rollback journal.

A run may carry an ``owner`` (classroom mode: each student's own runs): :meth:`RunStore.list` and
:meth:`RunStore.delete` take ``owner=`` to see and delete only that owner's runs.

The schema is versioned: table ``schema_version`` holds the version (component ``runs``) and
:data:`MIGRATIONS` is the ordered list of steps; opening an older database applies the missing steps
in one transaction.

With ``TREE_WORKBENCH_DB_URL=postgresql://user:password@host/database`` the history is kept on that
PostgreSQL server instead (:mod:`engine.db`: the same tables, migrations and transactions), which
several app processes and machines can share; a URL may also be given wherever a file is.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from engine.db import URL_ENV, database_url, is_url, open_database, redact
from engine.errors import EngineError, InvalidParameterError
from engine.jsonio import dumps
from engine.jsonio import to_jsonable as jsonable  # strict-JSON values of a record
from engine.runs.protocol import RunResult

__all__ = ["RunStore", "RunRecord", "STATUSES", "MIGRATIONS", "SCHEMA_VERSION", "DB_ENV", "URL_ENV",
           "default_db_path", "default_db_target", "open_store", "code_version", "jsonable", "UnknownRunError"]

DB_ENV = "TREE_WORKBENCH_DB"
STATUSES = ("running", "finished", "failed", "cancelled", "interrupted")

#: MIGRATIONS[i] takes a database from schema version i to i + 1.
MIGRATIONS: list[list[str]] = [
    # 1: the runs and their results
    ["""CREATE TABLE runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            algorithm TEXT NOT NULL,
            config TEXT NOT NULL,
            seed INTEGER,
            code_version TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN
                ('running', 'finished', 'failed', 'cancelled', 'interrupted')),
            started REAL NOT NULL,
            ended REAL,
            seconds REAL,
            error TEXT,
            metrics TEXT NOT NULL DEFAULT '{}',
            curves TEXT NOT NULL DEFAULT '{}',
            artefacts TEXT NOT NULL DEFAULT '{}')""",
     "CREATE INDEX runs_algorithm ON runs (algorithm)"],
    # 2: the owner process (to tell a live run from a killed one), live progress, labels, sweeps
    ["ALTER TABLE runs ADD COLUMN pid INTEGER",
     "ALTER TABLE runs ADD COLUMN pid_start TEXT",
     "ALTER TABLE runs ADD COLUMN host TEXT",
     "ALTER TABLE runs ADD COLUMN label TEXT NOT NULL DEFAULT ''",
     "ALTER TABLE runs ADD COLUMN sweep TEXT",
     "ALTER TABLE runs ADD COLUMN progress REAL",
     "ALTER TABLE runs ADD COLUMN message TEXT",
     "CREATE INDEX runs_started ON runs (started)",
     "CREATE INDEX runs_status ON runs (status)"],
    # 3: the owner of a run in classroom mode (a browser session's token; NULL from the CLI)
    ["ALTER TABLE runs ADD COLUMN owner TEXT",
     "CREATE INDEX runs_owner ON runs (owner)"],
]
SCHEMA_VERSION = len(MIGRATIONS)

# runs being executed by this process (so a store opened here does not mark them interrupted)
_LIVE: set[tuple[str, int]] = set()
_LIVE_LOCK = threading.Lock()


class UnknownRunError(EngineError, KeyError):
    """A run id that the history does not have."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def default_db_path() -> Path:
    """``$TREE_WORKBENCH_DB``, else ``runs.sqlite`` in the user's data directory."""
    env = os.environ.get(DB_ENV)
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("tree-workbench", appauthor=False)) / "runs.sqlite"


def default_db_target() -> str:
    """``$TREE_WORKBENCH_DB_URL`` (a PostgreSQL server) when it is set, else :func:`default_db_path`."""
    return database_url() or str(default_db_path())


_CODE_VERSION: str | None = None


def code_version() -> str:
    """``engine.__version__``, plus ``+g<commit>`` (and ``.dirty``) when run from a git checkout."""
    global _CODE_VERSION
    if _CODE_VERSION is None:
        import subprocess

        from engine import __version__

        version = __version__
        here = Path(__file__).resolve().parent
        try:
            commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=here, capture_output=True,
                                    text=True, timeout=5)
            if commit.returncode == 0 and commit.stdout.strip():
                version += f"+g{commit.stdout.strip()}"
                dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "."],
                                       cwd=here.parent, capture_output=True, text=True, timeout=5)
                if dirty.returncode == 0 and dirty.stdout.strip():
                    version += ".dirty"
        except (OSError, subprocess.SubprocessError):
            pass
        _CODE_VERSION = version
    return _CODE_VERSION


def _dumps(obj) -> str:
    # NaN and infinities are kept (Python reads them back); jsonable() turns them to null for output
    return dumps(obj, keep_nan=True, sort_keys=True)


def _iso(t: float | None) -> str | None:
    if t is None:
        return None
    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class RunRecord:
    """One run of the history.

    ``started``/``ended`` are Unix times (seconds, UTC); ``seconds`` is the run's own duration.
    ``metrics``, ``curves`` and ``artefacts`` are those of the :class:`RunResult` (empty until the
    run finishes); ``progress``/``message`` the last progress report of a run in progress.
    """

    id: int
    algorithm: str
    config: dict[str, Any]
    seed: int | None
    code_version: str
    status: str
    started: float
    ended: float | None = None
    seconds: float | None = None
    error: str | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    curves: dict[str, list] = field(default_factory=dict)
    artefacts: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    sweep: str | None = None
    pid: int | None = None
    host: str | None = None
    progress: float | None = None
    message: str | None = None
    owner: str | None = None

    @property
    def result(self) -> RunResult:
        """The run's results as the protocol's :class:`RunResult`."""
        return RunResult(metrics=self.metrics, curves=self.curves, artefacts=self.artefacts,
                         seconds=self.seconds)

    @property
    def started_iso(self) -> str:
        return _iso(self.started)

    @property
    def ended_iso(self) -> str | None:
        return _iso(self.ended)

    def to_dict(self, *, curves: bool = True, artefacts: bool = True) -> dict[str, Any]:
        """Strict-JSON dict (times as ISO 8601 UTC strings; NaN as null)."""
        d = asdict(self)
        d["started"] = self.started_iso
        d["ended"] = self.ended_iso
        d.pop("owner")  # a classroom session's token stays in the history
        if not curves:
            d.pop("curves")
        if not artefacts:
            d.pop("artefacts")
        return jsonable(d)


_COLUMNS = ("id", "algorithm", "config", "seed", "code_version", "status", "started", "ended", "seconds",
            "error", "metrics", "curves", "artefacts", "label", "sweep", "pid", "host", "progress",
            "message", "owner")
_JSON_COLUMNS = ("config", "metrics", "curves", "artefacts")


def _proc_start(pid: int) -> str | None:
    """The start time of process ``pid`` (Linux ``/proc``), to tell it from a later reuse of its pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    # fields[0] is the state (field 3 of stat), starttime is field 22
    return fields[19] if len(fields) > 19 else None


def _proc_alive(pid: int, start: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except OSError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc: trust kill(0)
    fields = stat.rsplit(")", 1)[-1].split()
    if fields and fields[0] in ("Z", "X"):  # a zombie has finished
        return False
    return start is None or len(fields) <= 19 or fields[19] == start


class RunStore:
    """The run history at ``path`` (default :func:`default_db_target`): an SQLite file, or a
    PostgreSQL URL; safe to share between threads.

    Opening it creates or migrates the database and marks the dead ``running`` runs of this host
    ``interrupted`` (``check_interrupted=False`` skips that). ``path`` is the file, or the URL without
    its password (what messages show); ``target`` is what reopens it (the URL with its password).
    """

    def __init__(self, path=None, *, check_interrupted: bool = True):
        target = path if path is not None else default_db_target()
        self.owner: str | None = None  # see for_owner
        if is_url(target):
            self.target = str(target).strip()
            self.path = redact(self.target)
            self._key = self.path
        else:
            self.path = Path(target).expanduser()
            self.target = str(self.path)
        self._db = open_database(self.target, component="runs", migrations=MIGRATIONS, what="run history")
        if not is_url(target):
            self._key = str(self.path) if str(self.path) == ":memory:" else str(self.path.resolve())
        self.read_only = self._db.read_only
        self._host = socket.gethostname()
        self._pid = os.getpid()
        self._pid_start = _proc_start(self._pid)
        if check_interrupted and not self.read_only:
            self.mark_interrupted()

    # -- plumbing ---------------------------------------------------------------------------------

    @property
    def _conn(self) -> sqlite3.Connection:
        """The SQLite connection (an SQLite history only; for checks of the file itself)."""
        return self._db.conn

    @contextmanager
    def _tx(self):
        """One write transaction (rolled back on any error)."""
        if self.read_only:
            raise InvalidParameterError(f"run history {self.path} is read-only here (its file system or "
                                        "permissions); runs can be listed and shown but not recorded or deleted; "
                                        f"set {DB_ENV} to a writable file to record runs")
        with self._db.transaction() as tx:
            yield tx

    @property
    def schema_version(self) -> int:
        return self._db.version("runs")

    @property
    def short_name(self) -> str:
        """Where the history is, in words anyone may see: the file's name, or the PostgreSQL database and
        its host (no user, no password)."""
        if is_url(self.target):
            return self.path.rsplit("@", 1)[-1].replace("postgresql://", "")
        return self.path.name

    def for_owner(self, owner: str | None) -> "RunStore":
        """A view of this history for one owner (a classroom session): runs it starts carry
        ``owner``, and it lists, shows and deletes only that owner's runs. ``None``: every run (the
        command line, a lecturer). The view shares this store's connection; close the store, not it.

        >>> s = RunStore(":memory:")
        >>> ana, ben = s.for_owner("ana"), s.for_owner("ben")
        >>> rid = ana.start({"algorithm": "hedge", "seed": 0})
        >>> [r.id for r in ana.list()], [r.id for r in ben.list()], [r.id for r in s.list()]
        ([1], [], [1])
        """
        import copy

        view = copy.copy(self)
        view.owner = owner
        return view

    def close(self) -> None:
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check`` (``"ok"`` for a sound database); on PostgreSQL (which
        checks its own storage) ``"ok"`` when every record reads back."""
        if self._db.dialect != "sqlite":
            self._db.query("SELECT COUNT(*) FROM runs")
            return "ok"
        return self._db.query("PRAGMA integrity_check")[0][0]

    # -- writing ----------------------------------------------------------------------------------

    def start(self, config: dict[str, Any], *, label: str = "", sweep: str | None = None,
              version: str | None = None, owner: str | None = None) -> int:
        """Record a run that starts now (status ``running``, owned by this process); its id."""
        alg = config.get("algorithm")
        seed = config.get("seed")
        seed = int(seed) if isinstance(seed, int) and not isinstance(seed, bool) and abs(seed) < 2**63 else None
        owner = self.owner if owner is None else owner
        with self._tx() as c:
            run_id = c.insert(
                "INSERT INTO runs (algorithm, config, seed, code_version, status, started, label, sweep, "
                "pid, pid_start, host, progress, message, owner) "
                "VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, 0, ?, ?)",
                (str(alg), _dumps(config), seed, version or code_version(), time.time(), label, sweep,
                 self._pid, self._pid_start, self._host, "starting", owner))
        with _LIVE_LOCK:
            _LIVE.add((self._key, run_id))
        return run_id

    def reopen(self, run_id: int) -> None:
        """Make a run that ended without finishing (failed, cancelled, interrupted) ``running`` again,
        owned by this process and this code version: the same id, config, label and sweep (a sweep
        being resumed). A run that is running or finished is refused."""
        with self._tx() as c:
            cur = c.execute(
                "UPDATE runs SET status = 'running', started = ?, ended = NULL, seconds = NULL, error = NULL, "
                "progress = 0, message = 'resuming', pid = ?, pid_start = ?, host = ?, code_version = ? "
                "WHERE id = ? AND status NOT IN ('running', 'finished')",
                (time.time(), self._pid, self._pid_start, self._host, code_version(), int(run_id)))
            if cur.rowcount != 1:
                rec = self.get(run_id, results=False)  # an unknown id says so
                raise InvalidParameterError(f"run {run_id} is {rec.status}; only a run that did not finish "
                                            "can run again")
        with _LIVE_LOCK:
            _LIVE.add((self._key, int(run_id)))

    def report(self, run_id: int, fraction: float, message: str) -> None:
        """Save the last progress report of a running run (for watchers in other sessions)."""
        with self._tx() as c:
            c.execute("UPDATE runs SET progress = ?, message = ? WHERE id = ? AND status = 'running'",
                      (float(fraction), str(message), run_id))

    def finish(self, run_id: int, result: RunResult, *, seconds: float | None = None,
               started: float | None = None) -> None:
        """Store a finished run's results (one transaction)."""
        self._end(run_id, "finished", None, seconds if seconds is not None else result.seconds, started,
                  metrics=_dumps(result.metrics or {}), curves=_dumps(result.curves or {}),
                  artefacts=_dumps(result.artefacts or {}))

    def end(self, run_id: int, status: str, error: str | None = None, *, seconds: float | None = None,
            started: float | None = None) -> None:
        """Close a run without results: ``failed`` (with the error), ``cancelled`` or ``interrupted``."""
        if status not in STATUSES or status in ("running", "finished"):
            raise InvalidParameterError(f"a run ends failed, cancelled or interrupted, not {status!r}")
        self._end(run_id, status, error, seconds, started)

    def _end(self, run_id, status, error, seconds, started, **results) -> None:
        sets = ["status = ?", "ended = ?", "seconds = ?", "error = ?"]
        args: list[Any] = [status, time.time(), seconds, error]
        if status == "finished":
            sets.append("progress = 1")
        if started is not None:
            sets.append("started = ?")
            args.append(started)
        for k, v in results.items():
            sets.append(f"{k} = ?")
            args.append(v)
        with self._tx() as c:
            c.execute(f"UPDATE runs SET {', '.join(sets)} WHERE id = ?", (*args, run_id))
        with _LIVE_LOCK:
            _LIVE.discard((self._key, run_id))

    def mark_interrupted(self) -> list[int]:
        """Mark ``interrupted`` the ``running`` runs of this host whose process is gone; their ids."""
        if self.read_only:
            return []
        rows = self._db.query("SELECT id, pid, pid_start FROM runs WHERE status = 'running' AND host = ?",
                              (self._host,))
        dead = []
        for run_id, pid, pid_start in rows:
            if pid == self._pid and pid_start == self._pid_start:
                with _LIVE_LOCK:
                    alive = (self._key, run_id) in _LIVE
            else:
                alive = pid is not None and _proc_alive(int(pid), pid_start)
            if not alive:
                dead.append(int(run_id))
        if dead:
            with self._tx() as c:
                c.executemany(
                    "UPDATE runs SET status = 'interrupted', ended = COALESCE(ended, ?), "
                    "error = COALESCE(error, 'the process running it stopped (killed or crashed)') "
                    "WHERE id = ? AND status = 'running'", [(time.time(), i) for i in dead])
        return dead

    def delete(self, run_id: int, *, owner: str | None = None) -> None:
        """Delete a run (not one that is still running); with ``owner``, only a run of that owner."""
        rec = self.get(run_id, results=False, owner=owner)
        if rec.status == "running":
            raise InvalidParameterError(
                f"run {run_id} is still running (process {rec.pid} on {rec.host}); cancel it first")
        with self._tx() as c:
            c.execute("DELETE FROM runs WHERE id = ?", (run_id,))

    # -- reading ----------------------------------------------------------------------------------

    def get(self, run_id: int, *, results: bool = True, owner: str | None = None) -> RunRecord:
        """The run ``run_id`` (``results=False`` leaves curves and artefacts empty, for speed);
        with ``owner``, a run of another owner is not there (default: this view's owner, see :meth:`for_owner`)."""
        owner = self.owner if owner is None else owner
        try:
            run_id = int(run_id)
        except (TypeError, ValueError, OverflowError):
            raise UnknownRunError(f"run id must be a whole number, got {str(run_id)[:40]!r}") from None
        if not 1 <= run_id < 2**63:
            raise UnknownRunError(f"no run {run_id if run_id.bit_length() < 200 else 'of that id'} in the "
                                  f"history {self.path} (ids are whole numbers from 1)")
        tail, args = ("WHERE id = ?", (run_id,)) if owner is None else ("WHERE id = ? AND owner = ?", (run_id, owner))
        recs = self._select(tail, args, results=results)
        if not recs:
            raise UnknownRunError(f"no run {run_id} in the history {self.path}")
        return recs[0]

    def list(self, *, algorithm=None, status=None, since=None, until=None, text: str | None = None,
             sweep: str | None = None, limit: int | None = None, results: bool = False,
             owner: str | None = None) -> list[RunRecord]:
        """Runs, newest first, filtered by algorithm(s), status(es), start time and free text.

        ``algorithm``/``status`` are a name or a list of names; ``since``/``until`` Unix times or
        ``datetime``/ISO dates; ``text`` is matched (case-insensitive) against the label, the
        algorithm, the config, the error and the sweep id.
        """
        where, args = [], []
        for col, val in (("algorithm", algorithm), ("status", status)):
            if val:
                vals = [val] if isinstance(val, str) else list(val)
                where.append(f"{col} IN ({', '.join('?' * len(vals))})")
                args.extend(vals)
        if since is not None:
            where.append("started >= ?")
            args.append(_timestamp(since))
        if until is not None:
            where.append("started < ?")
            args.append(_timestamp(until))
        if text:
            where.append("(label LIKE ? OR algorithm LIKE ? OR config LIKE ? OR COALESCE(error, '') LIKE ? "
                         "OR COALESCE(sweep, '') LIKE ?)")
            args.extend([f"%{text}%"] * 5)
        if sweep:
            where.append("sweep = ?")
            args.append(sweep)
        owner = self.owner if owner is None else owner
        if owner is not None:
            where.append("owner = ?")
            args.append(owner)
        sql = ("WHERE " + " AND ".join(where) if where else "") + " ORDER BY id DESC"
        if limit is not None:
            if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
                raise InvalidParameterError(f"the list limit must be a whole number >= 0, got {str(limit)[:40]}")
            if limit:
                sql += f" LIMIT {min(limit, 2**63 - 1)}"
        return self._select(sql, tuple(args), results=results)

    def _select(self, tail: str, args: tuple, *, results: bool) -> list[RunRecord]:
        cols = [c if results or c not in ("curves", "artefacts") else "'{}'" for c in _COLUMNS]
        rows = self._db.query(f"SELECT {', '.join(cols)} FROM runs {tail}", args)
        out = []
        for row in rows:
            d = dict(zip(_COLUMNS, row))
            for k in _JSON_COLUMNS:
                d[k], bad = _json_column(d[k])
                if bad:  # a damaged record still lists; the error column says what was lost
                    d["error"] = f"{d['error'] + '; ' if d['error'] else ''}stored {k} is unreadable ({bad})"
            d["label"] = d["label"] or ""
            out.append(RunRecord(**d))
        return out




def _json_column(text) -> tuple[Any, str | None]:
    if not text:
        return {}, None
    from engine.jsonio import loads

    try:
        return loads(text, where="column"), None
    except EngineError as exc:
        return {}, str(exc)[:80]





def _timestamp(t) -> float:
    """A Unix time from a number, a ``datetime``/``date`` or an ISO 8601 string (naive = UTC)."""
    if isinstance(t, (int, float)) and not isinstance(t, bool):
        return float(t)
    if isinstance(t, str):
        try:
            t = datetime.fromisoformat(t.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidParameterError(
                f"date {t!r} is not ISO 8601 (e.g. 2026-11-21 or 2026-11-21T17:00)") from None
    if isinstance(t, datetime):
        return (t if t.tzinfo else t.replace(tzinfo=timezone.utc)).timestamp()
    if isinstance(t, date):
        return datetime(t.year, t.month, t.day, tzinfo=timezone.utc).timestamp()
    raise InvalidParameterError(f"cannot read {t!r} as a date")


def open_store(path=None) -> RunStore:
    """The run history at ``path`` or :func:`default_db_target`."""
    return RunStore(path)
