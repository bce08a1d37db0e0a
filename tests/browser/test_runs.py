"""The Runs page in Chromium: a history of runs (the tests' family ``treeflip``), overlay, launch, delete.

This test starts its own app server, with its own run history and the ``treeflip`` family
registered through ``TREE_WORKBENCH_FAMILIES``, so it does not depend on the order of other tests.
"""

import json
import os
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from engine.runs import registry
from engine.runs.execute import execute, execute_sweep
from engine.runs.store import RunStore
from tests import runs_family
from tests.browser.conftest import serve_app, shot, wait_for_app

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def runs_app(chromium, tmp_path_factory):
    db = tmp_path_factory.mktemp("runsdb") / "runs.sqlite"
    registry.register_family(*runs_family.FAMILY)
    with RunStore(db) as s:
        for seed in (0, 1):
            execute({"algorithm": "treeflip", "seed": seed, "flip": 0.15 + 0.2 * seed,
                     "tree": {"generate": "random", "n": 120, "seed": seed}}, None, s, label=f"flip {0.15 + 0.2 * seed:.2f}")
        execute_sweep({"algorithm": "treeflip", "tree": {"generate": "path", "n": 80},
                       "sweep": {"flip": [0.1, 0.4]}}, None, s, n_jobs=1)
    registry.unregister_family("treeflip")
    env = dict(os.environ, TREE_WORKBENCH_DB=str(db), TREE_WORKBENCH_FAMILIES=runs_family.ENV)
    with serve_app(env, tmp_path_factory.mktemp("runslog")) as url:
        yield url, db


def choose(page, label: str) -> None:
    """Add an option to the 'Runs to show and compare' multiselect, once the page is idle, and wait
    for its chip (a choice made while the page reran can be lost on a loaded machine: try again)."""
    box = page.locator("[data-testid='stMultiSelect']").filter(has_text="Runs to show and compare")
    chip = box.locator("[data-tag]", has_text=label.split(" · ")[0])
    for attempt in range(3):
        wait_for_app(page)
        box.locator("input").click()
        page.get_by_role("option", name=label).click()
        page.keyboard.press("Escape")
        wait_for_app(page)
        try:
            chip.first.wait_for(timeout=15_000)
            return
        except PlaywrightTimeoutError:
            if attempt == 2:
                raise


def test_runs_page_overlay_launch_delete(page, runs_app):
    url, db = runs_app
    page.goto(f"{url}/runs")
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    page.get_by_text("Run #4 · treeflip").wait_for(timeout=30_000)
    shot(page, "runs_one")

    choose(page, "#3 treeflip · flip=0.1")
    choose(page, "#2 treeflip · flip 0.35")
    page.get_by_text("3 runs compared", exact=True).wait_for(timeout=30_000)
    wait_for_app(page)
    plot = page.locator(".js-plotly-plot").first
    plot.wait_for(timeout=30_000)
    # the figure may still be redrawing from one run to three: wait for its three lines
    page.wait_for_function(
        """() => { const p = document.querySelector('.js-plotly-plot');
                   return p && p.querySelectorAll('.scatterlayer .trace').length === 3; }""",
        timeout=30_000)
    assert plot.locator(".scatterlayer .trace").count() == 3
    shot(page, "runs_overlay")

    # launch a config from the page: a new run appears
    page.get_by_text("Launch a config or a sweep").click()
    area = page.get_by_label("Config (JSON)")
    area.fill(json.dumps({"algorithm": "treeflip", "seed": 9}))
    area.press("Control+Enter")
    page.get_by_role("button", name="Run config").click()
    page.get_by_text("treeflip run recorded as run #5.").wait_for(timeout=60_000)
    wait_for_app(page)
    page.get_by_text("Run #5 · treeflip").wait_for(timeout=30_000)
    with RunStore(db) as s:
        assert [r.id for r in s.list()] == [5, 4, 3, 2, 1]

    # delete the new run, with confirmation
    page.get_by_role("button", name="Delete…").click()
    page.get_by_text("from the history? This cannot be undone.").wait_for(timeout=30_000)
    wait_for_app(page)  # a click landing while the page reruns can be lost
    page.get_by_role("button", name="Yes, delete").click()
    page.get_by_text("Deleted 1 run.", exact=True).wait_for(timeout=30_000)
    wait_for_app(page)
    for _ in range(50):  # the page has said so; the record is gone (allow the write to land)
        with RunStore(db) as s:
            ids = [r.id for r in s.list()]
        if ids == [4, 3, 2, 1]:
            break
        time.sleep(0.2)
    assert ids == [4, 3, 2, 1]
    shot(page, "runs_after_delete")
