"""Every page of every game (a PD demo, a round robin, an arena tournament, a series) opened in
headless Chromium from a real ``pdbench ui`` server: no error, and no raw column name in a
table header or a tile label as the browser draws them.

The axis and legend titles are checked on the charts' specs (tests/ui/test_labels_shown.py):
Vega draws them on a canvas, where the page has no text to read.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pdbench.ui import arena_pages, pd_pages

from tests.servers.local import SAFETY_NET_S
from tests.servers.pages import CHROMIUM_ARGS, chromium, pdbench_page

pytestmark = pytest.mark.browser

RAW = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
"""A word written as a column name: lower case joined by underscores (``p_value_bh``)."""
HEADERS = {"Match": " · replicate ", "Condition": " · all replicates", "Pairwise": "Pairwise"}
"""The header each page opens with, where it is not the page's name."""


def _wait_for_page(page, header: str) -> None:
    """Until the page's header is drawn and the script run is over."""
    page.locator("h1, h2").filter(has_text=header).first.wait_for(timeout=SAFETY_NET_S * 1000)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
        timeout=SAFETY_NET_S * 1000,
    )
    page.wait_for_load_state("networkidle")
    page.wait_for_function(  # every table has drawn its header row
        """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
            .filter((table) => table.getClientRects().length > 0)  // not in a closed expander
            .every((table) => table.querySelector('[role="columnheader"]'))""",
        timeout=SAFETY_NET_S * 1000,
    )


def _shown_words(page) -> tuple[list[str], list[str]]:
    """The table headers and tile labels of the page, as the browser holds them."""
    headers = page.locator('[data-testid="stDataFrame"] [role="columnheader"]').all_inner_texts()
    tiles = page.locator('[data-testid="stMetricLabel"]').all_inner_texts()
    return headers, tiles


def _visit(browser, run_dir: Path, pages: list[str], first_header: str) -> int:
    """Every page of the viewer of ``run_dir``; the number of headers and tiles read."""
    read = 0
    with pdbench_page("ui", run_dir) as url:
        page = browser.new_page(viewport={"width": 1440, "height": 1200})
        page.goto(url)
        _wait_for_page(page, first_header)
        for name in pages or [None]:
            if name is not None:
                page.get_by_test_id("stSidebar").get_by_test_id("stRadio").get_by_text(
                    name, exact=True
                ).click()
                _wait_for_page(page, HEADERS.get(name, name))
            assert page.locator('[data-testid="stException"]').count() == 0, name
            headers, tiles = _shown_words(page)
            raw = [word for word in headers + tiles if RAW.search(word)]
            assert raw == [], (name, raw)
            read += len(headers) + len(tiles)
        page.close()
    return read


def test_every_page_of_every_game_reads_without_raw_names(
    pd_run: Path, pd_round_robin_run: Path, arena_run: Path, series_run: Path
):
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            read = {
                "pd": _visit(browser, pd_run, pd_pages.PAGES, " · replicate "),
                "round robin": _visit(browser, pd_round_robin_run, pd_pages.PAGES, " · "),
                "arena": _visit(browser, arena_run, arena_pages.PAGES, "Leaderboard"),
                "series": _visit(browser, series_run, [], "Arena series"),
            }
        finally:
            browser.close()
    # the headers really were read: every game shows tables
    assert all(count > 5 for count in read.values()), read
