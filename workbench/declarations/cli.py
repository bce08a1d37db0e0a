"""Lesson commands of ``python -m engine``: ``lessons list`` (the lessons and their steps' links) and
``lessons check`` (every lesson file read, each link checked against the page table, each computed
answer recomputed).

The engine's command line does not import this layer: it finds :func:`register` through the entry
point ``lessons`` of the group ``tree_workbench.cli`` (``pyproject.toml``), as it finds its own
commands in ``engine/cli/``. Handlers import the lessons lazily, so ``--help`` answers at once.
"""

from __future__ import annotations

import sys

from engine.jsonio import print_json


def register(sub) -> None:
    p = sub.add_parser("lessons", help="list the lessons or check the lesson files")
    lsub = p.add_subparsers(dest="lessons_command", metavar="list|check", parser_class=type(p))
    lsub.required = True

    q = lsub.add_parser("list", help="the lessons, their minutes and each step's link")
    q.add_argument("--json", action="store_true",
                   help='print [{"id", "title", "minutes", "steps": [{"title", "url", "question"?}]}]')
    q.add_argument("--dir", default=None, help="the folder of lessons (default: lessons/)")
    q.set_defaults(handler=_list)

    q = lsub.add_parser("check", help="validate every lesson file (exit 2, one error: line per bad file)")
    q.add_argument("--dir", default=None, help="the folder of lessons (default: lessons/)")
    q.add_argument("--no-answers", action="store_true",
                   help="skip recomputing the answers the engine computes (some run a learner)")
    q.set_defaults(handler=_check)


def _report(errors) -> None:
    for e in errors:
        print(f"error: {e}", file=sys.stderr)


def _list(args) -> int:
    # start-up: the lessons read the page table, which loads NumPy, SciPy and the engine (1.5-2 s at
    # load 8 on 2 cores); every other command's --help would pay it if this were at the top
    from workbench.declarations.lessons import load_lessons

    lessons, errors = load_lessons(args.dir)
    if args.json:
        print_json([lesson.to_dict() for lesson in lessons])
    else:
        for lesson in lessons:
            print(f"{lesson.id}: {lesson.title} ({lesson.minutes} min, {len(lesson.steps)} steps)")
            for i, s in enumerate(lesson.steps, 1):
                print(f"  {i:>2}. {s.title}  {s.url}")
    _report(errors)
    return 2 if errors else 0


def _check(args) -> int:
    from engine.errors import LessonError
    from workbench.declarations.lessons import lesson_files, read_lesson   # start-up: as in _list
    from workbench.declarations.lessons.answers import check_answers

    errors = []
    files = lesson_files(args.dir)
    steps = answers = 0
    for i, path in enumerate(files, 1):
        try:
            lesson = read_lesson(path)
            n = 0 if args.no_answers else check_answers(lesson)
        except LessonError as exc:
            errors.append(exc)
            print(f"[{i}/{len(files)}] {path.name}: bad", file=sys.stderr, flush=True)
            continue
        steps += len(lesson.steps)
        answers += n
        print(f"[{i}/{len(files)}] {path.name}: {len(lesson.steps)} steps"
              + ("" if args.no_answers else f", {n} computed answers agree"), file=sys.stderr, flush=True)
    _report(errors)
    if errors:
        return 2
    print(f"ok: {len(files)} lessons, {steps} steps"
          + ("" if args.no_answers else f", {answers} computed answers agree with the engine"))
    return 0
