"""Lessons: Markdown files a lecturer writes, each a path through the workbench's pages.

A lesson has a title, its minutes, its audience and steps; a step has a few lines on what happens
and what to look at, the app state as a link (a page and its query parameters, see
:mod:`workbench.declarations.page_table`), and optionally a question with the answer the app checks or reveals. The
format is in :mod:`workbench.declarations.lessons.format`; answers the engine can compute are in
:mod:`workbench.declarations.lessons.answers`.

:func:`load_lessons` reads a folder: a bad file gives one :class:`~engine.errors.LessonError`
naming the file and line, and the other lessons still load.

>>> lessons, errors = load_lessons()
>>> errors
[]
>>> lessons[0].id, lessons[0].minutes
('first_class', 50)
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.errors import EngineError, LessonError, LimitExceededError
from engine.files import read_input
from workbench.declarations.lessons.answers import check_answers as _check
from workbench.declarations.lessons.format import Lesson, Question, Step, parse_lesson

__all__ = [
    "LESSONS_DIR",
    "LESSONS_ENV",
    "Lesson",
    "LessonError",
    "Question",
    "Step",
    "lesson_files",
    "lessons_folder",
    "load_lessons",
    "parse_lesson",
    "read_lesson",
]

#: The folder of lessons (``lessons/`` at the top of a checkout in a checkout).
LESSONS_DIR = Path(__file__).resolve().parents[3] / "lessons"
#: The environment variable naming another folder of lessons for the app.
LESSONS_ENV = "TREE_WORKBENCH_LESSONS"


def lessons_folder() -> Path:
    """The folder of lessons the app reads: ``$TREE_WORKBENCH_LESSONS``, else ``lessons/`` of the checkout."""
    env = os.environ.get(LESSONS_ENV, "").strip()
    return Path(env) if env else LESSONS_DIR


def lesson_files(folder: Path | None = None) -> list[Path]:
    """The ``.md`` files of ``folder`` (default :data:`LESSONS_DIR`), by name; README.md excluded."""
    d = LESSONS_DIR if folder is None else Path(folder)
    if not d.is_dir():
        raise LessonError(f"{d}: no such folder of lessons", str(d), 0)
    return sorted(p for p in d.iterdir() if p.suffix == ".md" and p.is_file() and p.name.lower() != "readme.md")


def read_lesson(path, *, check_states: bool = True) -> Lesson:
    """Read and validate one lesson file."""
    path = Path(path)
    try:  # the size limit of a lesson (lesson_bytes) is checked by parse_lesson
        data = read_input(path, label=f"{path.name}:1", error=LessonError)
    except LimitExceededError as exc:
        raise LessonError(f"{path.name}:1: {exc}", path.name, 1) from None
    except LessonError as exc:
        raise LessonError(str(exc), path.name, 1) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise LessonError(f"{path.name}:{line}: not UTF-8 text", path.name, line) from None
    return parse_lesson(text, str(path), check_states=check_states)


def load_lessons(folder: Path | None = None, *, check_states: bool = True,
                 check_answers: bool = False) -> tuple[list[Lesson], list[LessonError]]:
    """Every lesson of ``folder`` that reads, sorted by ``order`` then id, and one error per file
    that does not. ``check_answers`` also recomputes the answers the engine can compute (slower:
    some of them run a learner)."""
    lessons: list[Lesson] = []
    errors: list[LessonError] = []
    for p in lesson_files(folder):
        try:
            lesson = read_lesson(p, check_states=check_states)
            if check_answers:
                _check(lesson)
            lessons.append(lesson)
        except LessonError as exc:
            errors.append(exc)
        except EngineError as exc:  # pragma: no cover - parse_lesson wraps what it raises
            errors.append(LessonError(f"{p.name}:0: {exc}", p.name, 0))
    lessons.sort(key=lambda x: (x.order, x.id))
    return lessons, errors
