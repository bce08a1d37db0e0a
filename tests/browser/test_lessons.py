"""Browser: every step of every lesson opens (the first from its link, the others by Next: the page,
the panel beside it, no exception), with a screenshot of its first and last step; the landing page's Start, Reveal and Next; a reload (F5)
and a link opened in another browser keep the view. Screenshots in tests/browser/screenshots/."""

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from workbench.declarations.lessons import load_lessons
from workbench.declarations.page_table import PAGES
from tests.browser.conftest import (click_view_vertex, show_view, shot, view_flagged,
                                    wait_for_app, wait_for_selected)
from workbench.text import subscript

pytestmark = pytest.mark.browser

LESSONS = load_lessons()[0]


def _panel(page):
    return page.locator(".st-key-lesson_panel")


def _panel_says(page, text: str, timeout: float = 30_000) -> None:
    """Wait until the lesson panel shows ``text`` (its progress bar is drawn after its title)."""
    page.wait_for_function("t => (document.querySelector('.st-key-lesson_panel') || {innerText: ''}).innerText.includes(t)",
                           arg=text, timeout=timeout)


def _wait_for_runs(page, timeout: float = 300_000) -> None:
    """A step with ``run=1`` starts the page's run (workbench.runner), or shows the one this
    session already ran with those settings: the page's script draws the run's status until the run
    ends, so the run is over when the script is. Check that it did not fail."""
    wait_for_app(page, timeout=timeout)
    text = page.locator("[data-testid='stMain']").inner_text()
    assert ": failed" not in text and ": cancelled" not in text, text[:2000]


@pytest.mark.parametrize("lesson", LESSONS, ids=[x.id for x in LESSONS])
def test_every_step_of_the_lesson_opens(page, app_url, lesson):
    """The lesson's first step from its link, then every step by the panel's Next, as a class
    follows it (in the app: no page load after the first; each step's own link is opened by the
    AppTest ``test_every_step_opens_from_its_link``)."""
    n = len(lesson.steps)
    first = lesson.steps[0].url
    page.goto(f"{app_url}{first}{'&' if '?' in first else '?'}lesson={lesson.id}&step=1")
    for k, step in enumerate(lesson.steps, 1):
        link = PAGES.parse_link(step.url)
        if k > 1:
            _panel(page).get_by_role("button", name="Next").click()
        _panel_says(page, f"Step {k} of {n}", timeout=120_000)
        wait_for_app(page, timeout=120_000)
        if "run" in link.raw:
            _wait_for_runs(page)
        errors = page.locator("[data-testid='stException']")
        assert errors.count() == 0, (lesson.id, k, errors.first.inner_text()[:1000])
        page.wait_for_function("p => location.pathname.replace(/\\/$/, '').endsWith('/' + p)",
                               arg=link.page.url_path, timeout=30_000)
        text = _panel(page).inner_text()
        assert step.title in text
        assert "This step is on another page" not in text
        # the address keeps the step's settings (the page may add its own, never drop the link's)
        query = {q: v[-1] for q, v in parse_qs(urlsplit(page.url).query).items()}
        assert query.get("lesson") == lesson.id and query.get("step") == str(k), (lesson.id, k, page.url)
        for name, value in link.raw.items():
            if name != "tree" and name in query:
                assert query[name] == value, (lesson.id, k, name, query[name], value)
        if k in (1, n):   # a lesson's start and end are looked at; every step is checked above
            shot(page, f"lesson_{lesson.id}_{k:02d}")


def test_start_reveal_and_next_from_the_landing_page(page, app_url):
    lesson = next(x for x in LESSONS if x.id == "belief_propagation")
    page.goto(app_url)
    wait_for_app(page)
    assert page.locator("[data-testid='stMain'] h1").first.inner_text().strip() == "Lessons"
    shot(page, "lessons_landing")
    page.locator(f".st-key-lesson_card_{lesson.id}").get_by_role("button", name="Start").click()
    wait_for_app(page)
    panel = _panel(page)
    panel.wait_for(timeout=30_000)
    _panel_says(page, f"Step 1 of {len(lesson.steps)}")
    assert "Answer:" not in panel.inner_text()
    panel.get_by_role("button", name="Reveal").click()
    wait_for_app(page)
    page.wait_for_function("() => document.querySelector('.st-key-lesson_panel').innerText.includes('Answer:')",
                           timeout=30_000)
    assert lesson.steps[0].question.answer in panel.inner_text()
    shot(page, "lesson_panel_revealed")
    panel.get_by_role("button", name="Next").click()
    page.wait_for_function("() => location.search.includes('step=2')", timeout=30_000)
    wait_for_app(page)
    _panel_says(page, f"Step 2 of {len(lesson.steps)}")
    assert "Answer:" not in _panel(page).inner_text()


def _view(page) -> str:
    """What the Online Marginals page shows of its selected vertex: ``x₇`` (or ``x_name``)."""
    page.wait_for_selector("text=/P\\(x\\S*\\) =/", timeout=60_000)
    return re.search(r"P\((x\S*)\) =", page.locator("[data-testid='stMain']").inner_text()).group(1)


def test_reload_and_a_shared_link_keep_the_view(page, browser, app_url):
    page.goto(f"{app_url}/online_marginals?tree=random:40:3&k=3")
    wait_for_app(page)
    show_view(page, "om_tree")
    _, name = click_view_vertex(page, "om_tree", vid=7)
    page.wait_for_function("() => location.search.includes('vertex=')", timeout=30_000)
    wait_for_app(page)
    url = page.url
    query = parse_qs(urlsplit(url).query)
    assert query["tree"] == ["random:40:3"] and query["k"] == ["3"] and query["vertex"] == [name]
    chosen = subscript("x", query["vertex"][0])
    # the address can change a moment before the page's text (on a loaded machine): wait for both
    page.wait_for_function("t => document.querySelector('[data-testid=\"stMain\"]').innerText.includes(t)",
                           arg=f"P({chosen}) =", timeout=30_000)
    assert _view(page) == chosen
    wait_for_selected(page, "om_tree", name)
    page.reload()                                   # F5
    wait_for_app(page)
    assert _view(page) == chosen
    wait_for_selected(page, "om_tree", name)        # and selected in the tree
    assert parse_qs(urlsplit(page.url).query) == query
    other = browser.new_context(viewport={"width": 1400, "height": 1000})   # a student opening the link
    try:
        student = other.new_page()
        student.goto(url)
        wait_for_app(student)
        assert _view(student) == chosen
        wait_for_selected(student, "om_tree", name)
        assert parse_qs(urlsplit(student.url).query) == query
        assert "Copy link" in student.locator("[data-testid='stSidebar']").inner_text()
        shot(student, "shared_link_online_marginals")
    finally:
        other.close()


def test_belief_propagation_click_sets_and_clears_evidence(page, app_url):
    page.goto(f"{app_url}/belief_propagation?tree=lecture_5_vertices")
    wait_for_app(page)
    show_view(page, "bp_tree")
    clicks = page.get_by_role("radiogroup", name="A click on a vertex")
    clicks.get_by_text("sets the evidence below").click()
    wait_for_app(page)
    show_view(page, "bp_tree")
    click_view_vertex(page, "bp_tree", "4")   # label 0 chosen below
    page.wait_for_function("() => location.search.includes('evidence=4')", timeout=30_000)
    wait_for_app(page)
    page.wait_for_selector("text=Evidence: 4=0", timeout=30_000)
    assert "P(x₄ | evidence) = [1.0000, 0.0000]" in page.locator("[data-testid='stMain']").inner_text()
    shot(page, "belief_propagation_evidence_by_click")
    assert view_flagged(page, "bp_tree") == ["4"]          # ringed as evidence in the view
    clicks.get_by_text("clears its evidence").click()
    wait_for_app(page)
    show_view(page, "bp_tree")
    click_view_vertex(page, "bp_tree", "4")
    page.wait_for_function("() => !location.search.includes('evidence=')", timeout=30_000)
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0


def test_belief_propagation_play_sends_messages_until_paused(page, app_url):
    # binary_15 has 28 messages: at speed 4 the playback lasts at least 7 s, time enough to pause it
    page.goto(f"{app_url}/belief_propagation?tree=binary_15&speed=4")
    wait_for_app(page)
    page.get_by_role("button", name="Play").click()
    # the timer sends them, no click. A loaded machine may skip drawing a step (a timer tick that
    # arrives while a step is being drawn starts the next one), so wait for "3 or more", not for "3"
    page.wait_for_function(
        """() => { const m = /Message (\\d+):/.exec(document.querySelector('[data-testid="stMain"]').innerText);
                   return m !== null && Number(m[1]) >= 3; }""", timeout=60_000, polling=100)
    page.get_by_role("button", name="Pause").click()
    wait_for_app(page)
    page.get_by_role("button", name="Play").wait_for(timeout=30_000)
    wait_for_app(page)
    sent = None
    for _ in range(20):   # a step sent just before the pause may still be on its way: wait until it holds
        before = _message_number(page)
        page.wait_for_timeout(750)      # at speed 4, three more messages if it were still playing
        if _message_number(page) == before:
            sent = before
            break
    assert sent is not None, "the messages kept coming after Pause"
    page.wait_for_timeout(2500)
    assert _message_number(page) == sent   # paused: no more
    assert page.locator("[data-testid='stException']").count() == 0


def test_belief_propagation_click_on_a_large_tree_sets_evidence(page, app_url):
    """Above 40 vertices the page draws the marginals on the tree view: a click there sets and
    clears evidence as on a small tree."""
    page.goto(f"{app_url}/belief_propagation?tree=random:200:1")
    wait_for_app(page)
    clicks = page.get_by_role("radiogroup", name="A click on a vertex")
    clicks.get_by_text("sets the evidence below").click()
    wait_for_app(page)
    show_view(page, "bp_tree")
    v, name = click_view_vertex(page, "bp_tree", vid=5)
    page.wait_for_selector(f"text=Evidence: {name}=0", timeout=30_000)
    wait_for_app(page)
    wait_for_selected(page, "bp_tree", name)
    assert view_flagged(page, "bp_tree") == [name]          # ringed as evidence in the view
    shot(page, "belief_propagation_large_evidence_by_click")
    page.wait_for_function("(want) => document.querySelector('[data-testid=\"stMain\"]').innerText.includes(want)",
                           arg=f"P({subscript('x', name)} | evidence) = [1.0000, 0.0000]", timeout=30_000)
    page.wait_for_function("() => location.search.includes('evidence=')", timeout=30_000)
    clicks.get_by_text("clears its evidence").click()
    wait_for_app(page)
    click_view_vertex(page, "bp_tree", vid=v)
    page.wait_for_function("() => !location.search.includes('evidence=')", timeout=30_000)
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0


def _message_number(page) -> int:
    """The number of the last message the Belief Propagation page shows."""
    return int(re.search(r"Message (\d+):", page.locator("[data-testid='stMain']").inner_text()).group(1))
