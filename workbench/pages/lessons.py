"""Lessons: where a class starts. Every lesson of ``lessons/`` with its minutes, audience and
steps; "Start" opens its first step, and the panel beside the page leads from step to step."""

from __future__ import annotations

import html
from functools import partial

import streamlit as st

from engine.classroom import DEFAULT_HOURS
from engine.errors import ClassError
from engine.files import public_message
from workbench import address_bar, classroom, identity
from workbench.class_console import downloads
from workbench.classroom import local_time
from workbench.components import beside_buttons
from workbench.declarations.page_table import PAGES
from workbench.lesson_panel import all_lessons, find_lesson, go_to_step, lessons_folder
from workbench.navigation import script
from workbench.session import LessonState

C, L = classroom.ClassState(), LessonState()

address_bar.page_head("lessons", "Lessons",
                "Each lesson is a path through the workbench, written by a lecturer as a Markdown file: a step "
                "moves a page to a prepared view, says what to look at, and asks the class a question before "
                "revealing the answer. Start one, and the panel on the left leads from step to step; or open "
                "any page from the menu and explore.")

lessons, errors = all_lessons()
for err in errors:
    st.error(public_message(err), icon=":material/error:")
if not lessons:
    st.info(f"No lesson could be read from the folder {lessons_folder().name!r}. A lesson is a Markdown file; "
            "docs/lessons.md says how to write one.")
    st.stop()


def _join_box() -> None:
    with st.form(C.key("join_form"), border=True, enter_to_submit=True):
        c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
        code = c1.text_input("Join a class: the code the lecturer shows", key=C.key("join_code"), max_chars=20,
                             placeholder="e.g. K7M3QX")
        if c2.form_submit_button("Join", icon=":material/group_add:", width="stretch"):
            try:
                classroom.join(code, find_lesson, go_to_step)
            except ClassError as exc:
                st.error(str(exc), icon=":material/group_off:")


def _my_class(lid: str) -> None:
    """The class this lecturer leads: what to project (code, link, QR), and its controls."""
    rec = classroom.current()
    if rec is None or classroom.role() != "lecturer":
        return
    store = classroom.class_store()
    with st.container(border=True, key=C.key("dashboard")):
        st.subheader(f"Your class: {rec.code}", anchor=False)
        st.html(f"<p style='font-size:3rem;font-weight:700;letter-spacing:0.3em;margin:0'>{html.escape(rec.code)}</p>")
        left, right = st.columns([2, 1])
        link = classroom.join_link(rec.code)
        with left:
            st.markdown(f"Students join with the code **{rec.code}** in the box above, or with the link:")
            st.code(link, language=None)
            unreachable = classroom.student_root()[1]
            if unreachable:
                st.warning(unreachable, icon=":material/wifi_off:")
            state = "open until" if rec.is_open() else "closed at"
            st.caption(f"Lesson {rec.lesson} · step {rec.step} · {state} {local_time(rec.closes_at)}"
                       + (" · nicknames asked" if rec.nicknames else " · anonymous answers")
                       + ("" if rec.started else " · students who join wait until you start"))
            classroom.presence_line(rec.code)
            lesson = find_lesson(rec.lesson)
            if lesson is not None:
                downloads(rec, lesson, keys=classroom.ClassState)
            if lesson is not None and st.button(("Start the lesson" if not rec.started else
                                                 f"Go to step {rec.step} of the lesson"), key=C.key("go"),
                                                type="primary", icon=":material/play_arrow:"):
                k = min(rec.step, len(lesson.steps))
                classroom.start(lesson, k)
                go_to_step(lesson, k)
            if rec.is_open() and st.button("Close the class now", key=C.key("close"), icon=":material/lock:"):
                store.close_class(rec.code, lecturer=lid)
                classroom.changed(rec.code)
                st.rerun()
        right.image(classroom.qr_png(link), caption=f"Scan to join {rec.code}", width=240,
                    alt=f"QR code of the join link of class {rec.code}")


def _questions(rec) -> dict[int, str]:
    lesson = find_lesson(rec.lesson)
    if lesson is None:
        return {}
    return {k: s.question.text for k, s in enumerate(lesson.steps, 1) if s.question is not None}


def _my_classes(lid: str) -> None:
    store = classroom.class_store()
    mine = store.classes(lecturer=lid)
    if not mine:
        return
    with st.expander(f"Your classes ({len(mine)})"):
        for rec in mine:
            c1, c2, c3, c4 = st.columns([3, 1, 1, 1], vertical_alignment="center")
            n = len(store.answers(rec.code, lecturer=lid))
            c1.markdown(f"**{rec.code}** · {rec.lesson} · step {rec.step} · {n} answers · "
                        + ("open" if rec.is_open() else f"closed {local_time(rec.closes_at)}"))
            if c2.button("Lead", key=C.key("resume", rec.code), icon=":material/co_present:", width="stretch"):
                try:
                    classroom.resume(rec.code, find_lesson, go_to_step)
                except ClassError as exc:
                    st.error(str(exc))
            c3.download_button("CSV", data=partial(store.export_csv, rec.code, lecturer=lid, questions=_questions(rec)),
                               file_name=f"class-{rec.code}.csv", mime="text/csv", key=C.key("csv", rec.code),
                               on_click="ignore", width="stretch")
            if c4.button("Delete", key=C.key("delete", rec.code), icon=":material/delete:", width="stretch"):
                if classroom.current() is not None and classroom.current().code == rec.code:
                    classroom.leave()
                store.delete(rec.code, lecturer=lid)
                classroom.changed(rec.code)
                st.rerun()


_join_box()
identity.sign_in_form()
lecturer = classroom.lecturer_id()
lead_options = None
if lecturer is not None:
    _my_class(lecturer)
    _my_classes(lecturer)
    with st.container(border=True, key=C.key("lead_options")):
        st.markdown("**Lead a class.** Open a class on a lesson below: students join with its code and follow you "
                    "from step to step, and each step's question becomes a live poll.")
        c1, c2 = st.columns(2)
        hours = c1.number_input("The class closes after (hours)", min_value=0.25, max_value=24.0,
                                value=DEFAULT_HOURS, step=0.25, key=C.key("hours"))
        nicknames = c2.toggle("Ask the students for nicknames", key=C.key("nicknames"),
                              help="Off: answers are anonymous.")
        lead_options = (hours, nicknames)

start = None
lead = None
for lesson in lessons:
    with st.container(border=True, key=L.key("card", lesson.id)):
        head, button = beside_buttons()
        with head:
            st.header(lesson.title, anchor=False)
            st.caption(f"{lesson.minutes} minutes · {len(lesson.steps)} steps · for {lesson.audience}")
            if lesson.papers:
                st.caption(f"From {lesson.papers}")
            if lesson.intro:
                st.markdown(lesson.intro)
        if button.button("Start", key=L.key("start", lesson.id), type="primary", icon=":material/play_arrow:",
                         width="stretch"):
            start = lesson
        if lead_options is not None and button.button("Lead a class", key=L.key("lead", lesson.id),
                                                      icon=":material/co_present:", width="stretch"):
            lead = lesson
        with st.expander(f"The {len(lesson.steps)} steps"):
            for k, step in enumerate(lesson.steps, 1):
                link = PAGES.parse_link(step.url)
                query = dict(link.raw, lesson=lesson.id, step=str(k))
                label = f"{k}. {step.title}" + (f" ({step.minutes} min)" if step.minutes else "") \
                    + f" · {link.page.title}" + (" · question" if step.question is not None else "")
                st.page_link(script(link.page), label=label, query_params=query)

if lead is not None:
    classroom.lead(lead, hours=lead_options[0], nicknames=lead_options[1])
    st.rerun()
if start is not None:
    go_to_step(start, 1)
