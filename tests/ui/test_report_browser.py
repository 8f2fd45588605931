"""The report ``pdbench report`` writes, laid out by headless Chromium as on A4 paper: every
chart's section fits on one printed page and is kept whole, every heading stays with what
follows it, and every text reaches WCAG AA contrast (4.5:1) on its background, on screen and
in print.

Chromium as in ``test_browser.py``: Debian's ``chromium``, driven by Playwright.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pdbench import cli
from typer.testing import CliRunner

from tests.servers.pages import CHROMIUM_ARGS, chromium

pytestmark = pytest.mark.browser

MM = 96 / 25.4
"""CSS pixels per millimetre."""
A4_WIDTH = round((210 - 2 * 14) * MM)
A4_HEIGHT = round((297 - 2 * 16) * MM)
"""The printable area of an A4 page under the report's ``@page`` margins (16 mm, 14 mm)."""

_CONTRAST = """() => {
  const channel = (c) => {
    c /= 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const rgba = (text) => text.match(/[\\d.]+/g).map(Number);
  const background = (element) => {
    for (let e = element; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c.length < 4 || c[3] > 0) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const found = [];
  for (const element of document.querySelectorAll('body *')) {
    if (element.closest('svg')) continue;
    const own = [...element.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const fore = luminance(rgba(getComputedStyle(element).color));
    const back = luminance(background(element));
    const ratio = (Math.max(fore, back) + 0.05) / (Math.min(fore, back) + 0.05);
    found.push([element.tagName.toLowerCase() + '.' + element.className, ratio]);
  }
  return found;
}"""


def _report(run_dir: Path, output: Path) -> Path:
    result = CliRunner().invoke(cli.app, ["report", str(run_dir), "--output", str(output)])
    assert result.exit_code == 0, result.output
    return output


@pytest.mark.parametrize("which", ["pd_run", "pd_round_robin_run", "arena_run"])
def test_printed_on_a4_every_chart_keeps_its_heading_and_every_text_is_readable(
    which: str, request: pytest.FixtureRequest, tmp_path: Path
):
    run_dir: Path = request.getfixturevalue(which)
    report = _report(run_dir, tmp_path / "report.html")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 1400})
            page.goto(report.as_uri())
            screen = page.evaluate(_CONTRAST)
            page.set_viewport_size({"width": A4_WIDTH, "height": A4_HEIGHT})
            page.emulate_media(media="print")
            printed = page.evaluate(_CONTRAST)
            for name, ratio in [*screen, *printed]:
                assert ratio >= 4.5, (name, ratio)
            assert len(screen) > 20
            charts = page.evaluate(
                """() => [...document.querySelectorAll('section.chart')].map((s) => [
                    s.querySelector('h2').innerText, s.getBoundingClientRect().height,
                    getComputedStyle(s).breakInside])"""
            )
            assert charts
            for heading, height, rule in charts:
                assert height <= A4_HEIGHT, (heading, height)
                assert rule == "avoid", heading
            headings = page.evaluate(
                """() => [...document.querySelectorAll('h2')].map((h) => [h.innerText,
                    getComputedStyle(h).breakAfter, h.nextElementSibling !== null])"""
            )
            assert all(rule == "avoid" and followed for _, rule, followed in headings), headings
            pdf = page.pdf(prefer_css_page_size=True)
            assert pdf.startswith(b"%PDF")
            assert len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf)) >= 2  # printed, on pages
        finally:
            browser.close()
