"""The Practice page in Chromium: a link opens an exercise, a wrong answer shows the hint and the
worked solution, the right one is marked right and counted in the score."""

import re

import pytest

from engine.practice import FAMILIES, make
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


def _plain(line: str) -> str:
    """A line of Markdown as its rendered text: no list marker, no bold, single spaces."""
    line = re.sub(r"^(- |\d+\. )", "", line.strip()).replace("**", "")
    return " ".join(line.split())


@pytest.mark.parametrize("family, seed", [(f, 2) for f in FAMILIES if f != "chow_liu_next"] +
                         [("chow_liu_next", 5), ("chow_liu_next", 1)])
def test_each_line_of_a_worked_solution_is_its_own_line_on_screen(page, app_url, family, seed):
    """Every line of a worked solution is a line (a paragraph or a list item) of the page as drawn:
    chow_liu_next's "- none" ran into "The heaviest pair ..." (one newline in Markdown is a space)."""
    ex = make(family, seed)
    page.goto(f"{app_url}/practice?family={family}&seed={seed}")
    wait_for_app(page)
    page.get_by_label("Your answer").fill(ex.answer_text)
    page.get_by_role("button", name="Check").click()
    page.wait_for_selector("text=Right:", timeout=60_000)
    wait_for_app(page)
    shown = page.locator("[data-testid='stExpander']").filter(has_text="Worked solution") \
        .locator("[data-testid='stExpanderDetails']").inner_text()
    drawn = [" ".join(s.split()) for s in shown.splitlines() if s.strip()]
    wanted = [_plain(s) for s in ex.solution.splitlines() if s.strip()]
    assert drawn[:len(wanted)] == wanted, (drawn, wanted)
