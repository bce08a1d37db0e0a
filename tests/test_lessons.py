"""Lessons: the format's errors (file and line), the shipped lessons, their answers, the CLI."""

import json

import pytest

from engine.errors import LessonError
from tests.conftest import ROOT, engine_cli
from workbench.declarations.lessons import (
    LESSONS_DIR,
    lesson_files,
    load_lessons,
    parse_lesson,
    read_lesson,
)
from workbench.declarations.lessons.answers import COMPUTATIONS, check_answers, compute

GOOD = """---
title: A lesson
minutes: 7
audience: anyone
---
Intro.

## First
state: /cover_inspector?tree=figure1&root=1&t=0
minutes: 4

Look at the black vertices.

question: Which vertices are mergeable?
kind: vertices
answer: 2, 6, 10, 13
computed: mergeable
why: the rule of Figure 1.

## Second
state: /ofde
minutes: 3

Press run.
"""


def _replace(old, new, text=GOOD):
    assert old in text
    return text.replace(old, new, 1)


def _state(link: str) -> str:
    """GOOD with its second step's state link replaced."""
    return _replace("state: /ofde", "state: " + link)


def test_a_good_lesson_parses():
    lesson = parse_lesson(GOOD, "lessons/good.md")
    assert lesson.id == "good" and lesson.minutes == 7 and len(lesson.steps) == 2
    s = lesson.steps[0]
    assert s.url == "/cover_inspector?tree=figure1&root=1&t=0" and s.minutes == 4 and s.line == 8
    assert s.text == "Look at the black vertices."
    q = s.question
    assert q.kind == "vertices" and q.value == frozenset({"2", "6", "10", "13"}) and q.line == 14
    assert q.check("13, 10,6 ,2") and not q.check("2, 6") and q.why == "the rule of Figure 1."
    assert lesson.to_dict() == {"id": "good", "title": "A lesson", "minutes": 7, "steps": [
        {"title": "First", "url": "/cover_inspector?tree=figure1&root=1&t=0",
         "question": "Which vertices are mergeable?"},
        {"title": "Second", "url": "/ofde"}]}
    assert check_answers(lesson) == 1


BAD = [
    ("no front matter", "title: x\n", 1, "starts with a front matter"),
    ("unclosed", "---\ntitle: x\n", 1, "never closed"),
    ("unknown key", _replace("audience: anyone", "audiance: anyone"), 4, "did you mean audience?"),
    ("missing title", _replace("title: A lesson\n", ""), 1, "no title:"),
    ("bad minutes", _replace("minutes: 7", "minutes: seven"), 3, "whole number"),
    ("minutes mismatch", _replace("minutes: 7", "minutes: 8"), 3, "the steps take 7 minutes"),
    ("some minutes", _replace("minutes: 3\n", ""), 20, "give minutes for every step or for none"),
    ("no steps", "---\ntitle: t\nminutes: 1\naudience: a\n---\ntext\n", 6, "no steps"),
    ("h1 heading", _replace("Intro.", "# Intro"), 6, "use '## '"),
    ("no state", _replace("state: /ofde\n", ""), 20, "has no state:"),
    ("unknown page", _state("/ofdee"), 21, "unknown page /ofdee"),
    ("bad parameter", _state("/ofde?vars=99"), 21, "vars='99'"),
    ("unknown parameter", _state("/ofde?colour=1"), 21, "no parameter 'colour'"),
    ("bad tree", _replace("tree=figure1", "tree=random:0"), 9, "tree 'random:0'"),
    ("state out of range", _replace("t=0", "t=12"), 9, "t=12: this cover has rounds 0..4"),
    ("foreign link", _state("https://example.org/ofde"), 21, "stay inside the app"),
    ("no explanation", _replace("Press run.\n", ""), 20, "no explanation"),
    ("no answer", _replace("answer: 2, 6, 10, 13\n", ""), 14, "has no answer:"),
    ("wrong vertex", _replace("answer: 2, 6, 10, 13", "answer: 2, 99"), 16, "names 99, not vertices"),
    ("bad kind", _replace("kind: vertices", "kind: essay"), 15, "kind must be one of"),
    ("answer not a choice", _replace("kind: vertices\nanswer: 2, 6, 10, 13",
                                     "choices: a | b\nanswer: c"), 16, "not one of the choices"),
    ("number answer", _replace("kind: vertices\nanswer: 2, 6, 10, 13\ncomputed: mergeable",
                               "kind: number\nanswer: lots"), 16, "must be a number"),
    ("unknown computation", _replace("computed: mergeable", "computed: mergable"), 17, "did you mean mergeable?"),
    ("computation kind", _replace("computed: mergeable", "computed: cover_height"), 17, "of kind number"),
    ("computation args", _replace("computed: mergeable", "computed: mergeable node=3"), 17, "takes no arguments"),
    ("stray field", _replace("Press run.", "Press run.\nanswer: 4"), 25, "belongs to a question"),
    ("twice", _replace("minutes: 4", "minutes: 4\nminutes: 4"), 11, "given twice"),
    ("typo field", _replace("why: the rule", "wyh: the rule"), 18, "did you mean why?"),
    ("tolerance on vertices", _replace("computed: mergeable", "tolerance: 1"), 17, "belongs to a question of kind number"),
]


@pytest.mark.parametrize("name, text, line, culprit", BAD, ids=[b[0] for b in BAD])
def test_a_bad_lesson_gives_one_error_naming_file_and_line(name, text, line, culprit):
    with pytest.raises(LessonError) as exc:
        parse_lesson(text, "/somewhere/lessons/bad.md")
    msg = str(exc.value)
    assert msg.startswith(f"bad.md:{line}: "), msg
    assert culprit in msg and "\n" not in msg
    assert exc.value.path == "bad.md" and exc.value.line == line


def test_a_wrong_stated_answer_is_caught_by_the_engine():
    lesson = parse_lesson(_replace("answer: 2, 6, 10, 13", "answer: 2, 6, 10"), "wrong.md")
    with pytest.raises(LessonError, match=r"^wrong\.md:16: .* is '2, 6, 10', but the engine computes '10, 13, 2, 6'"):
        check_answers(lesson)


def test_a_bad_file_does_not_stop_the_others(tmp_path):
    (tmp_path / "a_good.md").write_text(GOOD)
    (tmp_path / "b_bad.md").write_text(_state("/nope"))
    (tmp_path / "c_binary.md").write_bytes(b"---\ntitle: \xff\n")
    (tmp_path / "README.md").write_text("not a lesson")
    lessons, errors = load_lessons(tmp_path)
    assert [x.id for x in lessons] == ["a_good"]
    assert [str(e).split(":")[0:2] for e in errors] == [["b_bad.md", "21"], ["c_binary.md", "2"]]


# ---------------------------------------------------------------------- the shipped lessons

def test_the_shipped_lessons_load_without_error():
    lessons, errors = load_lessons()
    assert errors == []
    ids = [x.id for x in lessons]
    assert ids[0] == "first_class" and lessons[0].minutes == 50
    assert set(ids) >= {"first_class", "cover", "online_marginals", "belief_propagation", "tree_hedge", "ofde",
                        "rta", "htmm"}
    for lesson in lessons:
        assert sum(s.minutes for s in lesson.steps) == lesson.minutes
        assert lesson.papers and lesson.audience
        text = (LESSONS_DIR / f"{lesson.id}.md").read_text()
        assert "seed 0" not in text.lower() and "00" + "1_" not in text  # papers by title, never a file number


def test_every_checkable_question_is_computed_by_the_engine():
    """A question the app checks (not one it only reveals) must name the engine computation that
    proves its answer."""
    for lesson in load_lessons()[0]:
        for step in lesson.steps:
            q = step.question
            if q is not None and q.kind != "reveal":
                assert q.computed is not None, (lesson.id, step.title)


@pytest.mark.slow
def test_every_computed_answer_of_every_lesson_is_right():
    """Recompute every answer (runs TREE-HEDGE, OFDE, RTA and both HTMMs once each)."""
    total = 0
    for lesson in load_lessons()[0]:
        total += check_answers(lesson)
    assert total >= 30


def test_every_computation_is_used_or_documented():
    used = {s.question.computed[0] for lesson in load_lessons()[0] for s in lesson.steps
            if s.question is not None and s.question.computed is not None}
    for name, comp in COMPUTATIONS.items():
        assert comp.help, name
    assert used <= set(COMPUTATIONS)


def test_compute_refuses_a_computation_on_the_wrong_page(tmp_path):
    text = _replace("state: /cover_inspector?tree=figure1&root=1&t=0", "state: /online_marginals?tree=figure1")
    lesson = parse_lesson(text, "x.md")
    with pytest.raises(Exception, match="answers questions on /cover_inspector"):
        compute(lesson.steps[0])


def test_read_lesson_refuses_a_huge_file(tmp_path):
    p = tmp_path / "huge.md"
    p.write_text(GOOD + "x" * 600_000)
    with pytest.raises(LessonError, match="^huge.md:1: .*limit of 524,288 bytes of one lesson file"):
        read_lesson(p)


# ---------------------------------------------------------------------- the command line

def _cli(*args):
    return engine_cli("lessons", *args, cwd=ROOT)


def test_cli_lessons_list_json():
    r = _cli("list", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data[0]["id"] == "first_class"
    for d in data:
        assert set(d) == {"id", "title", "minutes", "steps"}
        for s in d["steps"]:
            assert set(s) <= {"title", "url", "question"} and s["url"].startswith("/")
    assert len(data) == len(lesson_files())


def test_cli_lessons_check_names_each_bad_file(tmp_path):
    (tmp_path / "good.md").write_text(GOOD)
    (tmp_path / "bad1.md").write_text(_state("/nope"))
    (tmp_path / "bad2.md").write_text(_replace("answer: 2, 6, 10, 13", "answer: 2"))
    r = _cli("check", "--dir", str(tmp_path))
    assert r.returncode == 2
    errors = [x for x in r.stderr.splitlines() if x.startswith("error:")]
    assert errors == [
        "error: bad1.md:21: bad state '/nope': unknown page /nope; pages: " + ", ".join(
            "/" + p for p in __import__("workbench.declarations.page_table", fromlist=["PAGES"]).PAGES),
        "error: bad2.md:16: the answer of step 'First' is '2', but the engine computes '10, 13, 2, 6' (mergeable)",
    ]
    r = _cli("check", "--dir", str(tmp_path / "nowhere"))
    assert r.returncode == 2 and r.stderr.startswith("error:") and "no such folder" in r.stderr


def test_the_lessons_command_comes_from_the_declarations_through_an_entry_point(monkeypatch):
    """The engine imports no layer above it: ``lessons`` is the entry point of the app's
    declarations in the group ``tree_workbench.cli``, declared in pyproject.toml and installed."""
    import tomllib
    from importlib.metadata import EntryPoint

    import engine.cli
    from workbench.declarations import cli

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]
    assert declared[engine.cli.COMMANDS_GROUP] == {"lessons": "workbench.declarations.cli:register"}
    assert engine.cli._registrars()["lessons"] is cli.register        # the installed metadata has it
    assert not (ROOT / "engine" / "cli" / "lessons.py").exists()
    clash = EntryPoint("trees", "workbench.declarations.cli:register", engine.cli.COMMANDS_GROUP)
    monkeypatch.setattr(engine.cli, "entry_points", lambda group: [clash] if group == engine.cli.COMMANDS_GROUP else [])
    with pytest.raises(RuntimeError, match="entry point trees = workbench.declarations.cli:register"):
        engine.cli.build_parser()


def test_cli_lessons_check_good_folder(tmp_path):
    (tmp_path / "good.md").write_text(GOOD)
    r = _cli("check", "--dir", str(tmp_path))
    assert r.returncode == 0 and r.stdout.startswith("ok: 1 lessons, 2 steps, 1 computed answers")


def test_the_reference_in_docs_is_the_table_itself():
    from workbench.declarations.lessons.answers import computations_markdown
    from workbench.declarations.page_table import PAGES

    text = (ROOT / "docs" / "lessons.md").read_text()
    assert PAGES.markdown() in text, ("regenerate the table of docs/lessons.md from "
                                      "workbench.declarations.page_table.PAGES.markdown()")
    assert computations_markdown() in text
    for lesson in load_lessons()[0]:
        assert f"`{lesson.id}`" in text and f"| {lesson.minutes} |" in text


def test_a_practice_step():
    from workbench.declarations.lessons.format import parse_lesson

    head = "---\ntitle: T\nminutes: 5\naudience: a\n---\n## P\n"
    lesson = parse_lesson(head + "practice: 3 exercises of family cover_round\n\nSolve three.\n")
    step = lesson.steps[0]
    assert step.practice == (3, "cover_round") and step.url == "/practice?family=cover_round"
    assert parse_lesson(head + "practice: 2 htmm_posterior\nstate: /practice?family=htmm_posterior&seed=4\n\nGo.\n"
                        ).steps[0].practice == (2, "htmm_posterior")
    for bad, message in [("practice: 30 exercises of family cover_round", "1..20 exercises"),
                         ("practice: 3 exercises of family cover_rond", "did you mean cover_round"),
                         ("practice: many", "must read 'N exercises of family F'"),
                         ("practice: 1 cover_round\nquestion: Why?\nanswer: so", "a question and a practice")]:
        with pytest.raises(LessonError, match=message) as e:
            parse_lesson(head + bad + "\n\nText.\n")
        assert str(e.value).startswith("lesson.md:7: ") and "\n" not in str(e.value)
