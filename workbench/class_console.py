"""The class in the room: the lecturer's console and the student's question, at the top of the main
area of the step's page (the sidebar keeps only the lesson's title and text).

- **The lecturer's console** (:func:`console`): one row that stays inside the first screen at
  1280x720 in light, dark and Presenter mode -- Back, Next, Reveal, the step and a switch between
  the console and the step's page (the algorithm's view, one click each way). The console itself:
  the question and the class's answers as a projector-size chart (the engine's answer marked after
  Reveal), how many are connected and answered, the step's text with its maths, and the join code
  in large type with its QR code and the address students reach (:func:`workbench.classroom.
  student_root`); the answers and a summary per question to download, times in the lecturer's own
  time zone.
- **The student's bar** (:func:`student_bar`): the class, the one step counter and the step's
  question with its answer box and Send, at the top of whatever page the step opens, inside a
  phone's first screen. No Reveal: the answer comes when the lecturer reveals it. A student who
  joins before the lecturer starts sees a screen that says so, and the page moves by itself when
  the lesson starts.
"""

from __future__ import annotations

import html
from pathlib import Path
from functools import partial

import streamlit as st

from engine.classroom import ClassRecord
from workbench.declarations.lessons import Lesson
from workbench import classroom
from workbench.figures.class_figures import poll_figure, poll_text
from workbench.figures.style import current as current_style
from workbench.session import LessonState, SessionState

__all__ = ["console", "student_bar", "main_area", "downloads", "ConsoleState", "ConsoleDownloads"]

class ConsoleState(SessionState, prefix="class"):
    """The class's part of the main area (its element keys are what the browser tests and
    benchmarks/class_scenario.py press)."""

    console_mode: str = "console"     # the lecturer's view: the console, or the step's page ("page")
    poll_figure: tuple | None = None  # (what it shows, the figure) of the poll's answers
    console: None = None              # the elements: the lecturer's console
    controls: None = None             # ... its controls
    reveal: bool = False              # ... reveal the answer
    console_toggle: bool = False      # ... the page or the console
    poll_chart: None = None           # ... the poll's answers
    top: None = None                  # ... back to the page's top when the step changes
    student: None = None              # a student's bar


class ConsoleDownloads(SessionState, prefix="console"):
    """The class's CSV downloads on the console (the browser tests press them by these keys)."""

    csv_all: None = None              # the class's answers
    csv_summary: None = None          # ... and its summary per question


S, LESSON = ConsoleState(), LessonState()


def main_area(opened: tuple[str, int] | None, lesson: Lesson | None, go) -> bool:
    """The class's part of the main area above the page (nothing outside a class, or on another
    lesson); ``False`` when the page itself is not to be drawn (the lecturer's console, a student
    waiting for the lecturer)."""
    rec = classroom.current()
    if rec is None or lesson is None or opened is None or rec.lesson != lesson.id:
        if rec is not None and classroom.role() == "student" and rec.started is None:
            return _waiting(rec)
        return True
    k = opened[1]
    if classroom.role() == "lecturer":
        return console(rec, lesson, k, go)
    if rec.started is None:
        return _waiting(rec)
    student_bar(rec, lesson, k)
    return True


def _move(lesson: Lesson, k: int, go) -> None:
    classroom.moved(lesson, k)
    go(lesson, k)


_TOP = st.components.v2.component("tree_workbench.class_top", html="",
                                  js=(Path(__file__).resolve().parent / "assets" / "class_top.js").read_text(encoding="utf-8"))


def _top(code: str, k: int) -> None:
    """The page back at its top when the class's step changes (see ``assets/class_top.js``)."""
    _TOP(key=S.key("top"), data={"step": f"{code}/{k}"})


def _toggle() -> None:
    S.console_mode = "console" if S.console_mode == "page" else "page"


def console(rec: ClassRecord, lesson: Lesson, k: int, go) -> bool:
    """The lecturer's console for step ``k`` of ``lesson``; ``True`` when the step's page is drawn
    below the controls instead of the console."""
    n = len(lesson.steps)
    step = lesson.steps[k - 1]
    q = step.question
    store = classroom.class_store()
    on_page = S.console_mode == "page"
    revealed = q is not None and store.poll(rec.code, k).revealed
    target = None
    with st.container(key=S.key("console")):
        _top(rec.code, k)
        with st.container(horizontal=True, vertical_alignment="center", key=S.key("controls")):
            if st.button("Back", key=LESSON.key("prev"), icon=":material/arrow_back:", disabled=k == 1):
                target = k - 1
            if st.button("Next", key=LESSON.key("next"), icon=":material/arrow_forward:", disabled=k == n, type="primary"):
                target = k + 1
            if q is not None and not revealed:
                st.button("Reveal", key=S.key("reveal"), icon=":material/visibility:", on_click=classroom.reveal,
                          args=(rec.code, k), help="Show the class the engine's answer and everyone's answers")
            st.button("Show the page" if not on_page else "Show the console", key=S.key("console_toggle"),
                      icon=":material/web:" if not on_page else ":material/co_present:", on_click=_toggle,
                      help="The step's page (the algorithm's view) or the console for the projector")
            st.markdown(f"**{rec.code}** · **Step {k} of {n}**: {step.title}"
                        + (" · :material/check_circle: revealed" if revealed else ""), width="content")
        if not on_page:
            _console_body(rec, lesson, k, revealed)
    if target is not None:
        _move(lesson, target, go)
    return on_page


def _console_body(rec: ClassRecord, lesson: Lesson, k: int, revealed: bool) -> None:
    step = lesson.steps[k - 1]
    q = step.question
    st.title(f"{lesson.title}", anchor=False)
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.markdown(f"## {step.title}")
        classroom.presence_line(rec.code)
        if q is not None:
            st.markdown(f"### {q.text}")
            if classroom.is_polling(lesson, k):
                _poll(rec.code, lesson, k)
            elif revealed:
                st.markdown(f"**Answer:** {q.answer}" + (f"  \n{q.why}" if q.why else ""))
        elif step.practice is not None:
            classroom.practice_step(lesson, k, step.practice[0], 0, 0)
        with st.expander("The step's text", expanded=q is None):
            st.markdown(step.text)
    with right:
        link = classroom.join_link(rec.code)
        st.html(f"<p style='font-size:clamp(2.2rem, 4.5vw, 4rem);font-weight:800;letter-spacing:0.08em;"
                f"line-height:1.1;margin:0;overflow-wrap:anywhere' "
                f"aria-label='Class code {html.escape(' '.join(rec.code))}'>{html.escape(rec.code)}</p>")
        st.image(classroom.qr_png(link), caption=f"Scan to join {rec.code}", width=220,
                 alt=f"QR code of the join link of class {rec.code}")
        # the address wraps (a code block scrolled sideways: a region the keyboard could not reach)
        st.html(f"<p style='font-family:monospace;font-size:1.1rem;overflow-wrap:anywhere;margin:0'>"
                f"{html.escape(link)}</p>")
        unreachable = classroom.student_root()[1]
        if unreachable:
            st.warning(unreachable, icon=":material/wifi_off:")
        state = "open until" if rec.is_open() else "closed at"
        st.caption(f"{state} {classroom.local_time(rec.closes_at)}" + (" · nicknames asked" if rec.nicknames else
                                                            " · anonymous answers"))
        downloads(rec, lesson)


def downloads(rec: ClassRecord, lesson: Lesson, *, keys: type[SessionState] = ConsoleDownloads) -> None:
    """The class's answers (with right or wrong) and its summary per question, as CSV files, keyed by
    the ``csv_all`` and ``csv_summary`` of ``keys`` (the Lessons page draws them too, with its own)."""
    lid = classroom.lecturer_id()
    if lid is None:
        return
    store = classroom.class_store()
    questions = {i: s.question.text for i, s in enumerate(lesson.steps, 1) if s.question is not None}
    checks = {i: s.question.check for i, s in enumerate(lesson.steps, 1)
              if s.question is not None and s.question.kind != "reveal"}
    tz = classroom.browser_zone()
    # one under the other: side by side in the console's narrow column their names were cut ("All ans…")
    st.download_button("All answers (CSV)", key=keys.key("csv_all"),
                       data=partial(store.export_csv, rec.code, lecturer=lid, questions=questions, checks=checks, tz=tz),
                       file_name=f"class-{rec.code}.csv", mime="text/csv", icon=":material/download:",
                       on_click="ignore", width="stretch")
    st.download_button("Summary (CSV)", key=keys.key("csv_summary"),
                       data=partial(store.summary_csv, rec.code, lecturer=lid, questions=questions, checks=checks),
                       file_name=f"class-{rec.code}-summary.csv", mime="text/csv", icon=":material/summarize:",
                       on_click="ignore", width="stretch",
                       help="Per question: how many answered, how many were right, the median seconds to answer")




@st.fragment(run_every=classroom.LECTURER_SECONDS)
def _poll(code: str, lesson: Lesson, k: int) -> None:
    """The class's answers, read every second: counts and the chart (built again only when the
    counts change)."""
    lid = classroom.lecturer_id()
    if lid is None:
        return
    store = classroom.class_store()
    poll = store.poll(code, k)
    p = store.presence(code)
    answers = [a.answer for a in store.answers(code, lecturer=lid, step=k)]
    d = classroom.poll_distribution(lesson, k, answers, revealed=poll.revealed)
    st.markdown(f"**{poll.count}** answered of {p.connected} connected"
                + (f" · **{d.right}** right" if d.right is not None else ""))
    rows = d.rows()
    if rows:
        style = current_style()
        memo = S.poll_figure
        key = (code, k, tuple(rows), poll.revealed, style)
        if memo is None or memo[0] != key:
            memo = (key, poll_figure(rows, revealed=poll.revealed, style=style))
            S.poll_figure = memo
        st.plotly_chart(memo[1], key=S.key("poll_chart"), config=style.plotly_config())
    st.caption(poll_text(rows, d.total, revealed=poll.revealed))
    q = lesson.steps[k - 1].question
    if poll.revealed:
        st.markdown(f"**Answer:** {q.answer}" + (f"  \n{q.why}" if q.why else ""))


def _waiting(rec: ClassRecord) -> bool:
    st.title("Waiting for the lecturer", anchor=False)
    st.info(f"You are in class **{rec.code}**. The lesson has not started yet: this page moves by itself "
            "when the lecturer starts it.", icon=":material/hourglass_top:")
    return False


def student_bar(rec: ClassRecord, lesson: Lesson, k: int) -> None:
    """The class, the step and its question at the top of the page (a student in a class)."""
    n = len(lesson.steps)
    step = lesson.steps[k - 1]
    q = step.question
    with st.container(key=S.key("student"), border=True):
        _top(rec.code, k)
        st.markdown(f"**Class {rec.code}** · **Step {k} of {n}**: {step.title}")
        if q is None:
            return
        if classroom.is_polling(lesson, k):
            st.markdown(f"**{q.text}**")
            classroom.student_poll(rec, lesson, k)
        elif k in rec.revealed:
            st.markdown(f"**{q.text}**  \n**Answer:** {q.answer}" + (f"  \n{q.why}" if q.why else ""))
        else:
            st.markdown(f"**{q.text}**")
            st.caption("Think about it: the lecturer reveals the answer.")
