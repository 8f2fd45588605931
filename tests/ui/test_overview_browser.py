"""The Overview in headless Chromium: the report ``pdbench report`` writes opens from the disk
with no request to any host and no console error, and the viewer's Overview page of a PD run,
a round robin and an arena run renders its sentences and its chart (the screenshots the docs
show are taken here).

Chromium as in ``test_browser.py``: Debian's ``chromium``, driven by Playwright.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pdbench import cli
from pdbench.overview import run_overview
from pdbench.ui.overview_page import button_label
from typer.testing import CliRunner

from tests.servers.local import SAFETY_NET_S
from tests.servers.pages import CHROMIUM_ARGS, chromium, pdbench_page
from tests.ui.test_browser import REPO

pytestmark = pytest.mark.browser


def _screenshots(name: str) -> list[Path]:
    """Where the screenshot ``name`` goes: the test artefacts, and the docs on request (so
    that a test run leaves the tree clean)."""
    paths = [REPO / "tests" / "artifacts" / name]
    if os.environ.get("PDBENCH_UPDATE_SCREENSHOT"):
        paths.append(REPO / "docs" / name)
    return paths


def _report(run_dir: Path, output: Path) -> Path:
    result = CliRunner().invoke(cli.app, ["report", str(run_dir), "--output", str(output)])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"wrote {output}\n"
    return output


@pytest.mark.parametrize("which", ["pd_run", "arena_run"])
def test_the_report_opens_offline_with_no_request_and_no_error(
    which: str, request: pytest.FixtureRequest, tmp_path: Path
):
    run_dir: Path = request.getfixturevalue(which)
    report = _report(run_dir, tmp_path / "report.html")
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 1400})
            requests: list[str] = []
            errors: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(report.as_uri())
            page.wait_for_load_state("load")
            assert requests == [report.as_uri()]  # the file itself, nothing else
            assert errors == []
            items = page.locator("ul.overview li").all_inner_texts()
            expected = [finding.text for finding in run_overview(run_dir).findings]
            assert [item.split(" (viewer page: ")[0] for item in items] == expected
            assert page.locator("svg").count() >= (2 if which == "pd_run" else 1)
            assert page.locator("svg circle").count() >= 3  # values drawn
        finally:
            browser.close()


def _wait_for_overview(page) -> None:
    page.wait_for_selector('h2:has-text("Overview")', timeout=SAFETY_NET_S * 1000)
    page.wait_for_function(
        """() => !document.querySelector('[data-testid="stStatusWidget"]')
            && document.querySelectorAll('[data-testid="stButton"]').length > 0
            && (document.querySelector('[data-testid="stCode"] code') || {}).innerText
                ?.includes('pdbench report')""",
        timeout=SAFETY_NET_S * 1000,
    )


SCREENSHOTS = {
    "pd_run": ("overview_pd.png", "condition"),
    "pd_noisy_round_robin_run": ("overview_round_robin.png", "condition"),
    "arena_run": ("overview_arena.png", None),
}
"""Each run's screenshot, and the sidebar widget its buttons' focus sets."""

CHART = '[data-testid="stVegaLiteChart"]'


@pytest.mark.parametrize("which", list(SCREENSHOTS))
def test_the_overview_page_is_first_and_renders_its_sentences_and_chart(
    which: str, request: pytest.FixtureRequest
):
    run_dir: Path = request.getfixturevalue(which)
    findings = run_overview(run_dir).findings
    executable = chromium()
    from playwright.sync_api import sync_playwright

    name, focus_key = SCREENSHOTS[which]
    with pdbench_page("ui", run_dir) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1500})
            page.goto(url)
            _wait_for_overview(page)
            assert page.locator('[data-testid="stException"]').count() == 0
            text = page.locator('[data-testid="stMain"]').inner_text()
            for finding in findings:
                assert finding.text[:60] in text
            # the one chart under the sentences, drawn (Vega renders a canvas or an SVG)
            page.wait_for_selector(
                f"{CHART} canvas, {CHART} svg.marks", timeout=SAFETY_NET_S * 1000
            )
            assert page.locator(CHART).count() == 1
            drawn = page.locator(f"{CHART} canvas, {CHART} svg.marks").first.bounding_box()
            assert drawn is not None and drawn["width"] > 300 and drawn["height"] > 100
            for path in _screenshots(name):
                path.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(path))
            # the first sentence's button opens its page, on what the sentence names
            first = findings[0]
            label = button_label(first, focus_key=focus_key)
            page.get_by_role("button", name=label).first.click()
            heading = first.focus if focus_key and first.focus else first.page
            page.wait_for_selector(f'h2:has-text("{heading}")', timeout=SAFETY_NET_S * 1000)
            assert page.locator('[data-testid="stException"]').count() == 0
        finally:
            browser.close()
    assert all(path.stat().st_size > 20_000 for path in _screenshots(name))
