"""``pdbench report`` without a browser: a folder that is no run, or a run without its marts,
is one line and exit 2; the forest plot puts each value and interval where the axis says;
the report of hand-made marts holds the overview and no reference to any host."""

from __future__ import annotations

import re
import socket
from html import unescape
from pathlib import Path

import pytest
from pdbench import cli
from pdbench.overview import run_overview
from pdbench.report_svg import LABEL_WIDTH, PLOT_WIDTH, ForestRow, forest_plot
from typer.testing import CliRunner

from tests.unit.test_overview import arena_run, pd_run  # noqa: F401  (fixtures)


def _report(*args: str):
    return CliRunner().invoke(cli.app, ["report", *args])


def test_a_folder_that_is_no_run_is_one_line_and_exit_2(tmp_path: Path):
    result = _report(str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {tmp_path}: not a run directory (no run_manifest.json), a series "
        "(no series_manifest.json) nor a folder of runs (no */run_manifest.json)\n"
    )
    missing = _report(str(tmp_path / "nowhere"))
    assert (missing.exit_code, missing.stderr) == (
        2,
        f"error: {tmp_path / 'nowhere'}: no such run directory\n",
    )


def test_a_run_without_its_marts_names_the_aggregate_command(pd_run: Path):  # noqa: F811
    # the hand-made run has two marts of the many a PD run holds
    result = _report(str(pd_run), "--output", str(pd_run.parent / "r.html"))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert f"build them: uv run pdbench aggregate {pd_run}" in result.stderr
    assert not (pd_run.parent / "r.html").exists()


def test_the_forest_plot_puts_values_where_the_axis_says():
    svg = forest_plot(
        [ForestRow("x", 0.5, 0.25, 0.75, "half"), ForestRow("y", 0.1, None, None, "tenth", False)],
        title="t",
        axis="a",
        percent=True,
        bounds=(0.0, 1.0),
    )
    circles = [float(x) for x in re.findall(r'<circle cx="([\d.]+)"', svg)]
    assert circles == [LABEL_WIDTH + 0.5 * PLOT_WIDTH, LABEL_WIDTH + 0.1 * PLOT_WIDTH]
    (line,) = re.findall(
        r'<line x1="([\d.]+)" y1="[\d.]+" x2="([\d.]+)" y2="[\d.]+" stroke="#0072b2"', svg
    )
    assert [float(v) for v in line] == [
        LABEL_WIDTH + 0.25 * PLOT_WIDTH,
        LABEL_WIDTH + 0.75 * PLOT_WIDTH,
    ]
    assert [t for t in re.findall(r">(\d+%)</text>", svg)] == [
        "0%",
        "20%",
        "40%",
        "60%",
        "80%",
        "100%",
    ]


def _add_columns(mart: Path, columns: dict[str, str]) -> None:
    """Add to the hand-made ``mart`` the columns a built one has (name -> SQL value)."""
    import duckdb

    shown = ", ".join(f"{value} as {name}" for name, value in columns.items())
    with duckdb.connect() as con:
        con.execute(f"create table widened as select *, {shown} from '{mart}'")
        con.execute(f"copy widened to '{mart}' (format parquet)")


def test_the_report_holds_the_overview_and_names_no_host(arena_run: Path, tmp_path: Path):  # noqa: F811
    from pdbench.arena.marts import ArenaMart
    from pdbench.empty_marts import write_empty_marts
    from pdbench.games import GAMES

    _add_columns(
        arena_run / ArenaMart.LEADERBOARD,
        {"n_answers": "10", "n_answers_invalid": "0", "normalization": "'shift'",
         "bootstrap_n": "200", "interval_expansion": "1.0"},
    )  # fmt: skip
    _add_columns(arena_run / ArenaMart.JUDGE_PLAYER_BIAS, {"n_permutations": "400"})
    game = GAMES["arena"]  # the marts the hand-made run lacks: their columns, no row
    write_empty_marts(
        arena_run, game, [n for n in game.marts.viewer_marts if not (arena_run / n).exists()]
    )
    html = tmp_path / "arena.html"
    result = _report(str(arena_run), "-o", str(html))
    assert result.exit_code == 0, result.output
    text = html.read_text(encoding="utf-8")
    for finding in run_overview(arena_run).findings:
        assert finding.text.replace("'", "&#x27;") in text
    assert "<script" not in text
    assert re.findall(r"(?:src|href)=", text) == []
    assert re.findall(r"https?://", text) == ["http://"]  # the SVG namespace, never fetched


def test_a_folder_of_runs_is_one_offline_page_listing_each_run_with_its_headline(
    pd_run: Path,  # noqa: F811
    arena_run: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
):
    folder = pd_run.parent
    assert arena_run.parent == folder
    (folder / "notes").mkdir()  # a folder that is no run is not listed
    opened: list[object] = []
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: opened.append(a))
    monkeypatch.setattr(socket.socket, "connect", lambda *a, **k: opened.append(a))
    html = tmp_path / "runs.html"
    result = _report(str(folder), "-o", str(html))
    assert result.exit_code == 0, result.output
    assert opened == []
    text = html.read_text(encoding="utf-8")
    rows = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>[^<]*</td><td>([^<]*)</td>", text)
    expected = {
        "pd-small": ("pd", run_overview(pd_run).findings[0].text),
        "arena-small": ("arena", run_overview(arena_run).findings[0].text),
    }
    assert {run: (game, unescape(headline)) for run, game, headline in rows} == expected
    # nothing fetched and nothing linked: no script, no src or href, no host
    assert "<script" not in text
    assert re.findall(r"(?:src|href)=", text) == []
    assert re.findall(r"https?://", text) == []
    assert f"pdbench report {pd_run}" in text


def test_a_p_value_has_one_format_and_a_chart_says_its_rows_in_words():
    from pdbench.report_svg import chart_description, p_value_text

    assert [p_value_text(p) for p in (0.0, 0.00099, 0.001, 0.0773, 1.0, None)] == [
        "< 0.001", "< 0.001", "0.001", "0.077", "1.000", "—",
    ]  # fmt: skip
    rows = [ForestRow("x <b>", 0.5, 0.25, 0.75, "50.0% [25.0%, 75.0%]")]
    svg = forest_plot(rows, title="t", axis="share")
    assert "<desc>share: x &lt;b&gt;, 50.0% [25.0%, 75.0%].</desc>" in svg
    assert chart_description([], axis="share") == "share: no rows."


def _hostile_manifest() -> dict:
    hostile = "<script>alert(1)</script>**bold** [link](https://evil.example)"
    llm = {"type": "llm", "provider": "mock", "model": hostile, "temperature": 0.5,
           "output_format": "token", "max_retries": 3, "on_invalid": "fallback",
           "fallback_action": "C", "history_window": 4, "persona": hostile}  # fmt: skip
    return {
        "source": "played",
        "metric_params": {"collapse_k": 6, "collapse_threshold": 0.3},
        "config": {
            "replicates": 5,
            "noise": 0.05,
            "payoffs": {"CC": [2, 2], "CD": [-1, 4], "DC": [4, -1], "DD": [0.5, 0.5]},
            "horizon": {"type": "geometric", "stop_prob": 0.1, "max_rounds": 40},
            "conditions": [
                {
                    "name": hostile,
                    "agent_a": llm,
                    "agent_b": {"type": "policy", "policy": "TFT"},
                    "noise": 0.2,
                },
            ],
        },
    }


def test_the_setup_shows_the_configs_own_values_and_its_text_as_text(tmp_path: Path):
    from pdbench.pd.report_methods import setup_sections

    sections = {s.heading: s for s in setup_sections(tmp_path, _hostile_manifest())}
    assert {s.place for s in sections.values()} == {"setup"}
    cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", sections["Payoff table"].body)
    assert cells[3:] == ["A plays C", "2, 2", "-1, 4", "A plays D", "4, -1", "0.5, 0.5"]
    facts = dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", sections["Setup"].body))
    assert facts["horizon"] == (
        "geometric: stops after each round with probability 0.1 (mean 10 rounds), at most 40 rounds"
    )
    assert facts["noise"].startswith("0.05 (") and facts["noise"].endswith(" 0.2")
    assert facts["replicates per condition"] == "5"
    assert facts["collapse window"] == "6 rounds at cooperation ≤ 0.3"
    agents = sections["Agents"].body
    assert "3 retries of an invalid reply, then the fallback move C" in agents
    html = "".join(s.body for s in sections.values())
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;**bold**" in html
    assert "<strong>" not in html and "<a " not in html  # Markdown stays text


def test_every_text_colour_of_the_report_reaches_wcag_aa():
    from pdbench.report import _STYLE

    def luminance(colour: str) -> float:
        def channel(c: float) -> float:
            c /= 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)

    colours = re.findall(r"(?<![-\w])color:\s*(#[0-9a-f]{6})", _STYLE)
    backgrounds = re.findall(r"background:\s*(#[0-9a-f]{6})", _STYLE)
    assert len(colours) >= 5 and backgrounds
    for colour in colours:
        for background in backgrounds:
            high, low = sorted((luminance(colour), luminance(background)), reverse=True)
            assert (high + 0.05) / (low + 0.05) >= 4.5, (colour, background)


def test_a_findings_viewer_page_names_what_it_opens_on():
    from pdbench.findings import Finding
    from pdbench.overview import Overview
    from pdbench.report import _overview_html

    findings = (
        Finding("cooperation", "Highest cooperation: A · tft in c<1>.", "Condition", focus="c<1>"),
        Finding("differences", "0 of 2 differences hold.", "All conditions"),
    )
    html = _overview_html(Overview(Path("run"), "run", "pd", findings, findings[0].text))
    assert "(viewer page: Condition, c&lt;1&gt;)" in html
    assert "(viewer page: All conditions)" in html
