"""Browser: click a vertex on Online Marginals (its bars and the touched path of D appear), set
evidence; step the Belief Propagation schedule. Screenshots in tests/browser/screenshots/."""

import pytest

from tests.browser.conftest import click_view_vertex, show_view, shot, wait_for_app, wait_for_selected
from workbench.text import subscript

pytestmark = pytest.mark.browser


def test_online_marginals_click_and_observe(page, app_url):
    page.goto(f"{app_url}/online_marginals")
    wait_for_app(page)
    show_view(page, "om_tree")
    click_view_vertex(page, "om_tree", "4")
    wait_for_selected(page, "om_tree", "4")
    wait_for_app(page)
    page.wait_for_selector(f"text=P({subscript('x', '4')}) =", timeout=30_000)
    page.get_by_role("button", name="Observe label").click()
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    shot(page, "online_marginals_observed")
    page.get_by_text("Random stream, check against BP, scenarios").click()   # the tools, drawn when open
    wait_for_app(page)
    page.get_by_role("button", name="Check against BP").click()
    wait_for_app(page)
    page.wait_for_selector("text=Largest |online − BP|", timeout=30_000)
    shot(page, "online_marginals_evidence")


def test_belief_propagation_steps(page, app_url):
    page.goto(f"{app_url}/belief_propagation")
    wait_for_app(page)
    # one click at a time: a click landing while the previous rerun still runs is coalesced
    # with it by Streamlit, so wait for each step's message before the next click
    for i in range(1, 4):
        page.get_by_role("button", name="next ▶").click()
        page.wait_for_selector(f"text=Message {i}:", timeout=30_000)
        wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    shot(page, "belief_propagation_steps")
    page.get_by_role("tab", name="Parallel schedule").click()
    wait_for_app(page)
    shot(page, "belief_propagation_parallel")
    page.get_by_role("tab", name="Elimination order").click()
    wait_for_app(page)
    shot(page, "belief_propagation_elimination")
