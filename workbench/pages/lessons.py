"""Lessons: where a class starts. Every lesson of ``lessons/`` with its minutes, audience and
steps; "Start" opens its first step, and the panel beside the page leads from step to step."""

from __future__ import annotations

import streamlit as st

from engine.files import public_message
from engine.pagespecs import PAGES
from workbench import links
from workbench.lesson_panel import all_lessons, go_to_step, lessons_folder
from workbench.navigation import script

links.page_head("lessons", "Lessons",
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

start = None
for lesson in lessons:
    with st.container(border=True, key=f"lesson_card_{lesson.id}"):
        head, button = st.columns([6, 1], vertical_alignment="top")
        with head:
            st.header(lesson.title, anchor=False)
            st.caption(f"{lesson.minutes} minutes · {len(lesson.steps)} steps · for {lesson.audience}")
            if lesson.papers:
                st.caption(f"From {lesson.papers}")
            if lesson.intro:
                st.markdown(lesson.intro)
        if button.button("Start", key=f"lesson_start_{lesson.id}", type="primary", icon=":material/play_arrow:",
                         width="stretch"):
            start = lesson
        with st.expander(f"The {len(lesson.steps)} steps"):
            for k, step in enumerate(lesson.steps, 1):
                link = PAGES.parse_link(step.url)
                query = dict(link.raw, lesson=lesson.id, step=str(k))
                label = f"{k}. {step.title}" + (f" ({step.minutes} min)" if step.minutes else "") \
                    + f" · {link.page.title}" + (" · question" if step.question is not None else "")
                st.page_link(script(link.page), label=label, query_params=query)

if start is not None:
    go_to_step(start, 1)
