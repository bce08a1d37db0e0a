"""The class store: classes a lecturer leads, their polls, the students' answers and who follows.

Every SQL statement of the classroom lives in this module. They are portable SQL (TEXT, INTEGER
and REAL columns, ``?`` placeholders, no SQLite-only functions, no ``INSERT OR REPLACE``: an upsert
is an UPDATE, then an INSERT when it touched no row, inside one transaction), so the same store can
run on another database. Each change is one transaction. The store lives in the same database file
as the run history (:func:`engine.runs.store.default_db_target`: ``TREE_WORKBENCH_DB_URL`` or
``TREE_WORKBENCH_DB``) with its own
schema version table ``class_schema_version`` and its own :data:`MIGRATIONS`, so a server restart
mid-class keeps the class, its step, its polls and every answer.

Who may do what is checked here, whatever the caller shows:

- the lecturer's actions (:meth:`ClassStore.move`, :meth:`~ClassStore.reveal`,
  :meth:`~ClassStore.close_class`, :meth:`~ClassStore.delete`, :meth:`~ClassStore.answers`,
  :meth:`~ClassStore.export_csv`) take the ``lecturer`` id the class was opened with (the app
  derives it from the lecturer token; the store keeps only its SHA-256, never the token);
- a student acts only through the session token of their browser session: an answer is stored
  under that token, changeable until the reveal; a student reads the count of answers and, after
  the reveal, the anonymous distribution, never another student's answer;
- answers are at most :data:`MAX_ANSWER_CHARS` characters, and one session answers at most
  :data:`RATE_BURST` times in a row, then one answer every :data:`RATE_SECONDS` (a per-session
  token bucket kept in memory, checked before the database is touched, so it slows nobody else).

A class closes :data:`DEFAULT_HOURS` hours after it opens (or when the lecturer closes it): it can
no longer be joined or answered, and its data stays until the lecturer deletes it.

>>> s = ClassStore(":memory:")
>>> c = s.open_class("cover", lecturer="L")
>>> s.join(c.code.lower()).step
1
>>> _ = s.move(c.code, 2, lecturer="L", poll=True)
>>> _ = s.answer(c.code, 2, "student-a", "2, 6")
>>> s.poll(c.code, 2).count
1
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import secrets
import statistics
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import Callable, Iterator

from engine.db import is_url, open_database, redact
from engine.errors import ClassError, RateLimitedError
from engine.runs.store import default_db_target

__all__ = ["ClassStore", "ClassRecord", "PollState", "Answer", "Presence", "PracticeResult", "MIGRATIONS",
           "SCHEMA_VERSION", "CODE_ALPHABET", "CODE_LENGTH", "DEFAULT_HOURS", "MAX_ANSWER_CHARS",
           "MAX_NICKNAME_CHARS", "RATE_BURST", "RATE_SECONDS", "PRESENCE_SECONDS", "SIGN_IN_HOURS",
           "normalise_code", "lecturer_key"]

#: MIGRATIONS[i] takes the class tables from version i to i + 1 (``schema_version``, component ``classroom``).
MIGRATIONS: list[list[str]] = [
    # 1: classes, polls, answers, followers' heartbeats, practice results
    ["""CREATE TABLE classes (
            code TEXT PRIMARY KEY,
            lesson TEXT NOT NULL,
            step INTEGER NOT NULL,
            created REAL NOT NULL,
            closes_at REAL NOT NULL,
            nicknames INTEGER NOT NULL,
            lecturer TEXT NOT NULL,
            version INTEGER NOT NULL,
            moved REAL NOT NULL)""",
     "CREATE INDEX classes_lecturer ON classes (lecturer)",
     """CREATE TABLE class_polls (
            code TEXT NOT NULL,
            step INTEGER NOT NULL,
            opened REAL NOT NULL,
            revealed REAL,
            PRIMARY KEY (code, step))""",
     """CREATE TABLE class_answers (
            code TEXT NOT NULL,
            step INTEGER NOT NULL,
            session TEXT NOT NULL,
            answer TEXT NOT NULL,
            nickname TEXT,
            first_at REAL NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (code, step, session))""",
     """CREATE TABLE class_followers (
            code TEXT NOT NULL,
            session TEXT NOT NULL,
            seen REAL NOT NULL,
            following INTEGER NOT NULL,
            step INTEGER,
            PRIMARY KEY (code, session))""",
     """CREATE TABLE class_practice (
            code TEXT NOT NULL,
            step INTEGER NOT NULL,
            session TEXT NOT NULL,
            solved INTEGER NOT NULL,
            attempts INTEGER NOT NULL,
            total INTEGER NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (code, step, session))"""],
    # 2: the lecturer's sign-ins: a browser (the hash of its owner cookie) signed in as a lecturer (the
    # hash of the lecturer's id) until ``expires``; a reload of that browser is the lecturer still
    ["""CREATE TABLE lecturer_signins (
            browser TEXT PRIMARY KEY,
            lecturer TEXT NOT NULL,
            expires REAL NOT NULL)"""],
    # 3: when the lecturer started the class (students who join before wait for it)
    ["ALTER TABLE classes ADD COLUMN started REAL"],
]
SCHEMA_VERSION = len(MIGRATIONS)

#: Class codes: letters and digits that cannot be misread (no 0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
DEFAULT_HOURS = 3.0
MAX_HOURS = 24.0 * 7
MAX_ANSWER_CHARS = 500
MAX_NICKNAME_CHARS = 40
MAX_SESSION_CHARS = 64
MAX_STEP = 10_000
#: A session may answer RATE_BURST times in a row, then once every RATE_SECONDS.
RATE_BURST = 5
RATE_SECONDS = 1.0
#: How long a lecturer's sign-in lasts (hours): a teaching day.
SIGN_IN_HOURS = 12.0
#: A follower whose last heartbeat is older than this is no longer counted as connected.
PRESENCE_SECONDS = 15.0
_BUCKETS_KEPT = 10_000


def normalise_code(text: str) -> str:
    """A class code as typed (any case, spaces or dashes) in its stored form, or a one-line
    :class:`ClassError` naming it.

    >>> normalise_code(" abc-def ")
    'ABCDEF'
    """
    raw = str(text)
    code = raw.strip().upper().replace("-", "").replace(" ", "")
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        shown = raw.strip()[:20]
        raise ClassError(f"{shown!r} is not a class code: a code is {CODE_LENGTH} letters and digits, "
                         "as the lecturer shows it")
    return code


def lecturer_key(token: str) -> str:
    """The lecturer's id for the store, derived from the lecturer token (the token itself is never
    stored or shown; :meth:`ClassStore.open_class` keeps only a hash of this id)."""
    return hashlib.sha256(("tree-workbench-lecturer:" + str(token)).encode()).hexdigest()


def _hash(lecturer: str) -> str:
    return hashlib.sha256(("tree-workbench-class:" + str(lecturer)).encode()).hexdigest()


def _browser(token: str) -> str:
    return hashlib.sha256(("tree-workbench-browser:" + str(token)).encode()).hexdigest()


def _utc(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


@dataclass(frozen=True)
class ClassRecord:
    """A class: its code, the lesson and the step the lecturer is on.

    ``version`` grows with every change a follower must see (a move, a reveal, closing), so a
    follower compares one number. ``created``, ``closes_at`` and ``moved`` are Unix times (UTC);
    ``started`` is when the lecturer started the lesson (``None``: students wait for it).
    ``revealed`` holds the steps whose poll (or answer) is revealed.
    """

    code: str
    lesson: str
    step: int
    created: float
    closes_at: float
    nicknames: bool
    version: int
    moved: float
    revealed: frozenset[int] = frozenset()
    started: float | None = None

    def is_open(self, now: float | None = None) -> bool:
        return (time.time() if now is None else now) < self.closes_at

    @property
    def closes_at_text(self) -> str:
        return _utc(self.closes_at)


@dataclass(frozen=True)
class PollState:
    """A step's poll as anyone in the class sees it: whether it exists, how many answered, and
    whether it is revealed."""

    code: str
    step: int
    opened: bool
    count: int
    revealed: bool


@dataclass(frozen=True)
class Answer:
    """One student's answer (the lecturer's view): ``student`` numbers the class's students in the
    order of their first answer in the class; the session token itself is never shown."""

    step: int
    student: int
    answer: str
    nickname: str | None
    at: float
    first_at: float = 0.0   # when this student first answered this step


@dataclass(frozen=True)
class Presence:
    connected: int
    following: int


@dataclass(frozen=True)
class PracticeResult:
    """The practice results of a step (the lecturer's panel): students who reported, exercises
    solved out of those asked, attempts."""

    students: int
    solved: int
    total: int
    attempts: int


class ClassStore:
    """The classes in the database at ``path`` (default :func:`engine.runs.store.default_db_path`);
    safe to share between threads. ``clock`` gives the time (tests move it)."""

    def __init__(self, path=None, *, clock: Callable[[], float] = time.time):
        target = path if path is not None else default_db_target()
        if is_url(target):
            self.target = str(target).strip()
            self.path = redact(self.target)
        else:
            self.path = Path(target).expanduser()
            self.target = str(self.path)
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._bucket_lock = threading.Lock()
        self._db = open_database(self.target, component="classroom", migrations=MIGRATIONS, what="class store")

    # -- plumbing ---------------------------------------------------------------------------------

    @contextmanager
    def _tx(self) -> Iterator:
        """One write transaction, rolled back on any error (:meth:`engine.db.Database.transaction`)."""
        with self._db.transaction() as tx:
            yield tx

    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        return self._db.query(sql, args)

    @property
    def schema_version(self) -> int:
        return self._db.version("classroom")

    def close(self) -> None:
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def now(self) -> float:
        return float(self._clock())

    # -- the lecturer's sign-in --------------------------------------------------------------------

    def sign_in(self, browser: str, *, lecturer: str, hours: float = SIGN_IN_HOURS) -> None:
        """Browser ``browser`` (its owner cookie's token) is signed in as ``lecturer`` for ``hours``;
        only hashes of both are stored. Expired sign-ins are removed at the same time.

        >>> s = ClassStore(":memory:")
        >>> s.sign_in("browser-token", lecturer="L")
        >>> s.signed_in("browser-token", lecturer="L"), s.signed_in("browser-token", lecturer="M")
        (True, False)
        >>> s.sign_out("browser-token"); s.signed_in("browser-token", lecturer="L")
        False
        """
        if not str(browser) or not str(lecturer):
            raise ClassError("a sign-in needs a browser token and the lecturer's id")
        now, key = self.now(), _browser(browser)
        with self._tx() as c:
            c.execute("DELETE FROM lecturer_signins WHERE expires <= ? OR browser = ?", (now, key))
            c.execute("INSERT INTO lecturer_signins (browser, lecturer, expires) VALUES (?, ?, ?)",
                      (key, _hash(lecturer), now + float(hours) * 3600.0))

    def signed_in(self, browser: str, *, lecturer: str) -> bool:
        """Whether browser ``browser`` is signed in as ``lecturer`` now."""
        rows = self._read("SELECT lecturer, expires FROM lecturer_signins WHERE browser = ?", (_browser(browser),))
        return bool(rows) and float(rows[0][1]) > self.now() and hmac.compare_digest(str(rows[0][0]), _hash(lecturer))

    def sign_out(self, browser: str) -> None:
        """Browser ``browser`` is no longer signed in as anybody."""
        with self._tx() as c:
            c.execute("DELETE FROM lecturer_signins WHERE browser = ?", (_browser(browser),))

    # -- classes ----------------------------------------------------------------------------------

    def open_class(self, lesson: str, *, lecturer: str, hours: float = DEFAULT_HOURS, nicknames: bool = False,
                   step: int = 1) -> ClassRecord:
        """Open a class on ``lesson`` at ``step``, led by ``lecturer`` (an id only the lecturer's
        sessions know), closing after ``hours``; a fresh code."""
        lesson = str(lesson)
        if not lesson or len(lesson) > 200:
            raise ClassError(f"lesson id {lesson[:60]!r} is empty or too long")
        if not str(lecturer):
            raise ClassError("a class needs the lecturer's id")
        try:
            hours = float(hours)
        except (TypeError, ValueError):
            raise ClassError(f"class duration {hours!r} is not a number of hours") from None
        if not 0 < hours <= MAX_HOURS:
            raise ClassError(f"class duration {hours:g} h is outside (0, {MAX_HOURS:g}] hours")
        step = _step(step)
        now = self.now()
        with self._tx() as c:
            for _ in range(50):
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if c.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone() is None:
                    break
            else:  # pragma: no cover - 31^6 codes
                raise ClassError("no free class code was found; delete old classes")
            c.execute("INSERT INTO classes (code, lesson, step, created, closes_at, nicknames, lecturer, version, "
                      "moved) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)",
                      (code, lesson, step, now, now + hours * 3600.0, int(bool(nicknames)), _hash(lecturer), now))
        return self.get(code)

    def get(self, code: str) -> ClassRecord:
        """The class with ``code`` (open or closed), or a one-line :class:`ClassError`."""
        code = normalise_code(code)
        with self._db.reading() as r:
            row = r.execute("SELECT code, lesson, step, created, closes_at, nicknames, version, moved, started "
                                     "FROM classes WHERE code = ?", (code,)).fetchone()
            if row is None:
                raise ClassError(f"no class has the code {code}: check it with the lecturer")
            revealed = r.execute("SELECT step FROM class_polls WHERE code = ? AND revealed IS NOT NULL",
                                          (code,)).fetchall()
        return ClassRecord(code=row[0], lesson=row[1], step=int(row[2]), created=float(row[3]),
                           closes_at=float(row[4]), nicknames=bool(row[5]), version=int(row[6]),
                           moved=float(row[7]), revealed=frozenset(int(r[0]) for r in revealed),
                           started=None if row[8] is None else float(row[8]))

    def join(self, code: str) -> ClassRecord:
        """The class a student joins: open, else a one-line :class:`ClassError` (wrong or closed code)."""
        rec = self.get(code)
        if not rec.is_open(self.now()):
            raise ClassError(f"class {rec.code} closed at {rec.closes_at_text}; ask the lecturer for a new code")
        return rec

    def version(self, code: str) -> int | None:
        """The class's change counter (one primary-key read: what a follower polls); None when the
        class is gone."""
        rows = self._read("SELECT version FROM classes WHERE code = ?", (normalise_code(code),))
        return int(rows[0][0]) if rows else None

    def classes(self, *, lecturer: str) -> list[ClassRecord]:
        """The classes ``lecturer`` opened, newest first."""
        rows = self._read("SELECT code FROM classes WHERE lecturer = ? ORDER BY created DESC", (_hash(lecturer),))
        return [self.get(r[0]) for r in rows]

    def _own(self, c, code: str, lecturer: str) -> tuple:
        row = c.execute("SELECT lecturer, closes_at, step FROM classes WHERE code = ?", (code,)).fetchone()
        if row is None:
            raise ClassError(f"no class has the code {code}")
        if not hmac.compare_digest(str(row[0]), _hash(lecturer)):
            raise ClassError(f"only the lecturer who opened class {code} may do that")
        return row

    def move(self, code: str, step: int, *, lecturer: str, poll: bool = False) -> ClassRecord:
        """Move class ``code`` to ``step`` (the lecturer); ``poll`` opens the step's poll (once)."""
        code, step = normalise_code(code), _step(step)
        now = self.now()
        with self._tx() as c:
            row = self._own(c, code, lecturer)
            if now >= float(row[1]):
                raise ClassError(f"class {code} closed at {_utc(float(row[1]))}")
            c.execute("UPDATE classes SET step = ?, version = version + 1, moved = ? WHERE code = ?",
                      (step, now, code))
            if poll and c.execute("SELECT 1 FROM class_polls WHERE code = ? AND step = ?",
                                  (code, step)).fetchone() is None:
                c.execute("INSERT INTO class_polls (code, step, opened, revealed) VALUES (?, ?, ?, NULL)",
                          (code, step, now))
        return self.get(code)

    def start(self, code: str, step: int, *, lecturer: str, poll: bool = False) -> ClassRecord:
        """The lecturer starts the lesson at ``step`` (students who joined before were waiting); a
        class started already just moves there."""
        code = normalise_code(code)
        with self._tx() as c:
            self._own(c, code, lecturer)
            c.execute("UPDATE classes SET started = ? WHERE code = ? AND started IS NULL", (self.now(), code))
        return self.move(code, step, lecturer=lecturer, poll=poll)

    def open_poll(self, code: str, step: int, *, lecturer: str) -> None:
        """Open the poll of ``step`` (nothing when it is open or revealed already)."""
        code, step = normalise_code(code), _step(step)
        with self._tx() as c:
            self._own(c, code, lecturer)
            if c.execute("SELECT 1 FROM class_polls WHERE code = ? AND step = ?", (code, step)).fetchone() is None:
                c.execute("INSERT INTO class_polls (code, step, opened, revealed) VALUES (?, ?, ?, NULL)",
                          (code, step, self.now()))

    def reveal(self, code: str, step: int, *, lecturer: str) -> None:
        """Reveal the poll of ``step``: its answers can no longer change, and every follower sees the
        answer and the distribution."""
        code, step = normalise_code(code), _step(step)
        now = self.now()
        with self._tx() as c:
            self._own(c, code, lecturer)
            cur = c.execute("UPDATE class_polls SET revealed = ? WHERE code = ? AND step = ? AND revealed IS NULL",
                            (now, code, step))
            if cur.rowcount == 0 and c.execute("SELECT 1 FROM class_polls WHERE code = ? AND step = ?",
                                               (code, step)).fetchone() is None:
                c.execute("INSERT INTO class_polls (code, step, opened, revealed) VALUES (?, ?, ?, ?)",
                          (code, step, now, now))
            c.execute("UPDATE classes SET version = version + 1 WHERE code = ?", (code,))

    def close_class(self, code: str, *, lecturer: str) -> None:
        """Close class ``code`` now (the lecturer): it can no longer be joined or answered; its data
        stays until :meth:`delete`."""
        code = normalise_code(code)
        now = self.now()
        with self._tx() as c:
            row = self._own(c, code, lecturer)
            if float(row[1]) > now:
                c.execute("UPDATE classes SET closes_at = ?, version = version + 1 WHERE code = ?", (now, code))

    def delete(self, code: str, *, lecturer: str) -> None:
        """Delete class ``code`` and all its polls, answers, followers and practice results."""
        code = normalise_code(code)
        with self._tx() as c:
            self._own(c, code, lecturer)
            for table in ("class_answers", "class_polls", "class_followers", "class_practice", "classes"):
                c.execute(f"DELETE FROM {table} WHERE code = ?", (code,))

    # -- students ---------------------------------------------------------------------------------

    def heartbeat(self, code: str, session: str, *, following: bool, step: int | None = None) -> None:
        """Record that ``session`` is connected to class ``code`` (and whether it follows)."""
        code, session = normalise_code(code), _session(session)
        now = self.now()
        with self._tx() as c:
            cur = c.execute("UPDATE class_followers SET seen = ?, following = ?, step = ? WHERE code = ? AND session = ?",
                            (now, int(bool(following)), step, code, session))
            if cur.rowcount == 0:
                if c.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone() is None:
                    raise ClassError(f"no class has the code {code}")
                c.execute("INSERT INTO class_followers (code, session, seen, following, step) VALUES (?, ?, ?, ?, ?)",
                          (code, session, now, int(bool(following)), step))

    def leave(self, code: str, session: str) -> None:
        """``session`` left class ``code`` (no longer counted as connected)."""
        with self._tx() as c:
            c.execute("DELETE FROM class_followers WHERE code = ? AND session = ?",
                      (normalise_code(code), _session(session)))

    def presence(self, code: str, *, window: float = PRESENCE_SECONDS) -> Presence:
        """How many sessions sent a heartbeat in the last ``window`` seconds, and how many of them
        follow the lecturer."""
        since = self.now() - float(window)
        rows = self._read("SELECT following, COUNT(*) FROM class_followers WHERE code = ? AND seen >= ? "
                          "GROUP BY following", (normalise_code(code), since))
        counts = {int(f): int(n) for f, n in rows}
        return Presence(connected=sum(counts.values()), following=counts.get(1, 0))

    def _rate(self, session: str) -> None:
        """Take one answer from ``session``'s token bucket, or refuse it."""
        now = time.monotonic()
        with self._bucket_lock:
            tokens, last = self._buckets.get(session, (float(RATE_BURST), now))
            tokens = min(float(RATE_BURST), tokens + (now - last) / RATE_SECONDS)
            if tokens < 1.0:
                self._buckets[session] = (tokens, now)
                raise RateLimitedError(f"too many answers from this session: wait {RATE_SECONDS * (1 - tokens):.1f} s "
                                       "and send it again")
            self._buckets[session] = (tokens - 1.0, now)
            if len(self._buckets) > _BUCKETS_KEPT:  # forget full buckets (they would be full again anyway)
                full = [k for k, (t, s) in self._buckets.items() if t + (now - s) / RATE_SECONDS >= RATE_BURST]
                for k in full:
                    del self._buckets[k]

    def answer(self, code: str, step: int, session: str, text: str, *, nickname: str | None = None) -> PollState:
        """Store ``session``'s answer to the poll of ``step`` (replacing its earlier one until the
        reveal); the poll's state after it."""
        code, step, session = normalise_code(code), _step(step), _session(session)
        text = str(text)
        if len(text) > MAX_ANSWER_CHARS:
            raise ClassError(f"an answer is at most {MAX_ANSWER_CHARS} characters; this one has {len(text):,}")
        if not text.strip():
            raise ClassError("the answer is empty")
        if nickname is not None:
            nickname = str(nickname).strip()
            if len(nickname) > MAX_NICKNAME_CHARS:
                raise ClassError(f"a nickname is at most {MAX_NICKNAME_CHARS} characters")
            nickname = nickname or None
        self._rate(session)
        now = self.now()
        with self._tx() as c:
            row = c.execute("SELECT closes_at, nicknames FROM classes WHERE code = ?", (code,)).fetchone()
            if row is None:
                raise ClassError(f"no class has the code {code}")
            if now >= float(row[0]):
                raise ClassError(f"class {code} closed at {_utc(float(row[0]))}; answers are no longer taken")
            if not row[1]:
                nickname = None
            poll = c.execute("SELECT revealed FROM class_polls WHERE code = ? AND step = ?", (code, step)).fetchone()
            if poll is None:
                raise ClassError(f"step {step} of class {code} has no open poll")
            if poll[0] is not None:
                raise ClassError(f"the answers of step {step} are revealed; an answer can no longer change")
            cur = c.execute("UPDATE class_answers SET answer = ?, nickname = ?, at = ? "
                            "WHERE code = ? AND step = ? AND session = ?", (text, nickname, now, code, step, session))
            if cur.rowcount == 0:
                c.execute("INSERT INTO class_answers (code, step, session, answer, nickname, first_at, at) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?)", (code, step, session, text, nickname, now, now))
        return self.poll(code, step)

    def my_answer(self, code: str, step: int, session: str) -> str | None:
        """``session``'s own answer to the poll of ``step``, or None."""
        rows = self._read("SELECT answer FROM class_answers WHERE code = ? AND step = ? AND session = ?",
                          (normalise_code(code), _step(step), _session(session)))
        return rows[0][0] if rows else None

    def poll(self, code: str, step: int) -> PollState:
        """The poll of ``step`` as anyone in the class sees it (the count, not the answers)."""
        code, step = normalise_code(code), _step(step)
        with self._db.reading() as r:
            p = r.execute("SELECT revealed FROM class_polls WHERE code = ? AND step = ?",
                                   (code, step)).fetchone()
            n = r.execute("SELECT COUNT(*) FROM class_answers WHERE code = ? AND step = ?",
                                   (code, step)).fetchone()[0]
        return PollState(code=code, step=step, opened=p is not None, count=int(n),
                         revealed=p is not None and p[0] is not None)

    def revealed_answers(self, code: str, step: int) -> list[str]:
        """The anonymous answers of a revealed poll (what every follower's distribution is drawn
        from); a poll not yet revealed refuses."""
        code, step = normalise_code(code), _step(step)
        if not self.poll(code, step).revealed:
            raise ClassError(f"the answers of step {step} are not revealed yet")
        return [r[0] for r in self._read("SELECT answer FROM class_answers WHERE code = ? AND step = ? "
                                         "ORDER BY first_at, session", (code, step))]

    # -- the lecturer's view ----------------------------------------------------------------------

    def answers(self, code: str, *, lecturer: str, step: int | None = None) -> list[Answer]:
        """Every answer of class ``code`` (or of one step), for its lecturer."""
        code = normalise_code(code)
        with self._db.reading() as r:
            self._own(r, code, lecturer)
            rows = r.execute("SELECT step, session, answer, nickname, first_at, at FROM class_answers "
                                      "WHERE code = ? ORDER BY step, first_at, session", (code,)).fetchall()
        first: dict[str, float] = {}
        for r in rows:
            first[r[1]] = min(first.get(r[1], float(r[4])), float(r[4]))
        order = {s: i for i, s in enumerate(sorted(first, key=lambda s: (first[s], s)), 1)}
        out = [Answer(step=int(r[0]), student=order[r[1]], answer=r[2], nickname=r[3], at=float(r[5]),
                      first_at=float(r[4])) for r in rows]
        return [a for a in out if step is None or a.step == int(step)]

    def export_csv(self, code: str, *, lecturer: str, step: int | None = None,
                   questions: dict[int, str] | None = None, checks: dict[int, Callable[[str], bool]] | None = None,
                   tz: tzinfo | None = None) -> str:
        """The answers of class ``code`` (or of one step) as CSV: ``class, lesson, step, question,
        student, nickname, answer, answered_at, right``; ``questions`` maps a step to its question
        text, ``checks`` to the function that tells a right answer (``right`` is ``yes``/``no``, empty
        for a step without one); times in ``tz`` (default UTC)."""
        rec = self.get(code)
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["class", "lesson", "step", "question", "student", "nickname", "answer", "answered_at", "right"])
        for a in self.answers(rec.code, lecturer=lecturer, step=step):
            check = (checks or {}).get(a.step)
            w.writerow([rec.code, rec.lesson, a.step, _csv_cell((questions or {}).get(a.step, "")), a.student,
                        _csv_cell(a.nickname or ""), _csv_cell(a.answer), _stamp(a.at, tz),
                        "" if check is None else ("yes" if _right(check, a.answer) else "no")])
        return out.getvalue()

    def summary_csv(self, code: str, *, lecturer: str, questions: dict[int, str],
                    checks: dict[int, Callable[[str], bool]] | None = None) -> str:
        """A class's results per question, to keep after the class: ``step, question, answered,
        right, median_seconds`` (seconds from the poll's opening to each student's first answer)."""
        rec = self.get(code)
        by_step: dict[int, list[Answer]] = {}
        for a in self.answers(rec.code, lecturer=lecturer):
            by_step.setdefault(a.step, []).append(a)
        with self._db.reading() as r:
            opened = dict(r.execute("SELECT step, opened FROM class_polls WHERE code = ?", (rec.code,)).fetchall())
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["class", "lesson", "step", "question", "answered", "right", "median_seconds"])
        for k in sorted(set(questions) | set(by_step)):
            got = by_step.get(k, [])
            check = (checks or {}).get(k)
            right = "" if check is None else sum(_right(check, a.answer) for a in got)
            waits = sorted(max(0.0, a.first_at - float(opened[k])) for a in got if k in opened)
            median = "" if not waits else round(statistics.median(waits), 1)
            w.writerow([rec.code, rec.lesson, k, _csv_cell(questions.get(k, "")), len(got), right, median])
        return out.getvalue()

    # -- practice steps ---------------------------------------------------------------------------

    def record_practice(self, code: str, step: int, session: str, *, solved: int, attempts: int, total: int) -> None:
        """``session``'s results on a practice step (replacing its earlier report)."""
        code, step, session = normalise_code(code), _step(step), _session(session)
        vals = [int(solved), int(attempts), int(total)]
        if any(v < 0 or v > 10_000 for v in vals):
            raise ClassError(f"practice results {vals} are outside 0..10000")
        self._rate(session)
        now = self.now()
        with self._tx() as c:
            if c.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone() is None:
                raise ClassError(f"no class has the code {code}")
            cur = c.execute("UPDATE class_practice SET solved = ?, attempts = ?, total = ?, at = ? "
                            "WHERE code = ? AND step = ? AND session = ?", (*vals, now, code, step, session))
            if cur.rowcount == 0:
                c.execute("INSERT INTO class_practice (code, step, session, solved, attempts, total, at) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?)", (code, step, session, *vals, now))

    def practice(self, code: str, step: int) -> PracticeResult:
        """The practice results of ``step``, summed over the students who reported."""
        rows = self._read("SELECT COUNT(*), SUM(solved), SUM(total), SUM(attempts) FROM class_practice "
                          "WHERE code = ? AND step = ?", (normalise_code(code), _step(step)))
        n, solved, total, attempts = rows[0]
        return PracticeResult(students=int(n), solved=int(solved or 0), total=int(total or 0),
                              attempts=int(attempts or 0))


def _step(step) -> int:
    try:
        k = int(step)
    except (TypeError, ValueError):
        raise ClassError(f"step {str(step)[:20]!r} is not a whole number") from None
    if not 1 <= k <= MAX_STEP:
        raise ClassError(f"step {k} is outside 1..{MAX_STEP}")
    return k


def _session(session) -> str:
    s = str(session)
    if not s or len(s) > MAX_SESSION_CHARS:
        raise ClassError(f"a session token has 1..{MAX_SESSION_CHARS} characters")
    return s


def _stamp(t: float, tz: tzinfo | None) -> str:
    return datetime.fromtimestamp(t, tz or timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _right(check: Callable[[str], bool], answer: str) -> bool:
    try:
        return bool(check(answer))
    except (ValueError, TypeError, ArithmeticError):   # an answer the check cannot read is not right
        return False


def _csv_cell(text: str) -> str:
    """A student's text in a CSV cell that a spreadsheet will not run as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") and not _is_number(text) else text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
