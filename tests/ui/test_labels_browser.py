"""Every page of every game, opened in headless Chromium on the real ``pdbench ui`` server,
reads as labelled: no table header, tile label or chart axis or legend title on the page drawn
is a raw column name, no page shows an exception, and a header is never a mart column the
label catalogue lacks. And a run resumed with ``--no-aggregate`` after its tables were built
opens on the banner that says so, with the command that rebuilds them.

What is read is what Chromium drew, not what the script sent:

- Table headers: ``st.dataframe`` paints its grid on a canvas (glide-data-grid), so the header
  text is not in the DOM as painted. The grid keeps, beside the canvas, an accessibility tree
  for screen readers (``table[role=grid]``, one ``th[role=columnheader]`` per column in view,
  with its ``aria-colindex``; ``aria-colcount`` on the table). Only the columns in view are in
  it, so a table wider than the page is read with the page made wide enough to show every
  column; a table whose tree does not hold all of its ``aria-colcount`` columns fails.
- Chart titles: Streamlit draws Vega-Lite charts as SVG (canvas only above 2,000 points per
  datum, far beyond these runs); the axis, legend and chart titles are the text of Vega's
  ``role-axis-title``, ``role-legend-title`` and ``role-title`` groups. A chart drawn on a
  canvas has none to read and fails the test rather than passing unread.
- Tile labels: the text of ``stMetricLabel``.

Every wait is on the page's state (the script run over, every grid's accessibility tree
built, every chart's scene drawn), under the suite's safety net; never a fixed time. One
server per run; the pages are visited in turn, as a person clicks through the sidebar.
Chromium as in ``test_browser.py``: Debian's ``chromium``, driven by Playwright.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from pdbench import cli
from pdbench.column_labels import label_catalogue
from pdbench.storage.marts_manifest import MARTS_MANIFEST, raw_file_stamps
from pdbench.ui.arena import pages as arena_pages
from pdbench.ui.pd import pages as pd_pages
from typer.testing import CliRunner

from tests.servers.local import SAFETY_NET_S
from tests.servers.pages import CHROMIUM_ARGS, chromium, pdbench_page

pytestmark = pytest.mark.browser

WAIT_MS = SAFETY_NET_S * 1000
VIEWPORT = {"width": 1440, "height": 1000}
RAW_NAME = re.compile(r"[A-Za-z0-9]+_[A-Za-z0-9_]+")
"""A word with an underscore in it: how a column name reads, and a label never does."""

WATCH_RUNS = """() => {
    window.pdbenchRunsEnded = 0;
    const app = document.querySelector('[data-testid="stApp"]');
    new MutationObserver((records) => {
        for (const record of records) {
            if (record.oldValue === 'running') window.pdbenchRunsEnded += 1;
        }
    }).observe(app, {
        attributes: true, attributeOldValue: true, attributeFilter: ['data-test-script-state'],
    });
}"""
"""Count the script runs that end (the app's state leaving ``running``): a click's run is
over once the count has grown, however quickly it ran."""

DRAWN = """(runsBefore) => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (runsBefore !== null && window.pdbenchRunsEnded <= runsBefore) return false;
    if (document.querySelector('[data-stale="true"]')) return false;
    const shown = (selector) => [...document.querySelectorAll(selector)].filter(
        (element) => !element.closest('details:not([open])'));
    if (shown('[data-testid="stSkeleton"]').length > 0) return false;
    const grids = shown('[data-testid="stDataFrame"]');
    if (!grids.every((grid) => grid.querySelector('table[role="grid"] th[role="columnheader"]')))
        return false;
    const charts = shown('[data-testid="stVegaLiteChart"]');
    return charts.every((chart) =>
        chart.querySelector('svg.marks g.root') || chart.querySelector('canvas.marks'));
}"""
"""The script run is over, nothing of the last page is left, no element is still loading its
code (Streamlit loads the grid and the charts lazily, a skeleton in their place until then:
at the end of a script run the first table of a session may not be there yet), every grid
has built its accessibility tree and every chart has drawn its scene (those in a closed
expander wait until it is opened)."""

IN_VIEW = """() => {
    const frames = [...document.querySelectorAll('[data-testid="stDataFrame"]')];
    const overflow = Math.max(0, ...frames.map((frame) => {
        const scroller = frame.querySelector('.dvn-scroller');
        return scroller === null ? 0 : scroller.scrollWidth - scroller.clientWidth;
    }));
    if (overflow > 0) return overflow;
    const complete = frames.map((frame) => frame.querySelector('table[role="grid"]')).every(
        (grid) => grid !== null && grid.querySelectorAll('th[role="columnheader"]').length
            === Number(grid.getAttribute('aria-colcount')));
    return complete ? -1 : 0;
}"""
"""How many pixels the widest table runs past its box (its columns out of view); -1 once
every table's accessibility tree holds a header for each of its columns (0: not yet)."""

READ = """() => {
    const texts = (root, selector) => [...root.querySelectorAll(selector)].map(
        (node) => node.textContent.trim());
    return {
        tables: [...document.querySelectorAll('[data-testid="stDataFrame"]')].map((frame) => {
            const grid = frame.querySelector('table[role="grid"]');
            return {
                columns: Number(grid.getAttribute('aria-colcount')),
                headers: texts(grid, 'th[role="columnheader"]'),
            };
        }),
        tiles: texts(document, '[data-testid="stMetricLabel"]'),
        charts: [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')].map(
            (chart) => ({
                svg: chart.querySelector('svg.marks') !== null,
                titles: texts(chart, '.role-axis-title text, .role-legend-title text, '
                    + '.role-title-text text, .role-title-subtitle text'),
            })),
        exceptions: texts(document, '[data-testid="stException"]'),
        errors: texts(document, '[data-testid="stAlertContentError"]'),
    };
}"""
"""What a person reads on the page drawn."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module's pages."""
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def _open(browser: Any, url: str, errors: list[str] | None = None) -> Any:
    """A new page on ``url``, once its first script run is drawn; ``errors`` collects the
    errors its console logs and those its scripts throw."""
    page = browser.new_page(viewport=VIEWPORT)
    if errors is not None:
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector(
        '[data-testid="stApp"][data-test-connection-state="CONNECTED"]', timeout=WAIT_MS
    )
    page.evaluate(WATCH_RUNS)
    page.wait_for_function(DRAWN, arg=None, timeout=WAIT_MS)
    return page


def _visit(page: Any, name: str) -> None:
    """Click ``name`` in the sidebar's page list (unless it is shown); until its script run
    is drawn."""
    choices = page.get_by_test_id("stSidebar").get_by_role("radiogroup")
    if choices.get_by_role("radio", name=name, exact=True).is_checked():
        return  # the page shown: a click would not run the script again
    before = page.evaluate("() => window.pdbenchRunsEnded")
    choices.get_by_text(name, exact=True).click()
    page.wait_for_function(DRAWN, arg=before, timeout=WAIT_MS)


def _open_expanders(page: Any) -> None:
    """Open every closed expander (a table in one is drawn only once open)."""
    summaries = page.locator('[data-testid="stExpander"] details > summary')
    closed = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="stExpander"] details')]
            .map((details, index) => details.open ? -1 : index).filter((index) => index >= 0)"""
    )
    for index in closed:
        summaries.nth(index).click()
    page.wait_for_function(DRAWN, arg=None, timeout=WAIT_MS)


def _read(page: Any) -> dict[str, Any]:
    """What the page says, every column of every table in view: the page is made as wide
    as its widest table needs (then set back)."""
    widened = False
    while (overflow := page.wait_for_function(IN_VIEW, timeout=WAIT_MS).json_value()) > 0:
        # columns may size to the width they get: until none runs past its box
        width = page.viewport_size["width"] + overflow + 64
        assert width < 20_000, "a table wider than any page"
        page.set_viewport_size({"width": width, "height": VIEWPORT["height"]})
        widened = True
        page.wait_for_function(DRAWN, arg=None, timeout=WAIT_MS)
    shown = page.evaluate(READ)
    if widened:
        page.set_viewport_size(VIEWPORT)
    return shown


def _mart_columns(run_dir: Path) -> set[str]:
    return {name for path in run_dir.glob("*.parquet") for name in pq.read_schema(path).names}


def _unlabelled_columns(run_dir: Path) -> dict[str, str]:
    """A mart column the catalogue lacks, as the viewer would head it (the name with spaces)
    -> the column."""
    catalogue = label_catalogue()
    return {
        column.replace("_", " "): column
        for column in _mart_columns(run_dir)
        if catalogue.get(column) is None and catalogue.get(column, per_agent=True) is None
    }


def _problems(shown: dict[str, Any], unlabelled: dict[str, str]) -> list[str]:
    """Everything on the page that reads as a raw name, or is missing."""
    problems = [f"exception: {text[:200]}" for text in shown["exceptions"]]
    problems += [f"error: {text[:200]}" for text in shown["errors"]]
    for table in shown["tables"]:
        headers = table["headers"]
        if len(headers) != table["columns"]:
            problems.append(f"table: {len(headers)} of {table['columns']} headers read")
        problems += [f"header: {h}" for h in headers if RAW_NAME.search(h) or h in unlabelled]
    problems += [f"tile: {tile}" for tile in shown["tiles"] if RAW_NAME.search(tile)]
    for chart in shown["charts"]:
        if not chart["svg"]:
            problems.append("chart drawn on a canvas: its titles cannot be read")
        problems += [f"chart title: {t}" for t in chart["titles"] if RAW_NAME.search(t)]
    return problems


def _counted(shown: dict[str, Any]) -> tuple[int, int, int]:
    """Headers, tiles and chart titles read."""
    return (
        sum(len(table["headers"]) for table in shown["tables"]),
        len(shown["tiles"]),
        sum(len(chart["titles"]) for chart in shown["charts"]),
    )


def _every_page(browser: Any, run_dir: Path, pages: list[str]) -> tuple[int, int, int]:
    """Visit ``pages`` in turn (the first page as it opens when empty); the headers, tiles
    and chart titles read over them."""
    unlabelled = _unlabelled_columns(run_dir)
    read = [0, 0, 0]
    found: dict[str, list[str]] = {}
    with pdbench_page("ui", run_dir) as url:
        errors: list[str] = []
        page = _open(browser, url, errors)
        try:
            for name in pages or ["(the only page)"]:
                if pages:
                    _visit(page, name)
                _open_expanders(page)
                shown = _read(page)
                problems = _problems(shown, unlabelled) + [f"console: {e[:200]}" for e in errors]
                errors.clear()
                if problems:
                    found[name] = problems
                read = [a + b for a, b in zip(read, _counted(shown), strict=True)]
        finally:
            page.close()
    assert found == {}, json.dumps(found, indent=1)
    return read[0], read[1], read[2]


@pytest.mark.parametrize(
    ("which", "pages", "least"),
    [
        ("pd_run", pd_pages.PAGES, (150, 20, 15)),
        ("pd_round_robin_run", pd_pages.PAGES, (80, 15, 15)),
        ("arena_run", arena_pages.PAGES, (170, 6, 12)),
        ("series_run", [], (15, 0, 3)),
    ],
)
def test_every_page_reads_as_labelled_in_chromium(
    which: str,
    pages: list[str],
    least: tuple[int, int, int],
    browser: Any,
    request: pytest.FixtureRequest,
):
    run_dir: Path = request.getfixturevalue(which)
    headers, tiles, titles = _every_page(browser, run_dir, pages)
    # the check read what the pages show, not an empty page
    assert headers >= least[0] and tiles >= least[1] and titles >= least[2], (
        headers,
        tiles,
        titles,
    )


def test_the_check_catches_a_raw_name():
    """The check itself, on what a page could show."""
    shown = {
        "tables": [{"columns": 3, "headers": ["rank", "p_value_bh"]}],
        "tiles": ["Cooperation", "n_calls"],
        "charts": [{"svg": True, "titles": ["adjusted_ci_low, adjusted score"]}],
        "exceptions": [],
        "errors": [],
    }
    assert _problems(shown, {"offset score": "offset_score"}) == [
        "table: 2 of 3 headers read",
        "header: p_value_bh",
        "tile: n_calls",
        "chart title: adjusted_ci_low, adjusted score",
    ]
    shown["tables"] = [{"columns": 1, "headers": ["offset score"]}]
    shown["charts"] = [{"svg": False, "titles": []}]
    shown["tiles"] = []
    assert _problems(shown, {"offset score": "offset_score"}) == [
        "header: offset score",
        "chart drawn on a canvas: its titles cannot be read",
    ]


def _changed_since_the_marts(run_dir: Path) -> list[str]:
    """The raw files whose size or time differ from those the marts were built from."""
    built = json.loads((run_dir / MARTS_MANIFEST).read_text())["built_from"]
    now = raw_file_stamps(run_dir)
    return sorted(name for name in built.keys() | now.keys() if built.get(name) != now.get(name))


def test_the_freshness_banner_after_resume_with_no_aggregate(
    pd_run: Path, ui_configs: Path, tmp_path: Path, browser: Any
):
    run_dir = tmp_path / "viewer-pd"
    shutil.copytree(pd_run, run_dir)
    assert _changed_since_the_marts(run_dir) == []
    result = CliRunner().invoke(
        cli.app,
        [
            "run",
            str(ui_configs / "viewer_pd.yaml"),
            "--output-dir",
            str(run_dir),
            "--resume",
            "--no-aggregate",
        ],
    )
    assert result.exit_code == 0, result.output
    changed = _changed_since_the_marts(run_dir)
    assert "run_manifest.json" in changed  # the resume is recorded in it
    assert (run_dir / MARTS_MANIFEST).stat().st_mtime_ns < max(
        (run_dir / name).stat().st_mtime_ns for name in changed
    )  # and no tables were built after it

    with pdbench_page("ui", run_dir) as url:
        page = _open(browser, url)
        try:
            banner = page.get_by_test_id("stAlertContentWarning").filter(
                has_text="older than the run's raw files"
            )
            banner.wait_for(timeout=WAIT_MS)
            more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
            named = f"({', '.join(changed[:3])}{more} changed since they were built)"
            assert named in banner.inner_text()
            command = page.get_by_test_id("stCode").filter(has_text="pdbench aggregate")
            assert command.inner_text().strip() == f"uv run pdbench aggregate {run_dir}"
            assert page.locator('[data-testid="stException"]').count() == 0
        finally:
            page.close()
