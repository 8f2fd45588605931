"""Every chart of the viewer has a text alternative (its accessible name), as the Overview's
charts do: the code read for every chart it draws, and AppTest on runs made by the engine and
dbt."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from pdbench.arena.marts import ArenaMart
from pdbench.column_labels import format_cell
from pdbench.ui import run_reader
from pdbench.ui.chart_text import MOST_MARKS, chart_alt
from streamlit.testing.v1 import AppTest

from tests.ui.conftest import open_page
from tests.ui.test_overview_chart import _chart_alt_texts

UI = Path(__file__).resolve().parents[2] / "engine" / "pdbench" / "ui"


def test_every_chart_of_the_viewer_passes_a_text_alternative():
    calls: list[str] = []
    missing: list[str] = []
    for path in sorted(UI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "altair_chart":
                calls.append(f"{path.name}:{node.lineno}")
                if not any(keyword.arg == "alt" for keyword in node.keywords):
                    missing.append(calls[-1])
    assert len(calls) >= 20
    assert missing == []


def test_a_text_alternative_names_its_marks_and_counts_the_rest():
    assert chart_alt("Scores") == "Scores."
    assert chart_alt("Scores", ["ada 6.250", "bob 5.125"]) == "Scores: ada 6.250; bob 5.125."
    many = [f"p{i} {i}" for i in range(MOST_MARKS + 3)]
    assert chart_alt("Scores", many).endswith(f"p{MOST_MARKS - 1} {MOST_MARKS - 1}; and 3 more.")


def _pages(at: AppTest, key: str, pages: list[str]) -> dict[str, list[str]]:
    alts: dict[str, list[str]] = {}
    for page in pages:
        at.radio(key=key).set_value(page)
        at.run()
        assert not at.exception, (page, [e.message for e in at.exception])
        alts[page] = _chart_alt_texts(at)
    return alts


def test_the_charts_of_a_pd_runs_pages_have_text_alternatives(
    pd_run: Path, monkeypatch: pytest.MonkeyPatch
):
    at = open_page(monkeypatch, pd_run, "pd_page", "Overview")
    alts = _pages(at, "pd_page", ["Match", "Condition", "All conditions"])
    assert all(alts[page] for page in alts), alts
    assert all(alt.strip() for texts in alts.values() for alt in texts), alts
    assert any(alt.startswith("Both agents' actions round by round") for alt in alts["Match"])
    assert any(
        alt.startswith("Cooperation rate per condition and seat: ")
        for alt in alts["All conditions"]
    )


def test_the_arena_leaderboard_chart_names_each_score(
    arena_run: Path, monkeypatch: pytest.MonkeyPatch
):
    at = open_page(monkeypatch, arena_run, "arena_page", "Leaderboard")
    board = run_reader.mart(arena_run, ArenaMart.LEADERBOARD).dropna(subset=["score"])
    marks: list[Any] = [
        f"{player} {format_cell('score', score)}"
        for player, score in zip(board["player"], board["score"], strict=True)
    ]
    expected = (
        "Leaderboard, each player's score with its 95% bootstrap interval, best on top: "
        + "; ".join(marks)
        + "."
    )
    assert expected in _chart_alt_texts(at)
