"""The lessons in the app: read once per server, and the panel beside the page when one is open.

Lessons are the Markdown files of ``lessons/`` (:mod:`workbench.declarations.lessons`), or of the folder named by
``TREE_WORKBENCH_LESSONS``; they are read again when a file changes, so a lecturer can edit one
while the server runs. A bad file gives one error naming the file and the line (shown on the
landing page); the others load.

A lesson is open when the address says ``?lesson=ID&step=K``: the sidebar then shows the step
("step k of N", progress, what to look at), its question with an input by kind, Check and Reveal,
and Previous / Next, which move the page to that step's link (``st.switch_page`` with the link's
query). The lesson stays open while the user wanders to other pages, until it is closed.
"""

from __future__ import annotations

import time
from pathlib import Path

import streamlit as st

from engine.errors import LessonError
from engine.practice import FAMILIES
from workbench import address_bar, class_console, classroom, runner
from workbench.declarations.lessons import LESSONS_ENV, Lesson, lesson_files, lessons_folder, load_lessons
from workbench.declarations.page_spec import PageSpec
from workbench.declarations.page_table import PAGES
from workbench.navigation import script
from workbench.session import LessonState, PracticeState

__all__ = ["LESSONS_ENV", "lessons_folder", "all_lessons", "find_lesson", "go_to_step", "follow_query",
           "render_panel"]

S = LessonState()
PRACTICE = PracticeState()   # the Practice page's score, read by a practice step


@st.cache_resource(max_entries=4, show_spinner="Reading the lessons…")
def _load(folder: str, stamp: tuple) -> tuple[list[Lesson], list[LessonError]]:
    return load_lessons(Path(folder))


_STAMPS: dict[str, tuple[float, tuple]] = {}   # folder -> (when its files were looked at, their stamp)
#: How long a look at the lesson files' sizes and times serves (a page asks up to three times a run).
STAMP_SECONDS = 1.0


def all_lessons() -> tuple[list[Lesson], list[LessonError]]:
    """Every lesson that reads, and one error per file that does not (read again when a file
    changes; the files are looked at once a second at most)."""
    folder = lessons_folder()
    now = time.monotonic()
    seen = _STAMPS.get(str(folder))
    if seen is not None and now - seen[0] < STAMP_SECONDS:
        return _load(str(folder), seen[1])
    try:
        files = lesson_files(folder)
        stamp = tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    except (LessonError, OSError) as exc:
        _STAMPS.pop(str(folder), None)
        return [], [exc if isinstance(exc, LessonError) else LessonError(f"{folder}: {exc}", str(folder), 0)]
    _STAMPS[str(folder)] = (now, stamp)
    return _load(str(folder), stamp)


def find_lesson(lesson_id: str) -> Lesson | None:
    return next((x for x in all_lessons()[0] if x.id == lesson_id), None)


def go_to_step(lesson: Lesson, k: int) -> None:
    """Open step ``k`` (1 = the first) of ``lesson``: the page of its link, with its query."""
    k = min(max(int(k), 1), len(lesson.steps))
    link = PAGES.parse_link(lesson.steps[k - 1].url)
    query = dict(link.raw)
    query.update(lesson=lesson.id, step=str(k))
    _open(lesson, k)
    address_bar.reset_next(link.page.url_path)
    st.switch_page(script(link.page), query_params=query)


def follow_query(page: PageSpec) -> None:
    """Open the lesson and step the address names; a new step resets the page to the link's
    values (a parameter the link leaves out takes its default)."""
    classroom.join_from_query(find_lesson, go_to_step)
    lesson_id = address_bar.arrived(page.url_path, "lesson")
    step = address_bar.arrived(page.url_path, "step")
    if lesson_id is None and step is None:
        return
    lesson_id = st.query_params.get("lesson")
    if lesson_id is None:
        return
    lesson = find_lesson(lesson_id)
    if lesson is None:
        st.warning(f"The link names the lesson {lesson_id[:60]!r}, which is not among the lessons "
                   f"({', '.join(x.id for x in all_lessons()[0]) or 'none could be read'}).",
                   icon=":material/link_off:")
        del S.open
        return
    try:
        k = int(st.query_params.get("step", "1"))
    except ValueError:
        k = 1
    k = min(max(k, 1), len(lesson.steps))
    if S.open != (lesson.id, k):
        _open(lesson, k)
        address_bar.reset_next(page.url_path)


def _open(lesson: Lesson, k: int) -> None:
    """Step ``k`` of ``lesson`` is this session's open step; the server's runs ahead take the
    lesson's runs first (:func:`workbench.runner.lesson_opened`)."""
    S.open = (lesson.id, k)
    runner.lesson_opened(lesson.id, k)


def _close() -> None:
    del S.open


def render_panel(page: PageSpec) -> bool:
    """The open lesson's step in the sidebar (nothing when no lesson is open), below the class's
    block when the session is in a class (:mod:`workbench.classroom`); in a class, the class's
    part of the main area above the page (:mod:`workbench.class_console`). ``False`` when the
    page itself is not to be drawn (the lecturer's console, a student waiting for the lecturer)."""
    opened = S.open
    opened = tuple(opened) if opened else None
    classroom.panel(opened, find_lesson, go_to_step)
    lesson = find_lesson(opened[0]) if opened else None
    if opened and lesson is None:
        del S.open
        opened = None
    show = class_console.main_area(opened, lesson, go_to_step)
    if not opened:
        return show
    rec = classroom.current()
    in_class = rec is not None and rec.lesson == lesson.id
    k = opened[1]
    n = len(lesson.steps)
    step = lesson.steps[k - 1]
    go = None
    with st.sidebar:
        st.divider()
        with st.container(key=S.key("panel")):
            st.markdown(f"**{lesson.title}**")
            if in_class and classroom.role() == "lecturer":   # the console above the page has the controls
                st.button("Close the lesson", key=S.key("close"), on_click=_close, icon=":material/close:",
                          type="tertiary")
                return show
            if not in_class:   # in a class, the step counter is the one above the page
                st.progress(k / n, text=f"Step {k} of {n}" + (f" · {step.minutes} min" if step.minutes else ""))
            # an h2, a section of the page like the page's own (an h5 came before the page's h1: a
            # screen reader's list of headings jumped from level 5 to 1), drawn small (page_css)
            st.markdown(f"## {step.title}")
            if PAGES.parse_link(step.url).page.url_path != page.url_path:
                st.info("This step is on another page.", icon=":material/info:")
                if st.button("Show this step", key=S.key("show"), icon=":material/visibility:"):
                    go = k
            st.markdown(step.text)
            if step.question is not None and not in_class:   # a class's question is above the page
                _question(lesson, k, step.question)
            if step.practice is not None:
                _practice(lesson, k, *step.practice)
            c1, c2 = st.columns(2)
            if c1.button("Previous", key=S.key("prev"), icon=":material/arrow_back:", disabled=k == 1,
                         width="stretch"):
                go = k - 1
            if c2.button("Next", key=S.key("next"), icon=":material/arrow_forward:", disabled=k == n,
                         type="primary", width="stretch"):
                go = k + 1
            st.button("Close the lesson", key=S.key("close"), on_click=_close, icon=":material/close:",
                      type="tertiary")
    if go is not None:
        if go != k:
            classroom.moved(lesson, go)
        go_to_step(lesson, go)
    return show


def _practice(lesson: Lesson, k: int, n: int, family: str) -> None:
    """A practice step: N exercises of a family on the Practice page, counted from this session's
    score there (and reported to the class when the session is in one)."""
    score = PRACTICE.score
    tally = score.tally(family) if score is not None else None
    solved, attempts = (min(tally.solved, n), tally.attempts) if tally else (0, 0)
    st.markdown(f"**Practice.** Solve {n} exercise{'s' if n > 1 else ''} of *{FAMILIES[family].title}* on the "
                "Practice page (New exercise draws another).")
    st.progress(solved / n, text=f"{solved} of {n} solved · {attempts} attempt{'s' if attempts != 1 else ''}")
    if solved >= n:
        st.success("Done: on to the next step.", icon=":material/check_circle:")
    classroom.practice_step(lesson, k, n, solved, attempts)


def _question(lesson: Lesson, k: int, q) -> None:
    answers = S.setdefault("answers", {})
    key = (lesson.id, k)
    st.markdown(f"**Question.** {q.text}")
    response = None
    if q.kind == "choice":
        response = st.radio("Your answer", q.choices, index=None, key=S.key("q", lesson.id, k))
    elif q.kind == "vertices":
        response = st.text_input("Your answer: vertex names, separated by commas (none: leave empty)",
                                 key=S.key("q", lesson.id, k))
    elif q.kind == "number":
        response = st.text_input("Your answer: a number", key=S.key("q", lesson.id, k))
    c1, c2 = st.columns(2)
    if q.kind != "reveal" and c1.button("Check", key=S.key("check"), width="stretch"):
        if response is None or (isinstance(response, str) and not response.strip() and q.kind != "vertices"):
            answers[key] = "empty"
        else:
            answers[key] = "right" if q.check(response) else "wrong"
    if c2.button("Reveal", key=S.key("reveal"), width="stretch"):
        answers[key] = "revealed"
    state = answers.get(key)
    if state == "right":
        st.success("Right.", icon=":material/check_circle:")
    elif state == "wrong":
        st.warning("Not quite: look at the page again, or reveal the answer.", icon=":material/help:")
    elif state == "empty":
        st.info("Give an answer first, or reveal it.")
    if state in ("right", "revealed"):
        st.markdown(f"**Answer:** {q.answer}" + (f"  \n{q.why}" if q.why else ""))

