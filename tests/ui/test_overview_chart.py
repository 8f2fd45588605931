"""The Overview's one chart with Streamlit's AppTest: under the sentences of each kind of run
(a PD run of conditions, a round robin, an arena run, a pairwise-only import) it draws what
answers the run's question, with a caption and the same numbers as a table a click away;
with its mart empty it says why instead."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest
from pdbench.arena.marts import ArenaMart
from pdbench.pd.marts import PDMart
from pdbench.ui import run_reader
from pdbench.ui.arena.overview_chart import with_rank_intervals
from streamlit.testing.v1 import AppTest

from tests.servers.local import SAFETY_NET_S
from tests.ui.conftest import APP


def _app(monkeypatch: pytest.MonkeyPatch, run_dir: Path) -> AppTest:
    monkeypatch.setattr(sys, "argv", ["streamlit_app.py", "--run-dir", str(run_dir)])
    at = AppTest.from_file(str(APP), default_timeout=SAFETY_NET_S)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _walk(node: Any) -> Iterator[Any]:
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


def _chart_specs(at: AppTest) -> list[str]:
    return [
        element.proto.spec
        for element in _walk(at._tree)
        if getattr(element, "type", None) == "vega_lite_chart"
    ]


def _chart_alt_texts(at: AppTest) -> list[str]:
    return [
        element.proto.alt
        for element in _walk(at._tree)
        if getattr(element, "type", None) == "vega_lite_chart"
    ]


def _one_chart(at: AppTest, subheader: str, axis_title: str, alt_start: str) -> None:
    """The Overview holds exactly one chart, titled, with its axis, caption, table and
    accessible name."""
    assert [s.value for s in at.subheader] == [subheader]
    specs = _chart_specs(at)
    assert len(specs) == 1
    assert axis_title in json.dumps(json.loads(specs[0]))
    assert [e.label for e in at.expander] == ["The chart as a table"]
    assert any("95%" in c.value and "interval" in c.value for c in at.caption)
    (alt,) = _chart_alt_texts(at)
    assert alt.startswith(alt_start), alt


def test_a_pd_run_of_conditions_shows_cooperation_per_condition_and_seat(
    pd_run: Path, monkeypatch: pytest.MonkeyPatch
):
    at = _app(monkeypatch, pd_run)
    _one_chart(at, "Cooperation by condition and seat", "cooperation rate", "Cooperation rate per")
    rows = run_reader.mart(pd_run, PDMart.AGGREGATES, "level = 'condition'")
    table = at.expander[0].dataframe[0].value
    assert len(table) == 2 * len(rows)  # a row per condition and seat
    assert set(table["condition"]) == set(rows["condition"])


def test_a_round_robin_shows_its_standings_in_rank_order(
    pd_round_robin_run: Path, monkeypatch: pytest.MonkeyPatch
):
    at = _app(monkeypatch, pd_round_robin_run)
    _one_chart(at, "Standings", "mean points per round (points)", "Standings, mean points")
    standings = run_reader.mart(pd_round_robin_run, PDMart.TOURNAMENT_STANDINGS)
    table = at.expander[0].dataframe[0].value
    assert list(table["agent"]) == list(standings.sort_values("overall_rank")["agent"])
    (alt,) = _chart_alt_texts(at)
    first = standings.sort_values("overall_rank").iloc[0]
    assert f"{int(first['overall_rank'])} · {first['agent']}" in alt
    assert "mean_score_per_round_ci_low" in table.columns


def test_an_arena_run_shows_its_leaderboard_with_rank_intervals(
    arena_run: Path, monkeypatch: pytest.MonkeyPatch
):
    at = _app(monkeypatch, arena_run)
    _one_chart(at, "Leaderboard", "score (normalised judgements", "Leaderboard, mean")
    board = run_reader.mart(arena_run, ArenaMart.LEADERBOARD).dropna(subset=["score"])
    table = at.expander[0].dataframe[0].value
    assert list(table["player"]) == list(board["player"])
    assert "rank_ci_low" in table.columns
    (alt,) = _chart_alt_texts(at)
    for place in with_rank_intervals(board)["place"]:
        assert place in alt


def test_a_pairwise_only_import_shows_its_bradley_terry_ranking(
    council_run: Path, monkeypatch: pytest.MonkeyPatch
):
    at = _app(monkeypatch, council_run)
    _one_chart(
        at, "Bradley-Terry ranking from pairwise verdicts", "Elo-style points", "Bradley-Terry"
    )
    board = run_reader.mart(council_run, ArenaMart.BRADLEY_TERRY)
    assert list(at.expander[0].dataframe[0].value["player"]) == list(board["player"])


def _emptied(run_dir: Path, tmp_path: Path, *marts: str) -> Path:
    """A copy of ``run_dir`` whose ``marts`` hold no row (their columns kept)."""
    copy = tmp_path / run_dir.name
    shutil.copytree(run_dir, copy)
    for name in marts:
        path = copy / name
        emptied = path.with_suffix(".empty.parquet")
        duckdb.sql(
            f"copy (select * from read_parquet('{path}') where false) to '{emptied}' "
            "(format parquet)"
        )
        emptied.replace(path)
    return copy


def test_an_empty_standings_mart_leaves_no_chart_and_says_why(
    pd_round_robin_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    run_dir = _emptied(pd_round_robin_run, tmp_path, PDMart.TOURNAMENT_STANDINGS)
    at = _app(monkeypatch, run_dir)
    assert _chart_specs(at) == []
    assert any(
        "No standings chart" in i.value and PDMart.TOURNAMENT_STANDINGS in i.value for i in at.info
    )


def test_an_arena_run_without_scores_or_verdicts_leaves_no_chart_and_says_why(
    arena_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    run_dir = _emptied(arena_run, tmp_path, ArenaMart.LEADERBOARD, ArenaMart.BRADLEY_TERRY)
    at = _app(monkeypatch, run_dir)
    assert _chart_specs(at) == []
    assert any("No leaderboard chart" in i.value for i in at.info)


def test_a_players_place_names_the_ranks_its_interval_holds():
    board = pd.DataFrame(
        {
            "player": ["p0", "p1", "p2"],
            "rank_ci_low": [1, 1, None],
            "rank_ci_high": [1, 3, None],
        }
    )
    assert with_rank_intervals(board)["place"].tolist() == [
        "p0 · rank 1",
        "p1 · ranks 1–3",
        "p2 · rank interval —",
    ]
