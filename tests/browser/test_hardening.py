"""Browser: an uploaded scenario that names a server file is refused in the app, without showing
the file, and the project's own sample scenario loads without a crash (issue 17, items 1 and 3)."""

import json

import pytest

from tests.browser.conftest import shot, wait_for_app
from tests.conftest import ROOT

pytestmark = pytest.mark.browser

SAMPLE = ROOT / "sample_scenarios" / "lecture_evidence.json"


def _upload(page, name: str, data: bytes) -> None:
    page.get_by_text("Random stream, check against BP, scenarios").click()   # the uploader, drawn when open
    wait_for_app(page)
    page.locator("[data-testid='stFileUploaderDropzoneInput']").last.set_input_files(
        {"name": name, "mimeType": "application/json", "buffer": data})
    wait_for_app(page)


@pytest.mark.parametrize("target", ["/etc/passwd", "/proc/self/environ", "../../../../etc/passwd", "/dev/zero"])
def test_uploaded_scenario_naming_a_server_file_is_refused(page, app_url, target):
    page.goto(f"{app_url}/online_marginals")
    wait_for_app(page)
    scenario = {"tree": target, "states": 2, "ops": [{"marginal": "1"}]}
    _upload(page, "evil.json", json.dumps(scenario).encode())
    page.wait_for_selector("text=is not a sample tree or a file under the data folder", timeout=30_000)
    body = page.locator("body").inner_text()
    assert "root:x:0" not in body and "PATH=" not in body and "Traceback" not in body
    assert page.locator("[data-testid='stException']").count() == 0
    shot(page, "online_marginals_scenario_refused")


def test_sample_scenario_loads_without_a_crash(page, app_url):
    page.goto(f"{app_url}/online_marginals")
    wait_for_app(page)
    _upload(page, "lecture_evidence.json", SAMPLE.read_bytes())
    page.wait_for_selector("text=ψ(parent = row, child = column)", timeout=30_000)  # "Edit matrix" set by the load
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
    assert "StreamlitAPIException" not in page.locator("body").inner_text()
    shot(page, "online_marginals_scenario_loaded")
