"""The class store (engine.classroom): classes, polls, answers, presence, rights, limits, restart."""

from __future__ import annotations

import csv
import io
import sqlite3
import subprocess
import sys
import threading

import pytest

from engine.classroom import ClassStore, distribution, normalise_code
from engine.classroom import store as cs
from engine.errors import ClassError, RateLimitedError


class Clock:
    def __init__(self, t=1_000_000.0):
        self.t = t

    def __call__(self):
        return self.t


@pytest.fixture
def db(tmp_path):
    return tmp_path / "runs.sqlite"


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(db_target, clock):
    """A fresh class store on each backend (SQLite, PostgreSQL: tests/postgres.py)."""
    s = ClassStore(db_target, clock=clock)
    yield s
    s.close()


def test_open_join_move(store):
    c = store.open_class("cover", lecturer="L")
    assert len(c.code) == cs.CODE_LENGTH and set(c.code) <= set(cs.CODE_ALPHABET)
    assert c.step == 1 and not c.nicknames
    j = store.join(" " + c.code.lower()[:3] + "-" + c.code.lower()[3:] + " ")
    assert j.code == c.code and j.lesson == "cover"
    v = store.version(c.code)
    moved = store.move(c.code, 3, lecturer="L", poll=True)
    assert moved.step == 3 and moved.version == v + 1
    assert store.poll(c.code, 3).opened and not store.poll(c.code, 2).opened
    assert [x.code for x in store.classes(lecturer="L")] == [c.code]
    assert store.classes(lecturer="other") == []


@pytest.mark.parametrize("code", ["", "ABC", "ABCDEFG", "ABCDE0", "12345!", "x" * 500])
def test_bad_codes_are_one_line(store, code):
    with pytest.raises(ClassError) as e:
        store.join(code)
    assert "\n" not in str(e.value) and len(str(e.value)) < 200


def test_unknown_code(store):
    with pytest.raises(ClassError, match="no class has the code ABCDEF"):
        store.join("abcdef")


def test_only_the_lecturer(store):
    c = store.open_class("cover", lecturer="L")
    for act in (lambda: store.move(c.code, 2, lecturer="student"),
                lambda: store.reveal(c.code, 1, lecturer="student"),
                lambda: store.close_class(c.code, lecturer="student"),
                lambda: store.delete(c.code, lecturer="student"),
                lambda: store.answers(c.code, lecturer="student"),
                lambda: store.export_csv(c.code, lecturer="student")):
        with pytest.raises(ClassError, match="only the lecturer"):
            act()
    assert store.get(c.code).step == 1


def test_lecturer_token_is_not_stored(db, store):
    store.open_class("cover", lecturer="the-secret-token")
    if store._db.dialect != "sqlite":  # a server: every text of every class row
        assert "the-secret-token" not in repr(store._read("SELECT * FROM classes"))
        return
    raw = db.read_bytes() + (db.with_name(db.name + "-wal").read_bytes() if db.with_name(db.name + "-wal").exists() else b"")
    assert b"the-secret-token" not in raw


def test_answers_change_until_reveal(store):
    c = store.open_class("cover", lecturer="L")
    store.move(c.code, 2, lecturer="L", poll=True)
    with pytest.raises(ClassError, match="no open poll"):
        store.answer(c.code, 1, "s1", "x")
    store.answer(c.code, 2, "s1", "2, 6")
    store.answer(c.code, 2, "s2", "3")
    st = store.answer(c.code, 2, "s1", "2, 6, 10")  # changed, not added
    assert st.count == 2 and not st.revealed
    assert store.my_answer(c.code, 2, "s1") == "2, 6, 10"
    assert store.my_answer(c.code, 2, "s3") is None
    with pytest.raises(ClassError, match="not revealed"):
        store.revealed_answers(c.code, 2)
    v = store.version(c.code)
    store.reveal(c.code, 2, lecturer="L")
    assert store.version(c.code) == v + 1 and 2 in store.get(c.code).revealed
    with pytest.raises(ClassError, match="revealed"):
        store.answer(c.code, 2, "s2", "4")
    with pytest.raises(ClassError, match="revealed"):
        store.answer(c.code, 2, "s9", "4")
    assert sorted(store.revealed_answers(c.code, 2)) == ["2, 6, 10", "3"]
    got = store.answers(c.code, lecturer="L")
    assert [(a.student, a.answer) for a in got] == [(1, "2, 6, 10"), (2, "3")]


def test_size_limits(store):
    c = store.open_class("cover", lecturer="L", nicknames=True)
    store.move(c.code, 1, lecturer="L", poll=True)
    with pytest.raises(ClassError, match="at most 500 characters"):
        store.answer(c.code, 1, "s1", "9" * 501)
    with pytest.raises(ClassError, match="empty"):
        store.answer(c.code, 1, "s1", "  ")
    with pytest.raises(ClassError, match="nickname"):
        store.answer(c.code, 1, "s1", "1", nickname="n" * 41)
    with pytest.raises(ClassError, match="session token"):
        store.answer(c.code, 1, "s" * 65, "1")
    store.answer(c.code, 1, "s1", "1", nickname="ana")
    assert store.answers(c.code, lecturer="L")[0].nickname == "ana"


def test_nicknames_only_when_asked(store):
    c = store.open_class("cover", lecturer="L")
    store.move(c.code, 1, lecturer="L", poll=True)
    store.answer(c.code, 1, "s1", "1", nickname="ana")
    assert store.answers(c.code, lecturer="L")[0].nickname is None


def test_rate_limit_is_per_session(store):
    c = store.open_class("cover", lecturer="L")
    store.move(c.code, 1, lecturer="L", poll=True)
    for _ in range(cs.RATE_BURST):
        store.answer(c.code, 1, "spammer", "1")
    with pytest.raises(RateLimitedError, match="too many answers"):
        store.answer(c.code, 1, "spammer", "2")
    # nobody else is slowed down
    for k in range(20):
        store.answer(c.code, 1, f"other{k}", "3")
    assert store.poll(c.code, 1).count == 21
    assert store.my_answer(c.code, 1, "spammer") == "1"


def test_expiry_and_close(store, clock):
    c = store.open_class("cover", lecturer="L", hours=3)
    store.move(c.code, 1, lecturer="L", poll=True)
    clock.t += 3 * 3600 - 1
    store.join(c.code)
    clock.t += 2
    with pytest.raises(ClassError, match=f"class {c.code} closed at"):
        store.join(c.code)
    with pytest.raises(ClassError, match="closed"):
        store.answer(c.code, 1, "s1", "1")
    with pytest.raises(ClassError, match="closed"):
        store.move(c.code, 2, lecturer="L")
    assert store.get(c.code).lesson == "cover"  # its data stays
    d = store.open_class("cover", lecturer="L")
    store.close_class(d.code, lecturer="L")
    with pytest.raises(ClassError, match="closed"):
        store.join(d.code)
    with pytest.raises(ClassError, match="duration"):
        store.open_class("cover", lecturer="L", hours=0)


def test_delete(store):
    c = store.open_class("cover", lecturer="L")
    store.move(c.code, 1, lecturer="L", poll=True)
    store.answer(c.code, 1, "s1", "1")
    store.heartbeat(c.code, "s1", following=True)
    store.delete(c.code, lecturer="L")
    with pytest.raises(ClassError, match="no class"):
        store.get(c.code)
    assert store.version(c.code) is None
    for table in ("class_answers", "class_polls", "class_followers", "classes"):
        assert store._read(f"SELECT COUNT(*) FROM {table}")[0][0] == 0


def test_presence(store, clock):
    c = store.open_class("cover", lecturer="L")
    store.heartbeat(c.code, "a", following=True, step=1)
    store.heartbeat(c.code, "b", following=True)
    store.heartbeat(c.code, "c", following=False)
    store.heartbeat(c.code, "a", following=True)  # updated, not added
    p = store.presence(c.code)
    assert (p.connected, p.following) == (3, 2)
    clock.t += cs.PRESENCE_SECONDS + 1
    store.heartbeat(c.code, "b", following=False)
    p = store.presence(c.code)
    assert (p.connected, p.following) == (1, 0)
    store.leave(c.code, "b")
    assert store.presence(c.code).connected == 0
    with pytest.raises(ClassError):
        store.heartbeat("ZZZZZZ", "a", following=True)


def test_transaction_rolls_back(store):
    c = store.open_class("cover", lecturer="L")
    store.move(c.code, 1, lecturer="L", poll=True)
    # an answer whose INSERT fails after the poll check leaves nothing behind
    with pytest.raises(store._db.IntegrityError):
        with store._tx() as conn:
            conn.execute("INSERT INTO class_answers (code, step, session, answer, nickname, first_at, at) "
                         "VALUES (?, 1, 's', 'a', NULL, 0, 0)", (c.code,))
            conn.execute("INSERT INTO class_answers (code, step, session, answer, nickname, first_at, at) "
                         "VALUES (?, 1, 's', 'b', NULL, 0, 0)", (c.code,))
    assert store.poll(c.code, 1).count == 0


def test_concurrent_answers_are_all_kept(store):
    c = store.open_class("cover", lecturer="L")
    store.move(c.code, 1, lecturer="L", poll=True)

    def student(k):
        store.answer(c.code, 1, f"s{k}", str(k))

    threads = [threading.Thread(target=student, args=(k,)) for k in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert store.poll(c.code, 1).count == 30


def test_restart_keeps_class_step_and_answers(db):
    s = ClassStore(db)
    c = s.open_class("cover", lecturer="L", nicknames=True)
    s.move(c.code, 4, lecturer="L", poll=True)
    s.answer(c.code, 4, "s1", "2, 6", nickname="ana")
    s.close()
    # a new process over the same file sees everything
    code = ("import sys; from engine.classroom import ClassStore; s = ClassStore(sys.argv[1]); "
            "c = s.get(sys.argv[2]); print(c.lesson, c.step, s.poll(c.code, 4).count); "
            "s.answer(c.code, 4, 's2', '3'); s.reveal(c.code, 4, lecturer='L')")
    out = subprocess.run([sys.executable, "-c", code, str(db), c.code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["cover", "4", "1"]
    s2 = ClassStore(db)
    assert s2.get(c.code).revealed == frozenset({4})
    assert [(a.answer, a.nickname) for a in s2.answers(c.code, lecturer="L")] == [("2, 6", "ana"), ("3", None)]
    s2.close()


def test_same_file_as_the_run_history(db):
    from engine.runs.store import RunStore

    runs = RunStore(db)
    classes = ClassStore(db)
    assert runs.schema_version >= 1 and classes.schema_version == cs.SCHEMA_VERSION
    classes.open_class("cover", lecturer="L")
    runs.start({"algorithm": "hedge", "seed": 0})
    tables = {r[0] for r in classes._read("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"runs", "schema_version", "classes"} <= tables
    versions = dict(classes._read("SELECT component, version FROM schema_version"))
    assert versions == {"runs": runs.schema_version, "classroom": cs.SCHEMA_VERSION}  # one schema history
    runs.close()
    classes.close()


def test_newer_schema_refused(db):
    ClassStore(db).close()
    con = sqlite3.connect(db)
    con.execute("UPDATE schema_version SET version = 99 WHERE component = 'classroom'")
    con.commit()
    con.close()
    with pytest.raises(Exception, match="newer"):
        ClassStore(db)


def test_export_csv(store):
    c = store.open_class("cover", lecturer="L")
    store.move(c.code, 2, lecturer="L", poll=True)
    store.answer(c.code, 2, "s1", "=HYPERLINK(1)")
    store.answer(c.code, 2, "s2", "-0.5")
    store.move(c.code, 3, lecturer="L", poll=True)
    store.answer(c.code, 3, "s2", "a, b")
    rows = list(csv.DictReader(io.StringIO(store.export_csv(c.code, lecturer="L", questions={2: "Which?"}))))
    assert [(r["step"], r["student"], r["answer"], r["question"]) for r in rows] == [
        ("2", "1", "'=HYPERLINK(1)", "Which?"), ("2", "2", "-0.5", "Which?"), ("3", "2", "a, b", "")]
    one = list(csv.DictReader(io.StringIO(store.export_csv(c.code, lecturer="L", step=3))))
    assert len(one) == 1 and "s2" not in store.export_csv(c.code, lecturer="L")


def test_practice_results(store):
    c = store.open_class("cover", lecturer="L")
    store.record_practice(c.code, 2, "s1", solved=2, attempts=3, total=3)
    store.record_practice(c.code, 2, "s1", solved=3, attempts=4, total=3)
    store.record_practice(c.code, 2, "s2", solved=1, attempts=1, total=3)
    r = store.practice(c.code, 2)
    assert (r.students, r.solved, r.total, r.attempts) == (2, 4, 6, 5)


def test_normalise_code():
    assert normalise_code("abc def") == "ABCDEF"


def test_distribution_kinds():
    d = distribution("choice", ["a", "b", "a", "zz"], choices=["a", "b", "c"], check=lambda x: x == "b")
    assert d.rows() == [("a", 2, False), ("b", 1, True), ("c", 0, False), ("other", 1, False)] and d.right == 1
    d = distribution("vertices", ["2,6", "6, 2", "none", "3"])
    assert d.rows() == [("2, 6", 2, False), ("(none)", 1, False), ("3", 1, False)] and d.right is None
    d = distribution("number", [str(x / 10) for x in range(11)] + ["abc"], target=0.35)
    assert sum(d.counts) == 12 and d.labels[-1] == "not a number"
    assert sum(d.marked) == 1
    lo, hi = d.labels[d.marked.index(True)].split(" – ")
    assert float(lo) <= 0.35 < float(hi)
    assert distribution("number", ["1", "1"]).rows() == [("1", 2, False)]
    many = distribution("vertices", [str(k) for k in range(20)])
    assert len(many.labels) == 8 and many.labels[-1] == "other" and sum(many.counts) == 20


def test_the_csv_files_a_lecturer_keeps():
    """Every answer with its question, time and right/wrong; a summary per question with the
    answered, the right and the median seconds from the poll's opening to each first answer."""
    import csv
    import io
    from datetime import timedelta, timezone

    now = [1_000_000.0]
    store = ClassStore(":memory:", clock=lambda: now[0])
    c = store.open_class("cover", lecturer="L")
    store.start(c.code, 2, lecturer="L", poll=True)
    for seat, answer, after in (("seat-a-0123456789abcdef", "0.5", 10.0), ("seat-b-0123456789abcdef", "0.9", 20.0),
                                ("seat-c-0123456789abcdef", "=1+1", 40.0)):
        now[0] = 1_000_000.0 + after
        store.answer(c.code, 2, seat, answer)
    questions, checks = {2: "What is p?", 5: "Unasked?"}, {2: lambda a: abs(float(a) - 0.5) < 0.01}
    rows = list(csv.DictReader(io.StringIO(store.export_csv(c.code, lecturer="L", questions=questions, checks=checks,
                                                            tz=timezone(timedelta(hours=1))))))
    assert [(r["answer"], r["right"], r["question"]) for r in rows] == [
        ("0.5", "yes", "What is p?"), ("0.9", "no", "What is p?"), ("'=1+1", "no", "What is p?")]
    assert rows[0]["answered_at"].endswith("+01:00")
    summary = list(csv.DictReader(io.StringIO(store.summary_csv(c.code, lecturer="L", questions=questions,
                                                                checks=checks))))
    assert [(r["step"], r["answered"], r["right"], r["median_seconds"]) for r in summary] == [
        ("2", "3", "1", "20.0"), ("5", "0", "", "")]   # no checker for step 5: right is empty
    assert store.get(c.code).started == 1_000_000.0
