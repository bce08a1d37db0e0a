"""The workbench's database: an embedded SQLite file, or a PostgreSQL server that several app processes share.

Every store of the workbench (the run history, :mod:`engine.runs.store`; the live class) opens its
tables through :func:`open_database`, with the component's name and its list of migrations:

- ``TREE_WORKBENCH_DB_URL=postgresql://user:password@host:5432/database`` (or a target given as such
  a URL): PostgreSQL through psycopg 3, a small connection pool per process (connections are checked
  as they are taken, so a server that restarted costs one log line and the next operation
  reconnects);
- otherwise the SQLite file (WAL where it can; the rollback journal on a network file system; a file
  this user cannot write is opened read-only, where it lists and refuses to record).

SQL is written once, in SQLite's spelling with ``?`` placeholders; for PostgreSQL the few differences
are translated here and only here (:func:`postgres_sql`): placeholders become ``%s``, ``LIKE`` becomes
``ILIKE`` (SQLite's ``LIKE`` ignores case), ``IFNULL`` becomes ``COALESCE``, ``INSERT OR IGNORE``
becomes ``ON CONFLICT DO NOTHING``, and in a migration ``INTEGER PRIMARY KEY AUTOINCREMENT`` becomes an
identity column, ``INTEGER`` ``BIGINT``, ``REAL`` ``DOUBLE PRECISION``, ``BLOB`` ``BYTEA``.

Every change is one transaction (:meth:`Database.transaction`), and the writers of one database take
turns as SQLite's do (``BEGIN IMMEDIATE`` there, a transaction-level advisory lock on PostgreSQL), so
a read-then-write inside a transaction sees no other writer in between.

One schema history: table ``schema_version`` holds one row per component (``version``,
``component``); ``migrations[i]`` takes a component from version ``i`` to ``i + 1``, and opening an
older database applies the missing steps in one transaction. A URL or a host is named in messages
without its password (:func:`redact`).

>>> db = open_database(":memory:", component="demo", migrations=[["CREATE TABLE t (id INTEGER PRIMARY KEY "
...                    "AUTOINCREMENT, x REAL)"]])
>>> with db.transaction() as tx:
...     tx.insert("INSERT INTO t (x) VALUES (?)", (0.5,))
1
>>> db.query("SELECT x FROM t"), db.version("demo")
([(0.5,)], 1)
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import threading
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterator, Sequence

from engine.errors import EngineError, InvalidParameterError

__all__ = ["URL_ENV", "Database", "DatabaseUnavailableError", "open_database", "database_url", "is_url",
           "redact", "postgres_sql", "check_url"]

URL_ENV = "TREE_WORKBENCH_DB_URL"
#: what installs the PostgreSQL driver: the project's ``postgres`` extra (the app's extra includes it)
POSTGRES_EXTRA = "tree-inference-workbench[postgres]"
_LOG = logging.getLogger("engine.db")
#: the component whose version the legacy one-column ``schema_version`` table held
_FIRST_COMPONENT = "runs"
#: the servers this process has found away (one log line per server and outage, whichever store saw it)
_DOWN: set[str] = set()
_DOWN_LOCK = threading.Lock()


class DatabaseUnavailableError(EngineError, ConnectionError):
    """The database server cannot be reached (wrong host, refused, down, restarting)."""


def database_url() -> str | None:
    """``$TREE_WORKBENCH_DB_URL`` when it is set (stripped), else ``None``; a URL of another kind is
    refused in one line (never repeating it: it may hold a password)."""
    url = os.environ.get(URL_ENV, "").strip()
    if url and not is_url(url):
        scheme = url.split("://", 1)[0][:20] if "://" in url else "no scheme"
        raise InvalidParameterError(f"{URL_ENV} must be a postgresql://user:password@host:port/database URL "
                                    f"(got {scheme}); unset it to use the SQLite file")
    return url or None


def is_url(target) -> bool:
    """Whether ``target`` names a PostgreSQL server (``postgresql://`` or ``postgres://``)."""
    return isinstance(target, str) and target.strip().lower().startswith(("postgresql://", "postgres://"))


def _parts(url: str) -> dict:
    """The connection parameters of ``url`` (a one-line error that never repeats the URL)."""
    from urllib.parse import unquote, urlsplit

    try:
        u = urlsplit(url.strip())
        port = u.port
    except ValueError as exc:
        raise InvalidParameterError(f"{URL_ENV} is not a PostgreSQL URL (postgresql://user:password@host:port/"
                                    f"database): {str(exc).split(':')[0]}") from None
    return {"host": u.hostname or "localhost", "port": port or 5432, "user": unquote(u.username or ""),
            "dbname": unquote(u.path.lstrip("/")) or unquote(u.username or "")}


def redact(url: str) -> str:
    """``url`` without its password or query: what a message may show.

    >>> redact("postgresql://ana:s3cret@db.example.org:5433/workbench?sslmode=require")
    'postgresql://ana@db.example.org:5433/workbench'
    """
    p = _parts(url)
    user = f"{p['user']}@" if p["user"] else ""
    return f"postgresql://{user}{p['host']}:{p['port']}/{p['dbname']}"


# -- SQL for PostgreSQL ----------------------------------------------------------------------------

_TOKENS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\?|%|\bLIKE\b|\bIFNULL\s*\(|\bINSERT\s+OR\s+IGNORE\b",
                     re.IGNORECASE)
_DDL = [(re.compile(r"\bINTEGER\s+PRIMARY\s+KEY\s+AUTOINCREMENT\b", re.I),
         "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
        (re.compile(r"\bINTEGER\b", re.I), "BIGINT"),
        (re.compile(r"\bREAL\b", re.I), "DOUBLE PRECISION"),
        (re.compile(r"\bBLOB\b", re.I), "BYTEA")]


@lru_cache(maxsize=512)
def postgres_sql(sql: str, ddl: bool = False) -> str:
    """SQLite's spelling of ``sql`` in PostgreSQL's (string literals and quoted names left alone).

    >>> postgres_sql("SELECT id FROM runs WHERE label LIKE ? AND IFNULL(error, '?') = '50%'")
    "SELECT id FROM runs WHERE label ILIKE %s AND COALESCE(error, '?') = '50%%'"
    >>> postgres_sql("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, x REAL)", ddl=True)
    'CREATE TABLE t (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, x DOUBLE PRECISION)'
    """
    ignore = False

    def token(m: re.Match) -> str:
        nonlocal ignore
        t = m.group(0)
        if t[0] == "'":
            return t.replace("%", "%%")
        if t[0] == '"':
            return t
        if t == "?":
            return "%s"
        if t == "%":
            return "%%"
        up = t.upper()
        if up == "LIKE":
            return "ILIKE"
        if up.startswith("IFNULL"):
            return "COALESCE("
        ignore = True
        return "INSERT"

    out = _TOKENS.sub(token, sql)
    if ignore:
        out = out.rstrip().rstrip(";") + " ON CONFLICT DO NOTHING"
    if ddl:
        for pattern, repl in _DDL:
            out = _split_literals(out, pattern, repl)
    return out


def _split_literals(sql: str, pattern: re.Pattern, repl: str) -> str:
    """``pattern`` replaced outside string literals."""
    parts = re.split(r"('(?:[^']|'')*')", sql)
    return "".join(p if i % 2 else pattern.sub(repl, p) for i, p in enumerate(parts))


# -- the two backends ------------------------------------------------------------------------------

class _Tx:
    """The statements of one transaction (SQLite's spelling; translated for PostgreSQL)."""

    def __init__(self, db: "Database", conn):
        self._db, self._conn = db, conn

    def execute(self, sql: str, args: Sequence = ()):
        """Run ``sql``; the cursor (``fetchone``, ``fetchall``, ``rowcount``)."""
        return self._db._execute(self._conn, sql, args)

    def executemany(self, sql: str, rows) -> None:
        for args in rows:
            self.execute(sql, args)

    def insert(self, sql: str, args: Sequence = (), *, key: str = "id") -> int:
        """Run an ``INSERT`` of one row; the new row's ``key`` (an autoincrement column)."""
        return self._db._insert(self._conn, sql, args, key)


class Database:
    """One database (its tables shared by the components that open it). ``where`` names it in
    messages (a file, or a URL without its password); ``dialect`` is ``"sqlite"`` or ``"postgresql"``."""

    dialect = ""
    where = ""
    read_only = False
    #: what a broken UNIQUE, CHECK or foreign key raises on this backend (``except db.IntegrityError``)
    IntegrityError: type = Exception

    @contextmanager
    def transaction(self) -> Iterator[_Tx]:  # pragma: no cover - each backend has its own
        raise NotImplementedError
        yield

    def query(self, sql: str, args: Sequence = ()) -> list[tuple]:  # pragma: no cover
        raise NotImplementedError

    @contextmanager
    def reading(self) -> Iterator[_Tx]:  # pragma: no cover
        """Several reads on one connection, outside a write transaction (each sees committed data)."""
        raise NotImplementedError
        yield

    def close(self) -> None:  # pragma: no cover
        raise NotImplementedError

    def _execute(self, conn, sql, args):  # pragma: no cover
        raise NotImplementedError

    def _insert(self, conn, sql, args, key):  # pragma: no cover
        raise NotImplementedError

    def version(self, component: str) -> int:
        """The schema version of ``component`` (0: none of its tables yet)."""
        return _read_version(self.query, component)

    def migrate(self, component: str, migrations: Sequence[Sequence[str]]) -> None:
        """Bring ``component`` to version ``len(migrations)``, in one transaction; a database whose
        version is newer is refused (:class:`SchemaError`)."""
        target = len(migrations)
        with self.transaction() as tx:
            cols = _version_table(tx, self)
            if "component" not in cols:
                tx.execute(f"ALTER TABLE schema_version ADD COLUMN component TEXT NOT NULL "
                           f"DEFAULT '{_FIRST_COMPONENT}'")
            for name in dict.fromkeys((_FIRST_COMPONENT, component)):  # the runs' row first, as before
                if not tx.execute("SELECT 1 FROM schema_version WHERE component = ?", (name,)).fetchall():
                    tx.execute("INSERT INTO schema_version (version, component) VALUES (0, ?)", (name,))
            version = _read_version(lambda s, a=(): tx.execute(s, a).fetchall(), component)
            if version > target:
                raise SchemaError(f"its schema version {version} ({component}) is newer than this workbench's "
                                  f"{target}; upgrade the workbench")
            for step in migrations[version:]:
                for sql in step:
                    self._ddl(tx, sql)
            if version != target:
                tx.execute("UPDATE schema_version SET version = ? WHERE component = ?", (target, component))

    def _ddl(self, tx: _Tx, sql: str) -> None:
        tx.execute(sql)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class SchemaError(EngineError, ValueError):
    """A database whose schema this workbench cannot use (newer, or read-only at another version)."""


def _version_table(tx: _Tx, db: Database) -> list[str]:
    """Create ``schema_version`` if missing; its column names."""
    tx.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    cur = tx.execute("SELECT * FROM schema_version LIMIT 0")
    cur.fetchall()
    return [d[0] for d in cur.description]


def _read_version(query, component: str) -> int:
    try:
        rows = query("SELECT version FROM schema_version WHERE component = ?", (component,))
    except Exception as exc:  # noqa: BLE001 - a legacy table (one column, the runs' version) or none
        if "component" not in str(exc) and "schema_version" not in str(exc):
            raise
        try:
            rows = query("SELECT version FROM schema_version") if component == _FIRST_COMPONENT else []
        except Exception:  # noqa: BLE001 - no table at all
            rows = []
    return int(rows[0][0]) if rows else 0


class SQLiteDatabase(Database):
    """The embedded SQLite file ``path`` (``":memory:"`` for a throw-away one); one connection,
    shared by this process's threads under a lock."""

    dialect = "sqlite"
    IntegrityError = sqlite3.IntegrityError

    def __init__(self, path, *, read_only: bool = False):
        self.path = Path(path).expanduser()
        self.where = str(self.path)
        self.lock = threading.RLock()
        self.conn = self._connect_read_only() if read_only else self._connect()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(str(self.path), timeout=30, isolation_level=None, check_same_thread=False)
        conn.text_factory = _text
        try:
            journal = "DELETE" if _rollback_journal(self.path) else "WAL"
            conn.execute(f"PRAGMA journal_mode={journal}")
            conn.execute("PRAGMA synchronous=NORMAL" if journal == "WAL" else "PRAGMA synchronous=FULL")
            conn.execute("PRAGMA busy_timeout=30000")
        except sqlite3.Error:
            conn.close()
            raise
        return conn

    def _connect_read_only(self) -> sqlite3.Connection:
        from urllib.parse import quote

        # immutable: no -shm/-wal file is created or read beside a database nobody can write
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro&immutable=1"
        conn = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None, check_same_thread=False)
        conn.text_factory = _text
        self.read_only = True
        return conn

    @contextmanager
    def transaction(self) -> Iterator[_Tx]:
        """One write transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any error)."""
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield _Tx(self, self.conn)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def query(self, sql: str, args: Sequence = ()) -> list[tuple]:
        with self.lock:
            return self.conn.execute(sql, tuple(args)).fetchall()

    @contextmanager
    def reading(self) -> Iterator[_Tx]:
        with self.lock:
            yield _Tx(self, self.conn)

    def _execute(self, conn, sql, args):
        return conn.execute(sql, tuple(args))

    def _insert(self, conn, sql, args, key):
        return int(conn.execute(sql, tuple(args)).lastrowid)

    def close(self) -> None:
        with self.lock:
            self.conn.close()


class PostgresDatabase(Database):
    """A PostgreSQL server at ``url``: a pool of 1 to ``max_size`` connections in this process,
    each checked as it is taken (a server that restarted is reconnected to, with one log line)."""

    dialect = "postgresql"

    def __init__(self, url: str, *, max_size: int = 8, timeout: float = 10.0):
        self.where = redact(url)
        p = _parts(url)
        self.host = f"{p['host']}:{p['port']}"
        try:
            import psycopg
            from psycopg_pool import ConnectionPool, PoolTimeout
        except ImportError:  # the `postgres` extra (`pip install .` alone is the engine with SQLite)
            raise InvalidParameterError(f"{self.where}: PostgreSQL needs psycopg, which is not installed: "
                                        f"pip install '{POSTGRES_EXTRA}'") from None
        self._psycopg = psycopg
        self._PoolTimeout = PoolTimeout
        self.IntegrityError = psycopg.IntegrityError
        # the pool's own warnings repeat while a server is away; this module says it once
        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
        kwargs = {"autocommit": True, "connect_timeout": max(1, int(timeout)), "application_name": "tree-workbench"}
        try:  # one direct attempt first: the server's own reason, at once, in one line
            psycopg.connect(url, **kwargs).close()
        except psycopg.Error as exc:
            raise DatabaseUnavailableError(self._reason(exc, url)) from None
        self._new_pool = lambda: ConnectionPool(url, min_size=1, max_size=max_size, kwargs=kwargs, open=False,
                                                check=self._check, timeout=timeout, name="tree-workbench")
        self._broken = False   # set when the server was away: the next operation starts a fresh pool
        self._pool_lock = threading.Lock()
        self.pool = self._new_pool()
        try:
            self.pool.open(wait=True, timeout=timeout)
        except Exception as exc:  # noqa: BLE001 - the server went away between the two attempts
            self.pool.close()
            raise DatabaseUnavailableError(self._reason(exc, url)) from None

    def _fresh_pool(self) -> None:
        """After an outage, a new pool that connects at once (the old one's reconnection attempts back
        off exponentially, up to minutes, while the server was away); the old one closes behind."""
        with self._pool_lock:
            if not self._broken:
                return
            old, self.pool = self.pool, self._new_pool()
            self.pool.open(wait=False)
            self._broken = False
        threading.Thread(target=old.close, name="tree-workbench-old-pool", daemon=True).start()

    def _reason(self, exc, url: str | None = None) -> str:
        text = " ".join(str(exc).split()) or type(exc).__name__
        text = re.sub(r'^connection failed: connection to server at "[^"]*"(?: \([^)]*\))?, port \d+ failed: ',
                      "", text)
        if url:
            pw = _password(url)
            if pw:
                text = text.replace(pw, "***")
        return f"the database server at {self.host} cannot be reached: {text[:200]}"

    def _check(self, conn) -> None:
        try:
            conn.execute("SELECT 1")
        except Exception:
            self._lost("connection lost (server restarted?)")
            raise

    def _lost(self, why: str) -> None:
        with _DOWN_LOCK:
            said = self.host in _DOWN
            _DOWN.add(self.host)
        if not said:
            _LOG.warning("database at %s: %s; reconnecting on the next operation", self.host, why)

    @contextmanager
    def _connection(self):
        psycopg, PoolTimeout = self._psycopg, self._PoolTimeout
        if self._broken:
            self._fresh_pool()
        try:
            with self.pool.connection() as conn:
                yield conn
            if self.host in _DOWN:
                with _DOWN_LOCK:
                    _DOWN.discard(self.host)
        except PoolTimeout:
            self._broken = True
            self._lost("no connection")
            raise DatabaseUnavailableError(self._reason(f"no connection within {self.pool.timeout:.0f} s "
                                                        "(the server is down or restarting)")) from None
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            state = getattr(exc, "sqlstate", None) or ""
            if state and not state.startswith(("08", "57P")):
                raise   # the server answered (a deadlock, a cancelled query): not an outage
            self._broken = True
            self._lost(" ".join(str(exc).split())[:120] or type(exc).__name__)
            raise DatabaseUnavailableError(self._reason(exc)) from None

    @contextmanager
    def transaction(self) -> Iterator[_Tx]:
        """One transaction; writers take turns (an advisory lock held until it ends), as on SQLite."""
        with self._connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(7262351)")
            yield _Tx(self, conn)

    def query(self, sql: str, args: Sequence = ()) -> list[tuple]:
        with self._connection() as conn:
            return conn.execute(postgres_sql(sql), _pg_args(args)).fetchall()

    @contextmanager
    def reading(self) -> Iterator[_Tx]:
        with self._connection() as conn:
            yield _Tx(self, conn)

    def _execute(self, conn, sql, args):
        return conn.execute(postgres_sql(sql), _pg_args(args))

    def _insert(self, conn, sql, args, key):
        return int(conn.execute(postgres_sql(sql) + f" RETURNING {key}", _pg_args(args)).fetchone()[0])

    def _ddl(self, tx: _Tx, sql: str) -> None:
        tx._conn.execute(postgres_sql(sql, ddl=True))

    def close(self) -> None:
        self.pool.close()


def _pg_args(args: Sequence) -> tuple:
    # PostgreSQL's text cannot hold NUL; SQLite's can: it is kept visible as U+FFFD
    return tuple(a.replace("\x00", "\ufffd") if isinstance(a, str) and "\x00" in a else a for a in args)


def _password(url: str) -> str | None:
    from urllib.parse import unquote, urlsplit

    try:
        pw = urlsplit(url).password
    except ValueError:
        return None
    return unquote(pw) if pw else None


def check_url(url: str | None = None) -> str | None:
    """Refuse, in one line naming the host, a ``TREE_WORKBENCH_DB_URL`` that is wrong or unreachable
    (at start: the CLI and the app call it before anything else); the redacted URL, or ``None``."""
    url = database_url() if url is None else url
    if not url:
        return None
    PostgresDatabase(url, max_size=1).close()
    return redact(url)


def open_database(target, *, component: str, migrations: Sequence[Sequence[str]],
                  what: str = "database") -> Database:
    """The database at ``target`` (a PostgreSQL URL, or an SQLite file path), ``component`` migrated
    to ``len(migrations)``. A file that cannot be written opens read-only (``read_only``) when its
    version is already this one. Errors are one line naming ``what`` and where it is."""
    if is_url(target):
        db = PostgresDatabase(str(target).strip())
        try:
            db.migrate(component, migrations)
        except SchemaError as exc:
            db.close()
            raise InvalidParameterError(f"{what} {db.where} cannot be opened: {exc}") from None
        except BaseException:
            db.close()
            raise
        return db
    path = Path(target).expanduser()
    try:
        return _open_sqlite(path, component, migrations)
    except (sqlite3.DatabaseError, SchemaError) as exc:
        raise InvalidParameterError(f"{what} {path} cannot be opened: {exc}") from None


def _open_sqlite(path: Path, component: str, migrations) -> SQLiteDatabase:
    if str(path) != ":memory:":
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass  # a read-only parent: connecting below says what is wrong
        if path.exists() and not _writable(path):
            return _read_only(path, component, migrations)
    try:
        db = SQLiteDatabase(path)
    except sqlite3.OperationalError as exc:
        if path.exists() and _readonly_error(exc):
            return _read_only(path, component, migrations)
        raise
    try:
        db.migrate(component, migrations)
    except sqlite3.OperationalError as exc:
        db.close()
        if path.exists() and _readonly_error(exc):
            return _read_only(path, component, migrations)
        raise
    except BaseException:
        db.close()
        raise
    return db


def _readonly_error(exc) -> bool:
    return "readonly" in str(exc) or "read-only" in str(exc) or "unable to open" in str(exc)


def _read_only(path: Path, component: str, migrations) -> SQLiteDatabase:
    db = SQLiteDatabase(path, read_only=True)
    version = db.version(component)
    if version != len(migrations):
        db.close()
        raise SchemaError(f"it is read-only and its schema version {version} is not this workbench's "
                          f"{len(migrations)}")
    return db


def _text(b: bytes) -> str:
    """SQLite text as str; bytes that are not UTF-8 (a damaged or foreign file) are replaced."""
    return b.decode("utf-8", "replace")


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


_NETWORK_FS = {"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "fuse.sshfs", "afs", "ceph", "glusterfs",
               "fuse.glusterfs", "lustre", "gpfs", "beegfs", "fuse.s3fs"}


def _rollback_journal(path: Path) -> bool:
    """Use the rollback journal instead of WAL: forced by ``TREE_WORKBENCH_DB_JOURNAL=delete``, or the
    file is on a network file system (WAL's shared memory works on one host only)."""
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

