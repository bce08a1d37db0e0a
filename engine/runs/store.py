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

A run may carry an ``owner`` (classroom mode, see ``workbench.state``): :meth:`RunStore.list` and
:meth:`RunStore.delete` take ``owner=`` to see and delete only that owner's runs.

The schema is versioned: table ``schema_version`` holds the version and :data:`MIGRATIONS` is the
ordered list of steps; opening an older database applies the missing steps in one transaction.
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
from typing import Any, Iterator

from engine.errors import EngineError, InvalidParameterError
from engine.jsonio import dumps
from engine.jsonio import to_jsonable as jsonable  # strict-JSON values of a record
from engine.runs.protocol import RunResult

__all__ = ["RunStore", "RunRecord", "STATUSES", "MIGRATIONS", "SCHEMA_VERSION", "DB_ENV",
           "default_db_path", "open_store", "code_version", "jsonable", "UnknownRunError"]

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
    """The run history at ``path`` (default :func:`default_db_path`); safe to share between threads.

    Opening it creates or migrates the database and marks the dead ``running`` runs of this host
    ``interrupted`` (``check_interrupted=False`` skips that).
    """

    def __init__(self, path=None, *, check_interrupted: bool = True):
        self.path = Path(path).expanduser() if path is not None else default_db_path()
        self.read_only = False
        self.owner: str | None = None  # see for_owner
        if str(self.path) != ":memory:":
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError:
                pass  # a read-only parent: connecting below says what is wrong
        self._lock = threading.RLock()
        try:
            self._conn = self._connect()
        except sqlite3.DatabaseError as exc:
            raise InvalidParameterError(f"run history {self.path} cannot be opened: {exc}") from None
        self._key = str(self.path) if str(self.path) == ":memory:" else str(self.path.resolve())
        self._host = socket.gethostname()
        self._pid = os.getpid()
        self._pid_start = _proc_start(self._pid)
        if check_interrupted and not self.read_only:
            self.mark_interrupted()

    def _connect(self) -> sqlite3.Connection:
        """Open read-write (WAL, or the rollback journal on a network file system); fall back to
        read-only when the file or its folder cannot be written."""
        name = str(self.path)
        if name != ":memory:" and self.path.exists() and not _writable(self.path):
            return self._connect_read_only()
        conn = sqlite3.connect(name, timeout=30, isolation_level=None, check_same_thread=False)
        conn.text_factory = _text
        try:
            journal = "DELETE" if _rollback_journal(self.path) else "WAL"
            conn.execute(f"PRAGMA journal_mode={journal}")
            conn.execute("PRAGMA synchronous=NORMAL" if journal == "WAL" else "PRAGMA synchronous=FULL")
            conn.execute("PRAGMA busy_timeout=30000")
            self._conn = conn
            self._migrate()
        except sqlite3.OperationalError as exc:
            conn.close()
            if self.path.exists() and ("readonly" in str(exc) or "read-only" in str(exc)
                                       or "unable to open" in str(exc)):
                return self._connect_read_only()
            raise
        return conn

    def _connect_read_only(self) -> sqlite3.Connection:
        from urllib.parse import quote

        # immutable: no -shm/-wal file is created or read beside a database nobody can write
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro&immutable=1"
        conn = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None, check_same_thread=False)
        conn.text_factory = _text
        self._conn = conn
        self.read_only = True
        version = _read_version(conn)
        if version != SCHEMA_VERSION:
            conn.close()
            raise sqlite3.DatabaseError(f"it is read-only and its schema version {version} is not this "
                                        f"workbench's {SCHEMA_VERSION}")
        return conn

    # -- plumbing ---------------------------------------------------------------------------------

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any error)."""
        if self.read_only:
            raise InvalidParameterError(f"run history {self.path} is read-only here (its file system or "
                                        "permissions); runs can be listed and shown but not recorded or deleted; "
                                        f"set {DB_ENV} to a writable file to record runs")
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @property
    def schema_version(self) -> int:
        with self._lock:
            return _read_version(self._conn)

    def _migrate(self) -> None:
        with self._tx() as c:
            c.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            if c.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 0:
                c.execute("INSERT INTO schema_version (version) VALUES (0)")
            version = _read_version(c)
            if version > SCHEMA_VERSION:
                raise sqlite3.DatabaseError(
                    f"its schema version {version} is newer than this workbench's {SCHEMA_VERSION}; "
                    "upgrade the workbench")
            for step in MIGRATIONS[version:]:
                for sql in step:
                    c.execute(sql)
            c.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))

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
        with self._lock:
            self._conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check`` (``"ok"`` for a sound database)."""
        with self._lock:
            return self._conn.execute("PRAGMA integrity_check").fetchone()[0]

    # -- writing ----------------------------------------------------------------------------------

    def start(self, config: dict[str, Any], *, label: str = "", sweep: str | None = None,
              version: str | None = None, owner: str | None = None) -> int:
        """Record a run that starts now (status ``running``, owned by this process); its id."""
        alg = config.get("algorithm")
        seed = config.get("seed")
        seed = int(seed) if isinstance(seed, int) and not isinstance(seed, bool) and abs(seed) < 2**63 else None
        owner = self.owner if owner is None else owner
        with self._tx() as c:
            cur = c.execute(
                "INSERT INTO runs (algorithm, config, seed, code_version, status, started, label, sweep, "
                "pid, pid_start, host, progress, message, owner) "
                "VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, 0, ?, ?)",
                (str(alg), _dumps(config), seed, version or code_version(), time.time(), label, sweep,
                 self._pid, self._pid_start, self._host, "starting", owner))
            run_id = int(cur.lastrowid)
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
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, pid, pid_start FROM runs WHERE status = 'running' AND host = ?",
                (self._host,)).fetchall()
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
            where.append("(label LIKE ? OR algorithm LIKE ? OR config LIKE ? OR IFNULL(error, '') LIKE ? "
                         "OR IFNULL(sweep, '') LIKE ?)")
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
        with self._lock:
            rows = self._conn.execute(f"SELECT {', '.join(cols)} FROM runs {tail}", args).fetchall()
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


def _text(b: bytes) -> str:
    """SQLite text as str; bytes that are not UTF-8 (a damaged or foreign history) are replaced."""
    return b.decode("utf-8", "replace")


def _json_column(text) -> tuple[Any, str | None]:
    if not text:
        return {}, None
    from engine.jsonio import loads

    try:
        return loads(text, where="column"), None
    except EngineError as exc:
        return {}, str(exc)[:80]


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


_NETWORK_FS = {"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "fuse.sshfs", "afs", "ceph", "glusterfs",
               "fuse.glusterfs", "lustre", "gpfs", "beegfs", "fuse.s3fs"}


def _rollback_journal(path: Path) -> bool:
    """Use the rollback journal instead of WAL: forced by ``TREE_WORKBENCH_DB_JOURNAL=delete``, or the
    history is on a network file system (WAL's shared memory works on one host only)."""
    choice = os.environ.get("TREE_WORKBENCH_DB_JOURNAL", "").strip().lower()
    if choice in ("delete", "rollback"):
        return True
    if choice == "wal" or str(path) == ":memory:":
        return False
    try:
        target = str(path.resolve().parent)
        best, fstype = "", ""
        with open("/proc/mounts", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 3:
                    mnt = parts[1].replace("\\040", " ")
                    if (target == mnt or target.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best):
                        best, fstype = mnt, parts[2]
        return fstype in _NETWORK_FS
    except OSError:
        return False


def _read_version(c) -> int:
    row = c.execute("SELECT version FROM schema_version").fetchone()
    return int(row[0]) if row else 0


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
    """The run history at ``path`` or :func:`default_db_path`."""
    return RunStore(path)
