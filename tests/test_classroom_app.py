"""AppTests of a class: the lecturer leads, students join by code or link, follow, answer a poll,
see the reveal; wrong codes, rights, the lecturer token kept out of a student's page."""

from __future__ import annotations

import re
import pytest
from streamlit.testing.v1 import AppTest

from engine.classroom import ClassStore, lecturer_key
from workbench.declarations.lessons import load_lessons
from tests.conftest import ROOT

APP = str(ROOT / "app.py")
SECRET = "lecturer-secret-7f3a9"
LESSON = "first_class"


@pytest.fixture
def classdb(tmp_path, monkeypatch):
    path = tmp_path / "runs.sqlite"
    monkeypatch.setenv("TREE_WORKBENCH_DB", str(path))
    monkeypatch.setenv("TREE_WORKBENCH_LECTURER_TOKEN", SECRET)
    return path


def _run(x) -> AppTest:
    """Run an AppTest (or the AppTest of a clicked element) and check it raised nothing."""
    at = x.run()
    assert not at.exception, at.exception
    return at


def _app(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in query.items():
        at.query_params[k] = v
    return _run(at)


def _lecturer(**state) -> AppTest:
    """The lecturer's browser: the app opened, the token typed into the Lessons page's sign-in form."""
    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in state.items():
        at.session_state[k] = v
    _run(at)
    at.text_input(key="lecturer_token").input(SECRET)
    return _run(_button(at, "lecturer_sign_in_button").click())


def _button(at, key):
    return next(b for b in at.button if b.key == key)


def _keys(at) -> set:
    return {b.key for b in at.button}


def _text(at) -> str:
    parts = [m.value for m in at.markdown] + [m.value for m in at.caption] + [m.value for m in at.info] \
        + [m.value for m in at.success] + [m.value for m in at.warning] + [m.value for m in at.error] \
        + [m.value for m in at.subheader] + [c.value for c in at.code]
    return "\n".join(parts)


def _progress(at) -> str:
    """The step counter on screen: the class's (above the page), else the lesson panel's."""
    m = re.search(r"\*\*Step (\d+ of \d+)\*\*", _text(at))
    if m:
        return "Step " + m.group(1)
    return " ".join(p.proto.text for p in at.get("progress") if p.proto.text.startswith("Step "))


def _counters(at) -> int:
    """How many step counters the screen shows."""
    return len(re.findall(r"Step \d+ of \d+", _text(at))) + sum(
        p.proto.text.startswith("Step ") for p in at.get("progress"))


def _lead(classdb):
    lect = _lecturer()
    assert "lesson_lead_first_class" in _keys(lect)
    _run(_button(lect, "lesson_lead_first_class").click())
    store = ClassStore(classdb)
    (rec,) = store.classes(lecturer=_lecturer_id())
    assert f"Your class: {rec.code}" in _text(lect)
    assert f"?class={rec.code}" in _text(lect)
    assert len(lect.get("image")) >= 1  # the QR code
    return lect, store, rec


def _lecturer_id():
    return lecturer_key(SECRET)


def test_no_lead_button_without_the_token(classdb):
    at = _app()
    assert not any(k.startswith("lesson_lead_") for k in _keys(at))
    at.text_input(key="lecturer_token").input("wrong")
    _run(_button(at, "lecturer_sign_in_button").click())
    assert not any(k.startswith("lesson_lead_") for k in _keys(at))
    assert [e.value for e in at.error] == ["That is not the lecturer's token: check it and type it again."]


def test_an_old_lecturer_link_signs_nobody_in_and_leaves_the_address(classdb):
    at = _app(lecturer=SECRET)
    assert "lecturer" not in at.query_params
    assert not any(k.startswith("lesson_lead_") for k in _keys(at))
    (warning,) = [w.value for w in at.warning if "Lecturer links" in w.value]
    assert "\n" not in warning and "sign in with the lecturer's form" in warning
    assert SECRET not in _text(at) + warning


def test_the_sign_in_lasts_for_this_browser_until_sign_out(classdb):
    lect = _lecturer()
    assert "lesson_lead_first_class" in _keys(lect) and "lecturer_sign_out" in _keys(lect)
    browser = lect.session_state["run_owner"]   # the owner cookie's token (a reload sends it again)
    assert SECRET not in _text(lect) and SECRET not in browser
    again = _app_with(run_owner=browser)        # a reload: a new session of the same browser
    assert "lesson_lead_first_class" in _keys(again)
    other = _app()                              # another browser (a student's)
    assert not any(k.startswith("lesson_lead_") for k in _keys(other))
    _run(_button(again, "lecturer_sign_out").click())
    assert not any(k.startswith("lesson_lead_") for k in _keys(again))
    assert not any(k.startswith("lesson_lead_") for k in _keys(_app_with(run_owner=browser)))


def _app_with(**state) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in state.items():
        at.session_state[k] = v
    return _run(at)


def test_lead_join_follow_answer_reveal(classdb):
    lesson = next(x for x in load_lessons()[0] if x.id == LESSON)
    n = len(lesson.steps)
    lect, store, rec = _lead(classdb)
    code = rec.code

    # a student joins by the box on the Lessons page, another by the link
    ana = _app()
    ana.text_input(key="class_join_code").input(code.lower())
    _run(next(b for b in ana.button if b.label == "Join").click())
    ben = _app(**{"class": code})
    for s in (ana, ben):   # before the lecturer starts: a screen that says so, no step yet
        assert s.title[0].value == "Waiting for the lecturer", [t.value for t in s.title]
        assert f"Class {code}" in _text(s) and "following the lecturer" in _text(s)
        assert "class_reveal" not in _keys(s) and "lesson_reveal" not in _keys(s)
    assert store.presence(code, window=3600).connected == 2   # an AppTest run may take 15 s on a busy machine

    # the lecturer starts the lesson: the console above the page, the students on step 1
    _run(_button(lect, "class_go").click())
    assert _progress(lect).startswith(f"Step 1 of {n}") and _counters(lect) == 1
    assert {"lesson_prev", "lesson_next", "class_reveal", "class_console_toggle"} <= _keys(lect)
    assert store.get(code).started is not None
    for s in (ana, ben):
        _run(s)
        assert _progress(s).startswith(f"Step 1 of {n}") and _counters(s) == 1, _text(s)
        assert "class_reveal" not in _keys(s) and "lesson_reveal" not in _keys(s)   # no Reveal for students
    # the lecturer moves to step 2 (a number question): the followers move
    _run(_button(lect, "lesson_next").click())
    assert _progress(lect).startswith(f"Step 2 of {n}")
    assert store.get(code).step == 2 and store.poll(code, 2).opened
    for s in (ana, ben):
        _run(s)
        assert _progress(s).startswith(f"Step 2 of {n}") and _counters(s) == 1, _progress(s)
        assert lesson.steps[1].question.text in _text(s) and "class_send" in _keys(s)

    # they answer; one changes its answer; the lecturer's count shows 2 without the answer marked
    q = lesson.steps[1].question
    ana.text_input(key=f"class_q_{code}_2").input(q.answer)
    _run(_button(ana, "class_send").click())
    assert "Your answer is in" in _text(ana)
    ben.text_input(key=f"class_q_{code}_2").input("0.9")
    _run(_button(ben, "class_send").click())
    ben.text_input(key=f"class_q_{code}_2").input("0.8")
    _run(_button(ben, "class_send").click())
    assert store.my_answer(code, 2, ben.session_state["class_seat"]) == "0.8"
    _run(lect)
    assert "**2** answered" in _text(lect)
    assert "engine's answer" not in _text(lect)

    # reveal: every follower sees the answer and the distribution, with theirs judged
    _run(_button(lect, "class_reveal").click())
    assert "engine's answer" in _text(lect)
    assert store.poll(code, 2).revealed
    _run(ana)
    assert f"**Answer:** {q.answer}" in _text(ana) and "right." in _text(ana)
    assert "2 answered, 1 right" in _text(ana)
    _run(ben)
    assert "not quite." in _text(ben)
    assert "class_send" not in _keys(ben)

    # explore on my own, then catch up
    _run(_button(ana, "class_explore").click())
    _run(_button(lect, "lesson_next").click())
    _run(ana)
    assert _progress(ana).startswith(f"Step 2 of {n}") and "the lecturer is at step 3" in _text(ana)
    _run(_button(ana, "class_catch_up").click())
    assert _progress(ana).startswith(f"Step 3 of {n}")
    assert "following the lecturer" in _text(ana)

    # the lecturer token never reaches a student's page or address
    for s in (ana, ben):
        assert SECRET not in _text(s) and SECRET not in str(dict(s.query_params))
        assert SECRET not in repr({k: s.session_state[k] for k in s.session_state.keys()})


def test_wrong_and_closed_codes_are_one_line(classdb):
    at = _app(**{"class": "ZZZZZZ"})
    assert [e.value for e in at.error] == ["no class has the code ZZZZZZ: check it with the lecturer"]
    at = _app(**{"class": "nope"})
    assert len(at.error) == 1 and "is not a class code" in at.error[0].value
    lect, store, rec = _lead(classdb)
    store.close_class(rec.code, lecturer=_lecturer_id())
    at = _app(**{"class": rec.code})
    assert len(at.error) == 1 and f"class {rec.code} closed at" in at.error[0].value


def test_student_cannot_act_for_the_lecturer(classdb):
    lect, store, rec = _lead(classdb)
    stu = _app(**{"class": rec.code, "lecturer": "guess"})   # an old link with a guess
    assert "class_reveal" not in _keys(stu) and "class_close" not in _keys(stu)
    assert not any(k.startswith("class_delete_") for k in _keys(stu))


def test_restart_keeps_the_class(classdb):
    lect, store, rec = _lead(classdb)
    _run(_button(lect, "class_go").click())
    _run(_button(lect, "lesson_next").click())
    stu = _app(**{"class": rec.code})
    stu.text_input(key=f"class_q_{rec.code}_2").input("0.5")
    _run(_button(stu, "class_send").click())
    # a new server over the same database: the lecturer leads the class again from the Lessons page
    _store_cache_clear()
    lect2 = _lecturer()
    assert f"class_resume_{rec.code}" in _keys(lect2)
    _run(_button(lect2, f"class_resume_{rec.code}").click())
    assert _progress(lect2).startswith("Step 2 of")
    assert "**1** answered" in _text(lect2)
    # and deletes it
    lect3 = _lecturer()
    _run(_button(lect3, f"class_delete_{rec.code}").click())
    assert ClassStore(classdb).classes(lecturer=_lecturer_id()) == []


def _store_cache_clear():
    from workbench import identity

    identity._store.cache_clear()


DRILL = """---
title: A drill in class
minutes: 5
audience: anyone
---
A short lesson with a practice step.

## The tree
state: /tree_studio?tree=lecture_5_vertices

Look at the tree.

## Cover rounds
practice: 2 exercises of family cover_round

Solve two exercises on the Practice page.
"""


def test_practice_step_reaches_the_lecturer(classdb, tmp_path, monkeypatch):
    from engine.practice import make

    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "drill.md").write_text(DRILL)
    monkeypatch.setenv("TREE_WORKBENCH_LESSONS", str(folder))
    lect = _lecturer()
    _run(_button(lect, "lesson_lead_drill").click())
    code = ClassStore(classdb).classes(lecturer=_lecturer_id())[0].code
    _run(_button(lect, "class_go").click())
    _run(_button(lect, "lesson_next").click())
    assert lect.title[0].value == "A drill in class"          # the console, for the projector
    assert "**The class:** 0 reported" in _text(lect)
    _run(_button(lect, "class_console_toggle").click())        # one click to the step's page ...
    assert lect.title[0].value == "Practice" and "lesson_next" in _keys(lect)
    _run(_button(lect, "class_console_toggle").click())        # ... and one back
    assert lect.title[0].value == "A drill in class"

    stu = _app(**{"class": code})
    assert stu.title[0].value == "Practice" and _progress(stu).startswith("Step 2 of 2")
    assert "0 of 2 solved" in " ".join(p.proto.text for p in stu.get("progress"))
    seed = int(stu.query_params["seed"][0] if isinstance(stu.query_params["seed"], list) else stu.query_params["seed"]) \
        if "seed" in stu.query_params else 0
    ex = make("cover_round", seed)
    stu.text_input(key=f"practice_answer_cover_round_{seed}").input(ex.answer_text)
    _run(next(b for b in stu.button if b.label == "Check").click())
    assert "1 of 2 solved · 1 attempt" in " ".join(p.proto.text for p in stu.get("progress"))
    r = ClassStore(classdb).practice(code, 2)
    assert (r.students, r.solved, r.total, r.attempts) == (1, 1, 2, 1)
    _run(lect)
    assert "**The class:** 1 reported · 1 of 2 exercises solved · 1 attempts" in _text(lect)



def test_the_join_link_is_an_address_students_reach(classdb, monkeypatch):
    """On 127.0.0.1 only (this test's server) the dashboard says in one line that students cannot
    reach it; with TREE_WORKBENCH_PUBLIC_URL the link and the QR code carry that address; a server
    listening on every interface gives this machine's address, never a loopback one."""
    from workbench.classroom import PUBLIC_URL_ENV, student_root

    lect, store, rec = _lead(classdb)
    (warning,) = [w.value for w in lect.warning if "Students cannot reach" in w.value]
    assert "ADDRESS=0.0.0.0" in warning and PUBLIC_URL_ENV in warning and "\n" not in warning
    monkeypatch.setenv(PUBLIC_URL_ENV, "https://workbench.uni.example/")
    lect = _lecturer()
    _run(_button(lect, f"class_resume_{rec.code}").click())
    shown = _text(lect) + "".join(h.proto.body for h in lect.get("html"))   # the console's address is HTML
    assert f"https://workbench.uni.example/?class={rec.code}" in shown
    assert not [w for w in lect.warning if "Students cannot reach" in w.value]
    assert student_root("0.0.0.0", 8501)[0] == "https://workbench.uni.example"
    monkeypatch.delenv(PUBLIC_URL_ENV)
    root, warn = student_root("0.0.0.0", 8501)
    host = root.removeprefix("http://").rsplit(":", 1)[0]
    assert warn is None and root.endswith(":8501") and not host.startswith(("127.", "localhost", "[::1]")), root
    assert student_root("192.0.2.7", 8600) == ("http://192.0.2.7:8600", None)


def test_the_start_log_says_which_modes_are_on(monkeypatch):
    from workbench.classroom import start_lines

    monkeypatch.delenv("TREE_WORKBENCH_CLASSROOM", raising=False)
    monkeypatch.delenv("TREE_WORKBENCH_LECTURER_TOKEN", raising=False)
    monkeypatch.delenv("TREE_WORKBENCH_PUBLIC_URL", raising=False)
    assert start_lines("127.0.0.1") == []
    monkeypatch.setenv("TREE_WORKBENCH_CLASSROOM", "1")
    monkeypatch.setenv("TREE_WORKBENCH_LECTURER_TOKEN", SECRET)
    lines = start_lines("127.0.0.1")
    assert [x.split(" (")[0] for x in lines] == ["classroom mode on", "lecturer mode on", "students cannot reach this server: it listens on 127.0.0.1 only"]
    assert not any(SECRET in x for x in lines)
    assert len(start_lines("0.0.0.0")) == 2
