"""The OFDE page in a real browser: a short synthetic run, the structures, the scale comparison."""

import pytest

from tests.browser.conftest import shot, wait_for_app

pytestmark = pytest.mark.browser


def test_ofde_short_synthetic_run(page, app_url):
    page.set_viewport_size({"width": 1400, "height": 1250})
    page.goto(f"{app_url}/ofde")
    wait_for_app(page)
    page.get_by_role("button", name="Run OFDE").click()
    page.wait_for_selector("text=OFDE final", timeout=120_000)
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator(".js-plotly-plot").count() >= 1
    page.evaluate("""() => { for (const el of document.querySelectorAll('[data-testid="stMain"], '
                  + '[data-testid="stAppViewContainer"], section.main')) el.scrollTo(0, 0); window.scrollTo(0, 0); }""")
    shot(page, "ofde_curve")
    page.get_by_role("tab", name="Forest vs Chow-Liu").click()
    page.wait_for_timeout(1500)
    shot(page, "ofde_structures")
    page.get_by_role("tab", name="Time per round").click()
    page.wait_for_timeout(1000)
    shot(page, "ofde_time")
    page.get_by_role("button", name="Compare perturbation scales").click()
    page.wait_for_selector("text=Perturbation scale 0.03: done", timeout=180_000)
    wait_for_app(page)
    page.get_by_role("tab", name="Perturbation trade-off").click()
    page.wait_for_timeout(1500)
    assert page.locator("[data-testid='stException']").count() == 0
    shot(page, "ofde_tradeoff")
