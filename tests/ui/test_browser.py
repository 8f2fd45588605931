"""The real ``pdbench ui`` server opened in headless Chromium: the app renders its charts and
metrics with no error, and the screenshot the README shows is taken here.

Playwright cannot download browsers on these machines: the test drives Debian's ``chromium``
(``apt-get install chromium``; ``.ci/run`` installs it). Without it the test is skipped with
that command as its reason, and fails in CI (``tests/needs.py``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.servers.local import SAFETY_NET_S
from tests.servers.pages import CHROMIUM_ARGS, chromium, pdbench_page

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = [REPO / "tests" / "artifacts" / "viewer.png"]
if os.environ.get("PDBENCH_UPDATE_SCREENSHOT"):
    # the README's picture is refreshed on request only, so a test run leaves the tree clean
    SCREENSHOTS.append(REPO / "docs" / "viewer.png")
CONDITION = "llm_vs_llm"
"""The match on the screenshot: WSLS against an exploiter, with re-asked replies."""


def _wait_until_rendered(page, *, charts: int) -> None:
    """Until the script run is over and the charts are drawn."""
    page.wait_for_selector('[data-testid="stMetric"]', timeout=SAFETY_NET_S * 1000)
    page.wait_for_function(
        """(charts) => !document.querySelector('[data-testid="stStatusWidget"]')
            && document.querySelectorAll(
                '[data-testid="stVegaLiteChart"] canvas, [data-testid="stVegaLiteChart"] svg'
            ).length >= charts""",
        arg=charts,
        timeout=SAFETY_NET_S * 1000,
    )
    page.wait_for_load_state("networkidle")  # the charts fetched what they draw


def test_the_viewer_renders_in_chromium(pd_run: Path):
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with pdbench_page("ui", pd_run) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1500})
            page.goto(url)
            page.wait_for_selector('h2:has-text("Overview")', timeout=SAFETY_NET_S * 1000)
            page.get_by_test_id("stSidebar").get_by_text("Match", exact=True).click()
            _wait_until_rendered(page, charts=3)
            page.get_by_test_id("stSelectbox").filter(has_text="Condition").click()
            page.get_by_role("option", name=CONDITION, exact=True).click()
            page.wait_for_selector(f'h2:has-text("{CONDITION} · replicate 0")')
            _wait_until_rendered(page, charts=3)

            assert page.locator('[data-testid="stException"]').count() == 0
            assert page.locator('[data-testid="stAlertContentError"]').count() == 0
            assert page.locator('[data-testid="stVegaLiteChart"]').count() >= 3
            metrics = page.locator('[data-testid="stMetric"]')
            assert metrics.count() == 7
            assert "Cooperation" in metrics.first.inner_text()
            for path in SCREENSHOTS:
                path.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(path))
        finally:
            browser.close()
    assert all(path.stat().st_size > 20_000 for path in SCREENSHOTS)
