"""The Practice page in Chromium: a link opens an exercise, a wrong answer shows the hint and the
worked solution, the right one is marked right and counted in the score."""

import pytest

from engine.practice import make
from tests.browser.conftest import shot, wait_for_app

pytestmark = pytest.mark.browser


def test_practice_wrong_then_right(page, app_url):
    ex = make("cover_round", 17)
    page.goto(f"{app_url}/practice?family=cover_round&seed=17")
    wait_for_app(page)
    assert page.get_by_text("Mergeable vertices and the height of the optimal cover · exercise 17").count() == 1
    shot(page, "practice_open")
    box = page.get_by_label("Your answer")
    box.fill(f"{' '.join(ex.answer['mergeable'])}; {ex.answer['height'] + 1}")
    page.get_by_role("button", name="Check").click()
    page.wait_for_selector("text=Not quite", timeout=60_000)
    wait_for_app(page)
    assert page.get_by_text("Hint.").count() == 1 and page.get_by_text("Worked solution", exact=True).count() == 1
    shot(page, "practice_wrong")
    box = page.get_by_label("Your answer")
    box.fill(ex.answer_text)
    page.get_by_role("button", name="Check").click()
    page.wait_for_selector("text=Right:", timeout=60_000)
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    assert "family=cover_round" in page.url and "seed=17" in page.url
    shot(page, "practice_right")
