"""Keyboard only, as a student without a mouse (docs/accessibility.md): on Online Marginals, Tab to
a name box (the page's "Pick a vertex by name" or the tree view's "Find a vertex by name"), type a
vertex's name, Enter (with or without Arrow Down first); Tab on to "Observe label", Enter. The
marginal shown, the selection ring and the evidence drawn are that vertex's, not vertex 1's; axe-core
then finds no violation of the project's own on the page in that state.
Screenshots: tests/browser/screenshots/keyboard_<box>_<keys>.png."""

from __future__ import annotations

import time

import pytest

from tests.browser.conftest import (shot, tree_view, view_flagged, view_selected, wait_for_app, wait_for_selected,
                                   wait_for_view)
from tests.browser.test_accessibility import axe_violations, own_violations

pytestmark = pytest.mark.browser

#: ``[tag, accessible name]`` of the focused element, inside shadow roots too (the tree view's)
FOCUSED_JS = """() => {
    let e = document.activeElement;
    while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
    if (!e) return null;
    const name = e.getAttribute('aria-label') || e.getAttribute('placeholder') || (e.innerText || '').trim();
    return [e.tagName, name.slice(0, 80)];
}"""

#: whether the focused element shows where the focus is (an outline or a ring drawn as a shadow)
FOCUS_VISIBLE_JS = """() => {
    let e = document.activeElement;
    while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
    const s = getComputedStyle(e);
    return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || (s.boxShadow && s.boxShadow !== 'none');
}"""

SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
VIEW = "om_tree"


def tab_to(page, tag: str, name: str, limit: int = 80) -> int:
    """Press Tab until the focus is on the ``tag`` element named ``name``; the number of presses."""
    seen = []
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED_JS)
        if focused and focused[0] == tag and focused[1] == name:
            return presses
        seen.append(focused)
    raise AssertionError(f"{tag} {name!r} not reached by {limit} presses of Tab; the focus went {seen}")


def wait_for_text(page, text: str, timeout: float = 60_000) -> None:
    page.wait_for_function("(t) => document.querySelector('[data-testid=\"stMain\"]').innerText.includes(t)",
                           arg=text, timeout=timeout, polling=200)


@pytest.mark.parametrize("keys", ["enter", "arrow-enter"])
@pytest.mark.parametrize("box", ["Pick a vertex by name", "Find a vertex by name"], ids=["page", "view"])
def test_pick_a_vertex_and_observe_it_by_keyboard(page, app_url, axe_source, box, keys):
    name = "4"
    marginal = f"P(x{name.translate(SUBSCRIPT)}) ="
    page.goto(f"{app_url}/online_marginals")
    wait_for_app(page)
    wait_for_view(page, VIEW)
    assert view_selected(page, VIEW)[0] == "1"   # the page opens on the root, vertex 1
    page.locator("body").focus()
    presses = tab_to(page, "INPUT", box)
    page.keyboard.type(name)
    if keys == "arrow-enter":
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    wait_for_text(page, marginal)
    wait_for_app(page)
    wait_for_selected(page, VIEW, name)
    assert marginal in page.locator("[data-testid='stMain']").inner_text()

    tab_to(page, "BUTTON", "Observe label")
    assert page.evaluate(FOCUS_VISIBLE_JS), "the focused Observe label button shows no focus ring"
    page.keyboard.press("Enter")
    wait_for_text(page, "evidence [1.0, 0.0]")
    wait_for_app(page)
    wait_for_view(page, VIEW)
    text = page.locator("[data-testid='stMain']").inner_text()
    assert f"{marginal} [1.0000, 0.0000] · evidence [1.0, 0.0]" in text, text[:2000]
    assert view_flagged(page, VIEW) == [name]
    assert view_selected(page, VIEW) == [name, True]
    shot(page, f"keyboard_{'page' if box.startswith('Pick') else 'view'}_{keys}")
    assert presses <= 60, presses
    # the page after its main action (a vertex chosen, evidence set, D's path lit): axe finds
    # nothing of the project's own either
    own = own_violations(page, axe_violations(page, axe_source))
    assert not own, own[:10]


def figure_title(page) -> str:
    """The title over Belief Propagation's tree view ("Message k of n — ..."), or "" before it is drawn."""
    view = tree_view(page, "bp_tree")
    if not view.count():
        return ""
    return view.first.evaluate("(wrap) => ((wrap.parentNode.__treeview || {}).data || {}).title || ''")


def wait_for_title(page, start: str, timeout: float = 60_000) -> str:
    """Wait until the view's title starts with ``start`` (polled: a rerun may draw the view anew)."""
    deadline = time.monotonic() + timeout / 1000
    while not figure_title(page).startswith(start):
        assert time.monotonic() < deadline, f"the title is {figure_title(page)!r}, not {start!r}..."
        page.wait_for_timeout(200)
    wait_for_app(page)
    return figure_title(page)


def test_step_belief_propagation_forward_and_back_by_keyboard(page, app_url):
    """Tab to "next ▶", Enter twice (the focus stays on the button), Shift+Tab to "◀ back", Enter:
    the figure says step 2, then step 1; then the "Messages sent" slider by the arrow keys."""
    page.goto(f"{app_url}/belief_propagation")
    wait_for_app(page)
    assert wait_for_title(page, "Message 0 of 8")
    page.locator("body").focus()
    tab_to(page, "BUTTON", "next ▶")
    assert page.evaluate(FOCUS_VISIBLE_JS), "the focused next button shows no focus ring"
    page.keyboard.press("Enter")
    wait_for_title(page, "Message 1 of 8")
    assert page.evaluate(FOCUSED_JS) == ["BUTTON", "next ▶"]   # still there for the next press
    page.keyboard.press("Enter")
    wait_for_title(page, "Message 2 of 8")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(FOCUSED_JS) == ["BUTTON", "◀ back"]
    page.keyboard.press("Enter")
    wait_for_title(page, "Message 1 of 8")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED_JS) == ["INPUT", "Messages sent"]   # the slider, past "next ▶"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    wait_for_title(page, "Message 3 of 8")
    shot(page, "keyboard_belief_propagation")


def test_move_through_the_rounds_of_a_cover_by_keyboard(page, app_url):
    """Cover Inspector: Tab to the "Round t" slider, the arrow keys move through the rounds; the
    text under it and the tree view's description (its accessible name) follow."""
    page.goto(f"{app_url}/cover_inspector")
    wait_for_app(page)
    wait_for_text(page, "Round 0:")
    page.locator("body").focus()
    tab_to(page, "INPUT", "Round t")
    assert page.evaluate(FOCUS_VISIBLE_JS), "the focused slider shows no focus ring"
    for t in (1, 2):
        page.keyboard.press("ArrowRight")
        wait_for_text(page, f"Round {t}:")
        wait_for_app(page)
    page.keyboard.press("ArrowLeft")
    wait_for_text(page, "Round 1:")
    wait_for_app(page)
    wait_for_view(page, "cover_t_view")
    name = page.locator("div.tv[data-key='cover_t_view'] canvas").get_attribute("aria-label")
    assert "merged in round 1" in name, name
    shot(page, "keyboard_cover_rounds")


def test_start_and_cancel_a_run_by_keyboard(page, app_url):
    """TREE-HEDGE with 200,000 trials (a long run): Tab to "Run TREE-HEDGE", Enter; the run's
    status opens with its progress bar, Tab reaches its Cancel button (the status stayed open: an
    update that did not say ``expanded=True`` closed it, and Cancel left the Tab order), Enter
    cancels the run."""
    page.goto(f"{app_url}/tree_hedge?trials=200000&tree=random:60:7")
    wait_for_app(page)
    wait_for_text(page, "60 vertices")
    page.locator("body").focus()
    tab_to(page, "BUTTON", "Run TREE-HEDGE")
    page.keyboard.press("Enter")
    page.wait_for_function("""() => [...document.querySelectorAll('[data-testid="stExpander"] details')]
        .some(d => d.open && d.innerText.includes('Cancel'))""", timeout=120_000, polling=200)
    assert page.evaluate(FOCUSED_JS) == ["BUTTON", "Run TREE-HEDGE"]
    for _ in range(8):   # the status's summary, then its Cancel button
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED_JS)
        if focused and focused[0] == "BUTTON" and focused[1].endswith("Cancel"):
            break
    else:
        raise AssertionError(f"Cancel not reached by 8 presses of Tab from Run TREE-HEDGE; the focus is on {focused}")
    assert page.evaluate(FOCUS_VISIBLE_JS), "the focused Cancel button shows no focus ring"
    shot(page, "keyboard_run_cancel_focused")
    page.keyboard.press("Enter")
    page.get_by_text("Run cancelled").wait_for(timeout=60_000)
    wait_for_app(page)
    assert "Set up a run above and press Run TREE-HEDGE." in page.locator("[data-testid='stMain']").inner_text()


#: whether the focused element is inside the element matching a selector
FOCUS_INSIDE_JS = "(sel) => !!(document.activeElement && document.activeElement.closest(sel))"


def tab_to_end(page, tag: str, ends: str, inside: str | None = None, limit: int = 80) -> int:
    """Press Tab until the focus is on a ``tag`` element whose name ends with ``ends`` (a button's
    name starts with its icon's ligature), inside ``inside`` (a CSS selector) if given."""
    seen = []
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED_JS)
        if focused and focused[0] == tag and focused[1].endswith(ends) and \
                (inside is None or page.evaluate(FOCUS_INSIDE_JS, inside)):
            return presses
        seen.append(focused)
    raise AssertionError(f"{tag} ...{ends!r} not reached by {limit} presses of Tab; the focus went {seen}")


def test_go_through_a_lesson_and_answer_its_question_by_keyboard(page, app_url):
    """Lessons: Tab to the Start button of "Belief propagation by hand", Enter; in the lesson panel
    Tab to the answer box, type 64, Tab to Check, Enter: "Right."; Tab to Next, Enter: step 2."""
    page.goto(app_url)
    wait_for_app(page)
    page.locator("body").focus()
    tab_to_end(page, "BUTTON", "Start", inside=".st-key-lesson_card_belief_propagation")
    assert page.evaluate(FOCUS_VISIBLE_JS), "the focused Start button shows no focus ring"
    page.keyboard.press("Enter")
    page.wait_for_function("() => location.pathname.endsWith('/belief_propagation')", timeout=60_000)
    wait_for_app(page)
    panel = page.locator(".st-key-lesson_panel")
    panel.wait_for(timeout=30_000)
    assert "Step 1 of" in panel.inner_text()
    page.locator("body").focus()
    tab_to(page, "INPUT", "Your answer: a number")
    page.keyboard.type("64")
    tab_to_end(page, "BUTTON", "Check", limit=4)
    assert page.evaluate(FOCUS_VISIBLE_JS), "the focused Check button shows no focus ring"
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('.st-key-lesson_panel').innerText.includes('Right.')",
                           timeout=60_000)
    wait_for_app(page)
    assert "Answer: 64" in panel.inner_text()
    shot(page, "keyboard_lesson_answered")
    page.locator("body").focus()
    tab_to_end(page, "BUTTON", "Next", inside=".st-key-lesson_panel")
    page.keyboard.press("Enter")
    page.wait_for_function("() => location.search.includes('step=2')", timeout=60_000)
    wait_for_app(page)
    page.wait_for_function("() => document.querySelector('.st-key-lesson_panel').innerText.includes('Step 2 of')",
                           timeout=60_000)


def test_skip_past_a_figure_by_keyboard(page, app_url):
    """Belief Propagation: from "next ▶", Tab reaches the figure's "Skip past this figure" link
    (shown when focused), Enter moves the focus to the view's "Describe" (drawn under its canvas),
    past the view's search box and buttons; Enter opens the description, which is also the
    canvas's accessible name (role=img)."""
    page.goto(f"{app_url}/belief_propagation")
    wait_for_app(page)
    wait_for_title(page, "Message 0 of 8")
    page.locator("body").focus()
    tab_to(page, "BUTTON", "next ▶")
    # the link is named by the figure's description, which opens with the page's own sentence
    name = "Skip past this figure: No message sent yet"
    presses = tab_to(page, "A", name[:80], limit=10)   # (FOCUSED_JS cuts names at 80 characters)
    link = page.evaluate("""() => { let e = document.activeElement;
        while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
        const r = e.getBoundingClientRect(); return [e.textContent, r.width, r.height]; }""")
    assert link[0].startswith(name) and link[1] > 20 and link[2] > 10, link
    shot(page, "keyboard_skip_link")
    # the Tab stops the link skips: the tree view's search box and buttons, and its canvas
    skipped = tree_view(page, "bp_tree").locator("button, input").count()
    page.keyboard.press("Enter")
    assert page.evaluate(FOCUS_INSIDE_JS, ".st-key-bp_tree"), page.evaluate(FOCUSED_JS)
    assert page.evaluate(FOCUSED_JS) == ["SUMMARY", "Describe"], page.evaluate(FOCUSED_JS)
    page.keyboard.press("Enter")
    text = tree_view(page, "bp_tree").locator("details").inner_text()
    canvas = tree_view(page, "bp_tree").locator("canvas")
    label = canvas.get_attribute("aria-label")
    assert canvas.get_attribute("role") == "img"
    assert "Message 0 of 8" in label and "5 vertices" in label and "No message sent yet" in label, label
    assert label in text.replace("\n", " "), (label, text)
    assert presses <= 3 and skipped >= 5, (presses, skipped)


#: every "Skip past this figure" link of the page (the figure's accessibility component draws it)
SKIP_LINKS_JS = """() => { const out = [];
    const walk = root => root.querySelectorAll('*').forEach(e => {
        if (e.classList.contains('fig-skip')) out.push(e);
        if (e.shadowRoot) walk(e.shadowRoot);
    });
    walk(document);
    return out; }"""

#: focus the i-th skip link; its box, and the boxes of the page's widget labels (pickers, sliders, ...)
#: and of every other element drawn (each of Streamlit's element containers but the link's own)
FOCUS_SKIP_JS = """(i) => {
    const link = (""" + SKIP_LINKS_JS + """)()[i];
    link.focus();
    const box = r => ({x: r.left, y: r.top, right: r.right, bottom: r.bottom});
    let own = link;   // the link's element container (the link may sit in a shadow root)
    while (own && !(own.dataset && own.dataset.testid === 'stElementContainer'))
        own = own.parentElement || (own.getRootNode() && own.getRootNode().host) || null;
    const shown = sel => [...document.querySelectorAll(sel)]
        .filter(e => e !== own && !e.contains(own) && e.getBoundingClientRect().width > 0
                && e.getBoundingClientRect().height > 0)
        .map(e => ({text: e.innerText.trim().slice(0, 60) || e.className, ...box(e.getBoundingClientRect())}));
    const labels = shown('[data-testid="stWidgetLabel"]'), elements = shown('[data-testid="stElementContainer"]');
    return {text: link.textContent, focused: link.matches(':focus'), ...box(link.getBoundingClientRect()), labels,
            elements, width: innerWidth, height: innerHeight};
}"""


@pytest.mark.parametrize("path, links", [("online_marginals", 2), ("belief_propagation", 1), ("cover_inspector", 2)])
def test_a_focused_skip_link_fits_its_column(open_page, app_url, path, links):
    """In a 1600 x 1000 window a focused "Skip past this figure: ..." link lies inside the window
    and covers no widget's label and no other element: on Online Marginals the bar chart's link ran
    to x = 1962 over the "Pick a vertex by name" label above it (taken out of the page's flow, it sat
    at the top of its column at the width of the whole page, over whatever was there)."""
    page = open_page(viewport={"width": 1600, "height": 1000})
    page.goto(f"{app_url}/{path}")
    wait_for_app(page)
    page.wait_for_function(f"() => ({SKIP_LINKS_JS})().length >= {links}", timeout=60_000)
    for i in range(links):
        page.evaluate(FOCUS_SKIP_JS, i)
        page.wait_for_timeout(300)   # (a focused link goes back into the page's flow: read it where it settles)
        got = page.evaluate(FOCUS_SKIP_JS, i)
        assert got["focused"] and got["text"].startswith("Skip past this figure"), got["text"]
        if path == "online_marginals" and i == 1:
            shot(page, "keyboard_skip_link_fits")
        inside = 0 <= got["x"] and got["right"] <= got["width"] and 0 <= got["y"] and got["bottom"] <= got["height"]
        assert inside, (got["text"][:60], [got[k] for k in ("x", "y", "right", "bottom")])
        for kind in ("labels", "elements"):   # (1 px: boxes that touch)
            over = [b for b in got[kind] if b["x"] < got["right"] - 1 and got["x"] < b["right"] - 1
                    and b["y"] < got["bottom"] - 1 and got["y"] < b["bottom"] - 1]
            assert not over, (got["text"][:60], f"covers the {kind}", over)
