"""Browser: a lecturer and three students in separate browser contexts. The students join by code
(two by the box, one by the join link) and wait until the lecturer starts; they follow over three
steps (the step counter and question above the page), answer a poll; the
lecturer sees three answers and reveals; every student sees the answer and the class's distribution.
A reload keeps a student's seat (the seat cookie); leaving the class clears it; the lecturer
downloads the poll's answers as CSV.
Screenshots in tests/browser/screenshots/ (class_*.png)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from workbench.declarations.lessons import load_lessons
from tests.browser.conftest import (class_people, join_class, says, serve_class_app, shot, sign_in_lecturer,
                                    wait_for_app)

pytestmark = pytest.mark.browser

SECRET = "browser-lecturer-token-5c1d"
LESSON = next(x for x in load_lessons()[0] if x.id == "first_class")
POLL_STEP = 4  # "From which iteration are all beliefs of this tree exact?" (a number)


@pytest.fixture(scope="module")
def class_url(chromium, tmp_path_factory):
    with serve_class_app(tmp_path_factory, "class", SECRET) as url:
        yield url


def _panel_says(page, text: str, timeout: float = 30_000) -> None:
    says(page, "[data-testid='stSidebar']", text, timeout)


def test_lecturer_and_three_students(browser, class_url):
    n = len(LESSON.steps)
    q = LESSON.steps[POLL_STEP - 1].question
    assert q is not None and q.kind == "number"
    with class_people(browser, "class", *[{"viewport": {"width": 1400, "height": 1000}}] * 4) as (lect, *students):

        # the lecturer opens a class: code, join link and QR code
        lect.goto(f"{class_url}/")
        wait_for_app(lect, timeout=120_000)
        sign_in_lecturer(lect, SECRET)
        assert SECRET not in lect.url and SECRET not in lect.content()
        lect.locator(".st-key-lesson_lead_first_class button").click()
        says(lect, "[data-testid='stMain']", "Your class: ", 60_000)
        wait_for_app(lect)
        head = lect.locator(".st-key-class_dashboard h3").inner_text()
        code = re.search(r"Your class: ([A-Z0-9]{6})", head).group(1)
        assert lect.locator(".st-key-class_dashboard img").count() >= 1
        shot(lect, "class_lecturer_dashboard")

        # three students join: two with the code in the box, one with the join link
        for k, s in enumerate(students):
            join_class(s, class_url, code, by_link=k == 1)
            _panel_says(s, f"Class {code} · following the lecturer", 60_000)
            says(s, "[data-testid='stMain'] h1", "Waiting for the lecturer", 60_000)   # not started yet
            page_text = s.content()
            assert SECRET not in page_text and SECRET not in s.url
        shot(students[0], "class_student_joined")

        # the lecturer goes to the lesson, sees the followers, and moves three steps: they follow
        lect.locator(".st-key-class_go button").click()
        says(lect, ".st-key-class_console", f"Step 1 of {n}", 60_000)
        says(lect, ".st-key-class_console", "3 connected · 3 following", 30_000)
        for k in range(2, POLL_STEP + 1):
            wait_for_app(lect, timeout=120_000)
            lect.locator(".st-key-lesson_next button").first.click()
            says(lect, ".st-key-class_console", f"Step {k} of {n}", 60_000)
            for s in students:
                says(s, ".st-key-class_student", f"Step {k} of {n}", 60_000)
        shot(students[2], "class_student_followed")

        # the poll: each student answers (one of them wrong), the lecturer sees three answers
        answers = [q.answer, q.answer, "7"]
        for s, a in zip(students, answers):
            wait_for_app(s, timeout=120_000)
            s.locator(f".st-key-class_q_{code}_{POLL_STEP} input").fill(a)
            s.locator(".st-key-class_send button").click()
            says(s, ".st-key-class_student", "Your answer is in", 30_000)
        says(lect, ".st-key-class_console", "3 answered", 30_000)

        # a reload is a new Streamlit session: the seat cookie puts the student back in the class,
        # following, on the same seat (the answer is still theirs, and counted once)
        seat = [c for c in students[0].context.cookies() if c["name"] == "tree_workbench_seat"]
        assert len(seat) == 1 and seat[0]["value"] == code and seat[0]["sameSite"] == "Strict", seat
        assert SECRET not in seat[0]["value"]
        students[0].reload()
        _panel_says(students[0], f"Class {code} · following the lecturer", 60_000)
        says(students[0], ".st-key-class_student", f"Step {POLL_STEP} of {n}", 60_000)
        says(students[0], ".st-key-class_student", f"Your answer is in: {answers[0]}", 60_000)
        says(lect, ".st-key-class_console", "3 answered", 30_000)
        assert "engine's answer" not in lect.locator(".st-key-class_console").inner_text()
        shot(lect, "class_lecturer_three_answers")

        # reveal: every student sees the answer and the distribution
        wait_for_app(lect)
        lect.locator(".st-key-class_reveal button").first.click()
        says(lect, ".st-key-class_console", "engine's answer", 30_000)
        for s, a in zip(students, answers):
            says(s, ".st-key-class_student", f"Answer: {q.answer}", 30_000)
            says(s, ".st-key-class_student", "3 answered, 2 right", 30_000)
            says(s, ".st-key-class_student", "right." if a == q.answer else "not quite.", 30_000)
        shot(lect, "class_lecturer_revealed")

        # the lecturer downloads the answers: one row per student, the answers as sent, judged
        wait_for_app(lect)
        with lect.expect_download(timeout=30_000) as dl:
            lect.locator(".st-key-console_csv_all button").first.click()
        rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text(encoding="utf-8"))))
        assert dl.value.suggested_filename == f"class-{code}.csv"
        assert sorted(r["answer"] for r in rows) == sorted(answers), rows
        assert sorted(r["right"] for r in rows) == ["no", "yes", "yes"], rows
        assert {r["class"] for r in rows} == {code} and {r["step"] for r in rows} == {str(POLL_STEP)}
        assert all(SECRET not in str(r) for r in rows)
        shot(students[2], "class_student_revealed")
        for s in students:
            assert SECRET not in s.content()

        # leaving the class clears the seat: a reload then opens the app outside the class
        gone = students[2]
        gone.get_by_role("button", name="Leave the class").click()
        gone.wait_for_function("() => !document.cookie.includes('tree_workbench_seat=')", timeout=30_000)
        gone.reload()
        wait_for_app(gone, timeout=120_000)
        assert f"Class {code}" not in gone.locator("[data-testid='stSidebar']").inner_text()
