"""The viewer driven page by page with Streamlit's AppTest on runs made by the real engine and
dbt: no exception anywhere, and every number shown is the number in the marts (read here
independently with DuckDB)."""

from __future__ import annotations

import json
import math
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest
from pdbench.arena.marts import ArenaMart
from pdbench.column_labels import format_cell, label
from pdbench.findings import bracket_text
from pdbench.model_text import escaped
from pdbench.pd.marts import PDMart
from pdbench.pd.metrics import pd_metrics
from pdbench.ui.arena import calibration as arena_calibration
from pdbench.ui.arena import diversity as arena_diversity
from pdbench.ui.arena import pages as arena_pages
from pdbench.ui.arena import tricks as arena_tricks
from pdbench.ui.formats import format_value
from pdbench.ui.pd import intervals as pd_intervals
from pdbench.ui.pd import pages as pd_pages
from pdbench.ui.pd import strategies as pd_strategies
from streamlit.testing.v1 import AppTest

from tests.servers.local import SAFETY_NET_S
from tests.ui.conftest import APP
from tests.ui.test_labels_shown import _specs
from tests.ui.test_overview_chart import _chart_specs


def _rows(sql: str, *params: Any) -> list[dict[str, Any]]:
    with duckdb.connect() as con:
        cursor = con.execute(sql, list(params))
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _app(monkeypatch: pytest.MonkeyPatch, *argv: str) -> AppTest:
    monkeypatch.setattr(sys, "argv", ["streamlit_app.py", *argv])
    at = AppTest.from_file(str(APP), default_timeout=SAFETY_NET_S)
    at.run()
    _no_exception(at)
    return at


def _no_exception(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _set(at: AppTest, widget: Any, value: Any) -> None:
    widget.set_value(value)
    at.run()
    _no_exception(at)


def _metrics(at: AppTest) -> dict[str, str]:
    return {metric.label: metric.value for metric in at.metric}


def _same(shown: Any, expected: Any) -> bool:
    if expected is None or (isinstance(expected, float) and math.isnan(expected)):
        return shown is None or pd.isna(shown)
    if isinstance(expected, float):
        return math.isclose(float(shown), expected, rel_tol=0, abs_tol=1e-12)
    return shown == expected


def _assert_headline(at: AppTest, row: dict[str, Any]) -> None:
    shown = _metrics(at)
    for tile in pd_pages.HEADLINE_TILES:
        assert shown[tile.label] == format_value(row[tile.column], tile.kind), tile


def _assert_agent_table(table: pd.DataFrame, row: dict[str, Any]) -> None:
    assert table["agent"].tolist() == [
        f"A · {row['agent_a_name']}",
        f"B · {row['agent_b_name']}",
    ]
    for title, column, _ in pd_pages.AGENT_COLUMNS:
        for position, side in enumerate(("a", "b")):
            expected = row[f"{column}_{side}"]
            assert _same(table[column].iloc[position], expected), (title, side)


# PD ---------------------------------------------------------------------------------------


def test_match_page_shows_the_replicate_metrics_of_every_match(
    pd_run: Path, monkeypatch: pytest.MonkeyPatch
):
    aggregates = str(pd_run / PDMart.AGGREGATES)
    replicates = _rows(
        f"select * from '{aggregates}' where level = 'replicate' order by condition, replicate"
    )
    assert len(replicates) == 6
    at = _app(monkeypatch, "--run-dir", str(pd_run))
    assert at.radio(key="pd_page").value == "Overview"
    _set(at, at.radio(key="pd_page"), "Match")
    for row in replicates:
        _set(at, at.selectbox(key="condition"), row["condition"])
        _set(at, at.selectbox(key="replicate"), row["replicate"])
        assert at.header[0].value == f"{escaped(row['condition'])} · replicate {row['replicate']}"
        _assert_headline(at, row)
        _assert_agent_table(at.dataframe[0].value, row)
        # the cooperation tile really is the mart's column, written as a percentage
        assert _metrics(at)["Cooperation"] == f"{row['cooperation_rate']:.1%}"


def test_condition_page_shows_the_condition_rows(pd_run: Path, monkeypatch: pytest.MonkeyPatch):
    aggregates = str(pd_run / PDMart.AGGREGATES)
    conditions = _rows(f"select * from '{aggregates}' where level = 'condition' order by condition")
    at = _app(monkeypatch, "--run-dir", str(pd_run))
    _set(at, at.radio(key="pd_page"), "Condition")
    for row in conditions:
        _set(at, at.selectbox(key="condition"), row["condition"])
        _assert_headline(at, row)
        shown = _metrics(at)
        for tile in pd_pages.CONDITION_TILES:
            assert shown[tile.label] == format_value(row[tile.column], tile.kind), tile
        assert shown["Replicates"] == "2"
        _assert_agent_table(at.dataframe[0].value, row)
        _assert_intervals(at.dataframe[1].value, row)
        compared = _rows(
            f"select * from '{pd_run / PDMart.COMPARISONS}' where ? in (condition_1, condition_2)"
            " order by condition_1, condition_2, metric",
            row["condition"],
        )
        _assert_comparisons(at.dataframe[2].value, compared)


def _assert_intervals(table: pd.DataFrame, row: dict[str, Any]) -> None:
    assert len(table) == len(pd_intervals.INTERVAL_METRICS) > 10
    for position, (title, column) in enumerate(pd_intervals.INTERVAL_METRICS):
        assert table["metric"].iloc[position] == title
        # each value in its own metric's format (the column mixes shares and points)
        assert table["mean"].iloc[position] == format_cell(column, row[column]), column
        assert table["95% low"].iloc[position] == format_cell(column, row[f"{column}_ci_low"])
        assert table["95% high"].iloc[position] == format_cell(column, row[f"{column}_ci_high"])
        assert _same(table["note"].iloc[position], row[f"{column}_ci_note"]), column
    shown = dict(zip(table["metric"], table["mean"], strict=True))
    cooperation = next(t for t, c in pd_intervals.INTERVAL_METRICS if c == "cooperation_rate_a")
    payoff = next(t for t, c in pd_intervals.INTERVAL_METRICS if c == "payoff_per_round_a")
    assert shown[cooperation] == f"{100 * row['cooperation_rate_a']:.1f}%"
    assert shown[payoff] == f"{row['payoff_per_round_a']:.3f}"
    # an interval holds the mean and is never a point: two replicates that agree get none
    # but a rate's binomial floor, and the note says why
    low, high = row["cooperation_rate_a_ci_low"], row["cooperation_rate_a_ci_high"]
    if low is None:
        assert row["cooperation_rate_a_ci_note"] == "every replicate gave the same value"
    else:
        assert low < high and low <= row["cooperation_rate_a"] <= high


def _assert_comparisons(
    table: pd.DataFrame,
    expected: list[dict[str, Any]],
    columns: list[str] = pd_intervals.COMPARISON_COLUMNS,
) -> None:
    assert len(table) == len(expected) > 0
    for column in columns:
        for position, row in enumerate(expected):
            shown = table[column].iloc[position]
            if column == "verdict":
                # an inconclusive verdict goes on to say what the run could have detected
                verdict, _, detectable = shown.partition(": ")
                assert verdict == row["verdict"]
                assert bool(detectable) == (row["verdict"] == "inconclusive"), shown
                continue
            assert _same(shown, row[column]), column


def test_all_conditions_table_is_the_condition_rows(pd_run: Path, monkeypatch: pytest.MonkeyPatch):
    aggregates = str(pd_run / PDMart.AGGREGATES)
    conditions = _rows(f"select * from '{aggregates}' where level = 'condition' order by condition")
    at = _app(monkeypatch, "--run-dir", str(pd_run))
    _set(at, at.radio(key="pd_page"), "All conditions")
    # the table's chosen columns first, every column a click away (a wide table)
    chosen, table = at.dataframe[0].value, at.dataframe[1].value
    assert list(chosen.columns) == [c for c in table.columns if c in chosen.columns]
    assert len(chosen.columns) < len(table.columns)
    assert table["condition"].tolist() == [row["condition"] for row in conditions]
    for column in table.columns:
        for position, row in enumerate(conditions):
            assert _same(table[column].iloc[position], row[column]), column
    compared = _rows(
        f"select * from '{pd_run / PDMart.COMPARISONS}' order by condition_1, condition_2, metric"
    )
    assert {(r["condition_1"], r["condition_2"]) for r in compared} == {
        (first, second)
        for first in table["condition"]
        for second in table["condition"]
        if first < second
    }
    # the two conditions picked (the first two by default) side by side, then every comparison
    first, second = table["condition"].iloc[0], table["condition"].iloc[1]
    picked = [r for r in compared if (r["condition_1"], r["condition_2"]) == (first, second)]
    _assert_comparisons(at.dataframe[2].value, picked, pd_intervals.DIFFERENCE_COLUMNS)
    _assert_comparisons(at.dataframe[3].value, compared)


def test_the_side_by_side_view_opens_on_a_pair_the_run_compared(
    pd_run: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    """A run that compared only its second and third conditions (in name order) opens the
    side-by-side view on them, not on the first two, which it never compared."""
    run_dir = tmp_path / "run"
    shutil.copytree(pd_run, run_dir)
    path = run_dir / PDMart.COMPARISONS
    conditions = sorted(
        r["condition"]
        for r in _rows(
            f"select condition from '{run_dir / PDMart.AGGREGATES}' where level = 'condition'"
        )
    )
    assert len(conditions) == 3
    kept = (conditions[1], conditions[2])
    with duckdb.connect() as con:
        con.execute(
            f"copy (select * from read_parquet('{path}') where condition_1 = ? "
            f"and condition_2 = ?) to '{path}.new' (format parquet)",
            list(kept),
        )
    Path(f"{path}.new").replace(path)
    at = _app(monkeypatch, "--run-dir", str(run_dir))
    _set(at, at.radio(key="pd_page"), "All conditions")
    assert (
        at.selectbox(key="difference_first").value,
        at.selectbox(key="difference_second").value,
    ) == kept
    picked = _rows(f"select * from '{path}' order by metric")
    _assert_comparisons(at.dataframe[2].value, picked, pd_intervals.DIFFERENCE_COLUMNS)


def test_the_comparisons_filter_keeps_what_holds_after_bh_and_the_conditions_chosen(
    pd_run: Path, monkeypatch: pytest.MonkeyPatch
):
    comparisons = str(pd_run / PDMart.COMPARISONS)
    at = _app(monkeypatch, "--run-dir", str(pd_run))
    _set(at, at.radio(key="pd_page"), "All conditions")
    _set(at, at.toggle(key="comparisons_all_bh"), True)
    held = _rows(
        f"select * from '{comparisons}' where p_value_bh <= 0.05 "
        "order by condition_1, condition_2, metric"
    )
    table = at.dataframe[3].value
    assert len(table) == len(held)
    assert (table["p_value_bh"] <= 0.05).all()
    _set(at, at.toggle(key="comparisons_all_bh"), False)
    _set(at, at.multiselect(key="comparisons_all_conditions"), ["llm_vs_llm"])
    kept = _rows(
        f"select * from '{comparisons}' where 'llm_vs_llm' in (condition_1, condition_2) "
        "order by condition_1, condition_2, metric"
    )
    _assert_comparisons(at.dataframe[3].value, kept)
    assert len(kept) < len(_rows(f"select * from '{comparisons}'"))


def test_a_run_that_is_no_round_robin_is_not_ranked(pd_run: Path, monkeypatch: pytest.MonkeyPatch):
    at = _app(monkeypatch, "--run-dir", str(pd_run))
    _set(at, at.radio(key="pd_page"), "Tournament")
    assert "overall_rank" not in at.dataframe[0].value.columns
    assert "Not a round robin" in _shown_text(at)


def test_tournament_page_ranks_the_standings(
    pd_round_robin_run: Path, monkeypatch: pytest.MonkeyPatch
):
    pd_run = pd_round_robin_run
    standings = _rows(
        f"select * from '{pd_run / PDMart.TOURNAMENT_STANDINGS}' "
        "where agent is not null order by overall_rank, agent"
    )
    at = _app(monkeypatch, "--run-dir", str(pd_run))
    _set(at, at.radio(key="pd_page"), "Tournament")
    table = at.dataframe[0].value
    assert table["agent"].tolist() == [row["agent"] for row in standings]
    for position, row in enumerate(standings):
        for column in (
            "mean_score_per_round",
            "mean_score_per_round_ci_low",
            "mean_score_per_round_ci_high",
            "mean_score_per_round_ci_note",
            "n_replicates",
        ):
            assert _same(table[column].iloc[position], row[column]), column
        assert table["overall_rank"].iloc[position] == row["overall_rank"]
    assert table["overall_rank"].is_monotonic_increasing
    # the interval is drawn beside each agent's matches, where the mart has one
    spread = _specs(at)[0]
    (rule,) = [layer for layer in spread["layer"] if layer["mark"]["type"] == "rule"]
    assert rule["encoding"]["x"]["field"] == "mean_score_per_round_ci_low"
    assert rule["encoding"]["x2"]["field"] == "mean_score_per_round_ci_high"


def test_strategies_page_names_each_agents_closest_strategy(
    pd_run: Path, monkeypatch: pytest.MonkeyPatch
):
    closest = _rows(
        f"select agent_name, string_agg(reference, ' = ' order by reference) as reference, "
        f"sum(posterior) as posterior from '{pd_run / PDMart.STRATEGY_FIT}' "
        "where level = 'agent' and is_closest group by agent_name order by agent_name"
    )
    at = _app(monkeypatch, "--run-dir", str(pd_run))
    _set(at, at.radio(key="pd_page"), "Strategies")
    table = at.dataframe[0].value
    assert table["agent_name"].tolist() == [row["agent_name"] for row in closest]
    assert table["reference"].tolist() == [row["reference"] for row in closest]
    for position, row in enumerate(closest):
        assert _same(table["posterior"].iloc[position], row["posterior"])
    # the LLM agent whose mock plays TFT against ALLD and GTFT is read as TFT's kin
    assert (
        "TFT"
        in table["reference"].iloc[table["agent_name"].tolist().index("mock/mock-pd:tit_for_tat")]
    )
    # this run probes nobody: the fingerprint section says how to ask for one
    assert any("fingerprint:" in info.value for info in at.info)


def test_strategies_page_shows_each_agents_strategy_shares_with_their_intervals(
    pd_run: Path, monkeypatch: pytest.MonkeyPatch
):
    shares = _rows(
        f"select agent_name, strategy, share, share_ci_low, share_ci_high "
        f"from '{pd_run / PDMart.STRATEGY_SHARES}' "
        "where share >= 0.005 or share_ci_high >= 0.05 order by agent_name, share desc, strategy"
    )
    at = _app(monkeypatch, "--run-dir", str(pd_run))
    _set(at, at.radio(key="pd_page"), "Strategies")
    (table,) = [
        frame.value for frame in at.dataframe if "share_with_interval" in frame.value.columns
    ]
    assert table["strategy"].tolist() == [row["strategy"] for row in shares]
    assert table["share_with_interval"].tolist() == [
        bracket_text("share", row["share"], row["share_ci_low"], row["share_ci_high"])
        for row in shares
    ]


def test_fingerprint_heatmap_draws_every_point():
    points = pd.DataFrame(
        {
            "probe_x": [0.0, 0.0, 1.0, 1.0],
            "probe_y": [0.0, 1.0, 0.0, 1.0],
            "mean_score_per_round": [3.0, 0.98, 3.0, 2.5],
            "score_se": [0.0, 0.0, 0.0, 0.0],
            "cooperation_rate": [1.0, 0.02, 1.0, 0.5],
            "n_matches": [2, 2, 2, 2],
        }
    )
    spec = pd_strategies.fingerprint_heatmap(points).to_dict()
    (data,) = spec["datasets"].values()
    assert [(d["probe_x"], d["probe_y"], d["mean_score_per_round"]) for d in data] == [
        (0.0, 0.0, 3.0),
        (0.0, 1.0, 0.98),
        (1.0, 0.0, 3.0),
        (1.0, 1.0, 2.5),
    ]
    rect = spec["layer"][0]
    assert rect["mark"]["type"] == "rect"
    assert rect["encoding"]["color"]["field"] == "mean_score_per_round"


def test_evolution_page_shows_the_fixation_probabilities(
    pd_round_robin_run: Path, monkeypatch: pytest.MonkeyPatch
):
    fixation = _rows(
        f"select * from '{pd_round_robin_run / PDMart.TOURNAMENT_FIXATION}' "
        "where mutant is not null order by mutant, resident"
    )
    assert len(fixation) == 6  # ordered pairs of ALLC, ALLD and TFT
    at = _app(monkeypatch, "--run-dir", str(pd_round_robin_run))
    _set(at, at.radio(key="pd_page"), "Evolution")
    assert [s.value for s in at.subheader] == ["Population shares", "Fixation probabilities"]
    assert any("population of 4 residents" in caption.value for caption in at.caption)
    table = at.dataframe[0].value
    assert list(zip(table["mutant"], table["resident"], strict=True)) == [
        (row["mutant"], row["resident"]) for row in fixation
    ]
    for position, row in enumerate(fixation):
        assert _same(table["fixation_probability"].iloc[position], row["fixation_probability"])
        assert table["is_favoured"].iloc[position] == row["is_favoured"]
        assert _same(
            table["simulated_fixation_rate"].iloc[position], row["simulated_fixation_rate"]
        )


def test_evolution_page_without_self_play_says_why_it_is_empty(
    pd_run: Path, monkeypatch: pytest.MonkeyPatch
):
    at = _app(monkeypatch, "--run-dir", str(pd_run))
    _set(at, at.radio(key="pd_page"), "Evolution")
    assert "a round robin with self_play: true" in _shown_text(at)
    assert not at.dataframe


def test_calls_page_shows_the_run_row(pd_run: Path, monkeypatch: pytest.MonkeyPatch):
    (run_row,) = _rows(f"select * from '{pd_run / PDMart.CALLS_SUMMARY}' where level = 'run'")
    at = _app(monkeypatch, "--run-dir", str(pd_run))
    _set(at, at.radio(key="pd_page"), "Provider calls")
    shown = _metrics(at)
    assert shown["Calls"] == str(run_row["n_calls"])
    assert shown["Invalid attempts"] == format_value(run_row["invalid_attempt_share"], "rate")


def test_calls_page_of_an_imported_run_says_not_recorded(
    pd_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    imported = tmp_path / "imported"
    shutil.copytree(pd_run, imported)
    manifest_path = imported / "run_manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["source"] = "imported"
    manifest["imported"] = {"format": "fontana", "sources": []}
    manifest_path.write_text(json.dumps(manifest))
    at = _app(monkeypatch, "--run-dir", str(imported))
    _set(at, at.radio(key="pd_page"), "Provider calls")
    assert "Not recorded: this run was imported (fontana)" in _shown_text(at)
    assert not _metrics(at)


def test_round_inspector_shows_every_attempt_of_a_retried_round(
    pd_run: Path, monkeypatch: pytest.MonkeyPatch
):
    retried = [
        json.loads(line)
        for line in (pd_run / "rounds.jsonl").read_text().splitlines()
        if '"llm"' in line
    ]
    record = next(r for r in retried if r["agent_a_attempts"] > 1 or r["agent_b_attempts"] > 1)
    at = _app(monkeypatch, "--run-dir", str(pd_run))
    _set(at, at.radio(key="pd_page"), "Match")
    _set(at, at.selectbox(key="condition"), record["condition"])
    _set(at, at.selectbox(key="replicate"), record["replicate"])
    _set(at, at.number_input(key="round"), record["round_index"])
    codes = [code.value for code in at.code]
    for side in ("agent_a", "agent_b"):
        for reply in (record.get("raw_responses") or {}).get(side, []):
            assert reply in codes
        if side in (record.get("prompts") or {}):
            assert record["prompts"][side]["round"] in codes
    attempts = sum(len(replies) for replies in record["raw_responses"].values())
    assert attempts == record["agent_a_attempts"] + record["agent_b_attempts"]
    labels = [m.value for m in at.markdown if m.value.startswith("Reply, attempt")]
    assert len(labels) == attempts >= 2
    # each reply is followed by what the rules read in it: invalid, or the move and its rule
    readings = [m.value for m in at.markdown if m.value.startswith("→")]
    expected = []
    for side in ("agent_a", "agent_b"):
        replies = (record.get("raw_responses") or {}).get(side, [])
        valid = record[f"{side}_valid"]
        for attempt in range(1, len(replies) + 1):
            if valid and attempt == len(replies):
                move = record[f"{side}_intended_action"]
                rule = "json" if replies[-1].lstrip().startswith("{") else "token"
                expected.append(f"→ read as **{move}** (rule {rule})")
            else:
                expected.append("→ :red[not read as a move (invalid)]")
    assert readings == expected


# Arena ------------------------------------------------------------------------------------


def test_leaderboard_is_the_leaderboard_mart(arena_run: Path, monkeypatch: pytest.MonkeyPatch):
    board = _rows(
        f"select * from '{arena_run / ArenaMart.LEADERBOARD}' "
        "where player is not null order by rank, player"
    )
    assert len(board) == 3
    at = _app(monkeypatch, "--run-dir", str(arena_run))
    assert at.radio(key="arena_page").value == "Overview"
    _set(at, at.radio(key="arena_page"), "Leaderboard")
    table = at.dataframe[0].value
    assert table["player"].tolist() == [row["player"] for row in board]
    for column in ("rank", "score", "ci_low", "ci_high", "rank_ci_low", "rank_ci_high"):
        for position, row in enumerate(board):
            assert _same(table[column].iloc[position], row[column]), column
    assert _metrics(at)[f"Rank 1 · {board[0]['player']}"] == f"{board[0]['score']:.3f}"


def test_the_leaderboard_shows_each_participants_role(
    arena_roles_run: Path, monkeypatch: pytest.MonkeyPatch
):
    board = _rows(f"select * from '{arena_roles_run / ArenaMart.LEADERBOARD}'")
    assert {row["player"]: row["role"] for row in board} == {
        "p0": "player", "ref": "judge", "p1": "player", "ans": "answerer"
    }  # fmt: skip
    at = _app(monkeypatch, "--run-dir", str(arena_roles_run))
    _set(at, at.radio(key="arena_page"), "Leaderboard")
    table = at.dataframe[0].value
    roles = dict(zip(table["player"], table["role"], strict=True))
    assert roles == {row["player"]: row["role"] for row in board}
    referee = table[table["player"] == "ref"].iloc[0]
    assert referee["status"] == "judge only" and pd.isna(referee["rank"])
    captions = [c.value for c in at.caption]
    assert "Judge only (rate questions and judge answers, never answer): ref; not ranked." in (
        captions
    )
    assert not [w.value for w in at.warning if "ref" in w.value]  # not "insufficient data"
    assert sorted(table["rank"].dropna().astype(int)) == [1, 2, 3]


def test_the_leaderboard_shows_the_audience_scores_once_people_voted(
    arena_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    at = _app(monkeypatch, "--run-dir", str(arena_run))
    _set(at, at.radio(key="arena_page"), "Leaderboard")
    # the leaderboard: its chosen columns, and every one a click away
    assert len(at.dataframe) == 2
    assert [e.label for e in at.expander if e.label.startswith("All ")] == ["All 20 columns"]
    assert any("Nobody has scored" in caption.value for caption in at.caption)

    run = tmp_path / "run"
    shutil.copytree(arena_run, run)
    path = run / ArenaMart.AUDIENCE_SCORES
    with duckdb.connect() as con:  # the models' order reversed by the audience
        con.execute(
            f"copy (select * replace (10 - model_rank as audience_score, 4::bigint as n_votes, "
            f"2::bigint as n_answers_voted, -0.5 as agreement_pearson, "
            f"null::varchar as agreement_null_reason, true as agreement_is_few_data, "
            f"rank() over (order by model_rank desc) as audience_rank) "
            f"from (select * replace (l.score as model_score, l.rank as model_rank) "
            f"from '{path}' a join '{arena_run / ArenaMart.LEADERBOARD}' l using (player))) "
            f"to '{path}' (format parquet)"
        )
    rows = _rows(f"select * from '{path}' order by audience_rank, player")
    at = _app(monkeypatch, "--run-dir", str(run))
    _set(at, at.radio(key="arena_page"), "Leaderboard")
    table = at.dataframe[2].value
    assert table["player"].tolist() == [row["player"] for row in rows]
    assert table["model_rank"].tolist() == sorted(table["model_rank"].tolist(), reverse=True)
    for column in ("audience_score", "model_score", "audience_rank", "n_votes"):
        for position, row in enumerate(rows):
            assert _same(table[column].iloc[position], row[column]), column
    assert any("Pearson -0.500" in caption.value for caption in at.caption)
    # a correlation over few answers and scores over 2 voted answers each say so
    assert any("few data" in caption.value for caption in at.caption)
    assert any("Few data" in warning.value for warning in at.warning)


def test_a_player_with_insufficient_data_is_named_and_not_on_the_podium(
    arena_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    run = tmp_path / "run"
    shutil.copytree(arena_run, run)
    path = run / ArenaMart.LEADERBOARD
    with duckdb.connect() as con:  # the best player's score rests on 1 judgement of 3
        con.execute(
            f"copy (select * replace ("
            f"case when rank = 1 then 'insufficient data' else status end as status, "
            f"case when rank = 1 then false else has_enough_data end as has_enough_data, "
            f"case when rank = 1 then 1 else n_judgments end as n_judgments, "
            f"case when rank = 1 then null else ci_low end as ci_low, "
            f"case when rank = 1 then null else ci_high end as ci_high, "
            f"case when rank = 1 then null else rank - 1 end as rank) "
            f"from '{arena_run / ArenaMart.LEADERBOARD}') to '{path}' (format parquet)"
        )
    board = _rows(f"select * from '{path}' order by rank nulls last, player")
    unranked = board[-1]
    assert unranked["status"] == "insufficient data"
    at = _app(monkeypatch, "--run-dir", str(run))
    _set(at, at.radio(key="arena_page"), "Leaderboard")
    warnings = " ".join(w.value for w in at.warning)
    assert f"{escaped(unranked['player'])} (1 of {unranked['min_judgments']} judgements)" in (
        warnings
    )
    assert f"Rank 1 · {escaped(board[0]['player'])}" in _metrics(at)
    assert not any(unranked["player"] in label for label in _metrics(at))


def test_judges_questions_and_calls_pages(arena_run: Path, monkeypatch: pytest.MonkeyPatch):
    at = _app(monkeypatch, "--run-dir", str(arena_run))
    _set(at, at.radio(key="arena_page"), "Judges")
    judges = _rows(
        f"select judge, leniency from '{arena_run / ArenaMart.JUDGE_STATS}' "
        "where judge is not null order by judge"
    )
    stats = next(df.value for df in at.dataframe if "leniency" in df.value.columns)
    assert stats["judge"].tolist() == [row["judge"] for row in judges]
    assert all(_same(stats["leniency"].iloc[i], row["leniency"]) for i, row in enumerate(judges))
    # extreme scores and rationales, recounted from the raw judgements
    raw = _rows(
        "select judge, count(*) filter (where score = 10) as n_high, "
        "count(rationale) as n_rationales "
        f"from read_json('{arena_run / 'judgments.jsonl'}') where is_valid "
        "group by judge order by judge"
    )
    shown_extremes = next(df.value for df in at.dataframe if "extreme_rate" in df.value.columns)
    assert shown_extremes["judge"].tolist() == [row["judge"] for row in raw]
    assert shown_extremes["n_high"].tolist() == [row["n_high"] for row in raw]
    assert shown_extremes["n_rationales"].tolist() == [row["n_rationales"] for row in raw]
    leaks = next(df.value for df in at.dataframe if "leak_rate" in df.value.columns)
    assert leaks["n_answers_leaked"].tolist() == [0, 0, 0]
    _set(at, at.radio(key="arena_page"), "Questions")
    questions = _rows(
        f"select question_id, author, text from read_json('{arena_run / 'questions.jsonl'}')"
    )
    answers = _rows(
        f"select question_id, answerer, text from read_json('{arena_run / 'answers.jsonl'}')"
    )
    raters = _rows(
        "select question_id, list(rater order by rater) as raters "
        f"from read_json('{arena_run / 'question_ratings.jsonl'}') group by question_id"
    )
    judges = _rows(
        "select answer_id, list(judge order by judge) as judges "
        f"from read_json('{arena_run / 'judgments.jsonl'}') group by answer_id"
    )
    for question in questions:
        _set(at, at.selectbox(key="question"), question["question_id"])
        assert any(
            f"author {escaped(question['author'])}" in caption.value for caption in at.caption
        )
        # the text, the raters and every answer with its judges, as the raw records hold them
        assert question["text"] in [code.value for code in at.code]
        ratings = at.dataframe[0].value
        expected_raters = [
            r["raters"] for r in raters if r["question_id"] == question["question_id"]
        ]
        assert ratings["rater"].tolist() == (expected_raters[0] if expected_raters else [])
        its_answers = [a for a in answers if a["question_id"] == question["question_id"]]
        assert len(at.expander) == len(its_answers)
        shown = {expander.label.split(" · ")[0]: expander for expander in at.expander}
        assert set(shown) == {answer["answerer"] for answer in its_answers}
        for answer in its_answers:
            expander = shown[answer["answerer"]]
            assert answer["text"] in [code.value for code in expander.code]
            answer_id = _plain(expander.label.rsplit(" · ", 1)[1])
            judged_by = next((j["judges"] for j in judges if j["answer_id"] == answer_id), [])
            assert expander.dataframe[0].value["judge"].tolist() == judged_by
            assert "rationale" in expander.dataframe[0].value.columns
    _set(at, at.radio(key="arena_page"), "Provider calls")
    assert not at.dataframe[0].value.empty


def test_calibration_page_is_the_calibration_mart_recounted_from_the_raw_files(
    arena_run: Path, monkeypatch: pytest.MonkeyPatch
):
    at = _app(monkeypatch, "--run-dir", str(arena_run))
    _set(at, at.radio(key="arena_page"), "Calibration")
    table = at.dataframe[0].value
    # predicted minus the mean of the answer's valid judgements, per answerer
    raw = _rows(
        "with actual as (select answer_id, avg(score) as actual "
        f"from read_json('{arena_run / 'judgments.jsonl'}') where is_valid group by answer_id) "
        "select answerer as player, count(*) as n, avg(predicted_score - actual) as error "
        f"from read_json('{arena_run / 'self_assessments.jsonl'}') "
        "inner join actual using (answer_id) where is_valid group by answerer order by answerer"
    )
    assert table["player"].tolist() == [row["player"] for row in raw]
    assert table["n"].tolist() == [row["n"] for row in raw]
    for position, row in enumerate(raw):
        assert table["mean_signed_error"].iloc[position] == pytest.approx(row["error"])
    verdicts = {"overconfident", "underconfident", "calibrated", "inconclusive"}
    assert set(table["confidence"]) <= verdicts | {"insufficient data"}
    # a verdict on fewer than 5 answers carries the few-data flag, shown in the table
    assert table["is_few_data"].tolist() == [n < 5 for n in table["n"]]


def test_diversity_page_is_the_diversity_mart_recounted_from_the_embeddings(
    arena_run: Path, monkeypatch: pytest.MonkeyPatch
):
    at = _app(monkeypatch, "--run-dir", str(arena_run))
    _set(at, at.radio(key="arena_page"), "Diversity")
    table = at.dataframe[0].value
    assert table.columns.tolist() == arena_diversity.DIVERSITY_COLUMNS
    headers = json.loads(at.dataframe[0].proto.columns)
    assert {column: headers[column]["label"] for column in table.columns} == {
        column: label(column) for column in table.columns
    }
    # 1 - the mean cosine of each player's own question pairs, from the raw vectors
    raw = _rows(
        "with q as (select player, item_id, vector::double[] as v "
        f"from read_json('{arena_run / 'embeddings.jsonl'}') where kind = 'question') "
        "select a.player, 1 - avg(list_cosine_similarity(a.v, b.v)) as diversity "
        "from q as a inner join q as b on a.player = b.player and a.item_id < b.item_id "
        "group by a.player order by diversity, a.player"
    )
    assert table["player"].tolist() == [row["player"] for row in raw]
    for position, row in enumerate(raw):
        assert table["diversity_score"].iloc[position] == pytest.approx(row["diversity"])
    assert (table["score_with_bonus"] == table["score"]).all()  # weight 0 by default
    pairs = _rows(
        f"select count(question_id_a) as n from '{arena_run / 'near_duplicates.parquet'}'"
    )[0]["n"]
    if pairs:
        assert len(at.dataframe[1].value) == pairs
    else:
        assert any("No pair of questions" in info.value for info in at.info)


def test_the_predicted_vs_actual_chart_draws_only_the_counted_answers():
    pairs = pd.DataFrame(
        {
            "player": ["a", "a", "b"],
            "answer_id": ["a_1", "a_2", "a_3"],
            "is_paired": [True, False, True],
            "predicted_score": [8.0, None, 3.0],
            "actual_score": [6.0, 5.0, 4.5],
        }
    )
    spec = arena_calibration.predicted_vs_actual(pairs).to_dict()
    drawn = [row for rows in spec["datasets"].values() for row in rows if "answer_id" in row]
    assert [(d["answer_id"], d["predicted_score"], d["actual_score"]) for d in drawn] == [
        ("a_1", 8.0, 6.0),
        ("a_3", 3.0, 4.5),
    ]


def test_tricks_page_is_the_robustness_mart_recounted_from_the_raw_files(
    arena_run: Path, monkeypatch: pytest.MonkeyPatch
):
    at = _app(monkeypatch, "--run-dir", str(arena_run))
    _set(at, at.radio(key="arena_page"), "Tricks")
    tables = [df.value for df in at.dataframe]
    robustness = next(t for t in tables if "robustness_gap" in t.columns)
    outcomes = next(t for t in tables if "outcome" in t.columns)
    # answers with a valid judgement to another player's trick, per answerer
    raw = _rows(
        f"with q as (select * from read_json('{arena_run / 'questions.jsonl'}')), "
        f"j as (select distinct answer_id from read_json('{arena_run / 'judgments.jsonl'}') "
        "where is_valid) "
        "select a.answerer, count(*) filter (where q.trick_kind is not null) as n "
        f"from read_json('{arena_run / 'answers.jsonl'}') a join q using (question_id) "
        "join j using (answer_id) where a.answerer <> q.author "
        "group by a.answerer order by a.answerer"
    )
    assert robustness["answerer"].tolist() == [row["answerer"] for row in raw]
    assert robustness["n_trick_answers"].tolist() == [row["n"] for row in raw]
    tricks = _rows(
        "select question_id, trick_note from "
        f"read_json('{arena_run / 'questions.jsonl'}') where trick_kind is not null"
    )
    assert sorted(outcomes["question_id"]) == sorted(t["question_id"] for t in tricks)
    assert len(tricks) == 3
    # a trick's answers are shown under its note
    _set(at, at.radio(key="arena_page"), "Questions")
    for trick in tricks:
        _set(at, at.selectbox(key="question"), trick["question_id"])
        # model text reaches the page escaped, never as Markdown (pdbench.model_text)
        assert any(escaped(trick["trick_note"]) in info.value for info in at.info)
        assert any("Trick question" in info.value for info in at.info)


def test_the_gap_chart_draws_only_answerers_with_an_interval():
    rows = pd.DataFrame(
        {
            "answerer": ["a", "b"],
            "robustness_gap": [-2.0, 0.5],
            "gap_ci_low": [-3.0, None],
            "gap_ci_high": [-1.0, None],
        }
    )
    spec = arena_tricks.gap_intervals(rows).to_dict()
    drawn = [row for rows in spec["datasets"].values() for row in rows if "answerer" in row]
    assert [(d["answerer"], d["gap_ci_low"]) for d in drawn] == [("a", -3.0)]


# Runs that cannot be shown yet --------------------------------------------------------------


def _plain(text: str) -> str:
    """``text`` as Markdown shows it: each backslash-escaped character as itself (names and
    paths reach the page through :func:`pdbench.model_text.escaped`)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def _shown_text(at: AppTest) -> str:
    parts = [_plain(w.value) for w in at.warning] + [_plain(i.value) for i in at.info]
    return "\n".join(parts + [code.value for code in at.code])


def test_a_run_that_is_not_aggregated_says_how_to_aggregate_it(
    pd_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    raw = tmp_path / "raw"
    shutil.copytree(pd_run, raw, ignore=shutil.ignore_patterns("*.parquet"))
    at = _app(monkeypatch, "--run-dir", str(raw))
    assert "not been aggregated" in _shown_text(at)
    assert f"uv run pdbench aggregate {raw}" in [code.value for code in at.code]


def test_a_run_aggregated_before_a_mart_existed_says_how_to_aggregate_it(
    pd_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    older = tmp_path / "older"
    shutil.copytree(pd_run, older, ignore=shutil.ignore_patterns(PDMart.AGENT_METRICS))
    at = _app(monkeypatch, "--run-dir", str(older))
    assert f"not been aggregated yet (no {PDMart.AGENT_METRICS})" in _shown_text(at)
    assert [code.value for code in at.code] == [f"uv run pdbench aggregate {older}"]


def test_a_damaged_mart_says_which_and_how_to_build_it_again(
    pd_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    damaged = tmp_path / "damaged"
    shutil.copytree(pd_run, damaged)
    (damaged / PDMart.AGGREGATES).write_bytes(b"PAR1 not a parquet file at all PAR1")
    at = _app(monkeypatch, "--run-dir", str(damaged))
    assert not at.exception
    assert "A table of this run cannot be read" in _shown_text(at)
    assert f"uv run pdbench aggregate {damaged}" in [code.value for code in at.code]


def test_an_empty_run_says_how_to_play_it(
    pd_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    empty = tmp_path / "empty"
    empty.mkdir()
    shutil.copy(pd_run / "run_manifest.json", empty)
    (empty / "rounds.jsonl").write_text("")
    at = _app(monkeypatch, "--run-dir", str(empty))
    manifest = json.loads((empty / "run_manifest.json").read_text())
    assert "holds no records" in _shown_text(at)
    assert [code.value for code in at.code] == [
        f"uv run pdbench run {manifest['config_path']} --output-dir {empty} --overwrite"
    ]


@pytest.mark.parametrize("made", [False, True], ids=["missing", "not-a-run"])
def test_a_missing_or_foreign_directory_says_how_to_make_a_run(
    made: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    target = tmp_path / "nowhere"
    if made:
        target.mkdir()
    at = _app(monkeypatch, "--run-dir", str(target), "--runs-root", str(tmp_path / "none"))
    assert at.warning, "expected a warning"
    if not made:  # the words every command says of a run directory that is not there
        assert at.warning[0].value == escaped(
            f"{target}: no such run directory. Play a run into it:"
        )
    assert any(
        code.value.startswith("uv run pdbench run configs/experiment.yaml --output-dir")
        for code in at.code
    )


def test_the_sidebar_offers_the_other_runs(
    pd_run: Path, arena_run: Path, monkeypatch: pytest.MonkeyPatch
):
    assert pd_run.parent == arena_run.parent
    at = _app(monkeypatch, "--run-dir", str(pd_run), "--runs-root", str(pd_run.parent))
    assert set(at.selectbox(key="run").options) == {pd_run.name, arena_run.name}
    _set(at, at.selectbox(key="run"), str(arena_run))
    assert escaped("viewer-arena") in [title.value for title in at.title]
    assert at.radio(key="arena_page").options == arena_pages.PAGES


def test_the_side_by_side_differences_are_drawn_one_chart_per_unit(
    pd_run: Path, monkeypatch: pytest.MonkeyPatch
):
    """Shares (-1 to 1) and totals in points (hundreds) never share an axis."""
    at = _app(monkeypatch, "--run-dir", str(pd_run))
    _set(at, at.radio(key="pd_page"), "All conditions")
    first, second = sorted(
        (at.selectbox(key="difference_first").value, at.selectbox(key="difference_second").value)
    )
    picked = _rows(
        f"select metric, mean_difference from '{pd_run / PDMart.COMPARISONS}' "
        "where condition_1 = ? and condition_2 = ? and mean_difference is not null",
        first,
        second,
    )
    marker = ": first condition minus second (paired)"
    panels = [
        re.search(r'"([^"]*)' + re.escape(marker), spec).group(1)  # type: ignore[union-attr]
        for spec in _chart_specs(at)
        if marker in spec
    ]
    expected: set[str] = set()
    for row in picked:
        metric = pd_metrics().metric_of(row["metric"])
        expected.add("share" if metric.is_rate else metric.unit)
    assert sorted(panels) == sorted(expected)  # one chart per unit, each unit once
    charts = set(panels)
    assert {"share", "points"} <= set(charts)  # the demo compares rates and total payoffs


def test_the_judges_page_shows_the_pairwise_joint_model_in_elo_points(
    council_run: Path, monkeypatch: pytest.MonkeyPatch
):
    at = _app(monkeypatch, "--run-dir", str(council_run))
    _set(at, at.radio(key="arena_page"), "Judges")
    tables = [table.value for table in at.dataframe]
    joint = next(table for table in tables if "effect_label" in table.columns)
    shown = dict(zip(joint["effect_label"], joint["effect_unit"], strict=True))
    # 20 strengths, 20 position biases and the 12 self biases the sample gives a value
    assert len(shown) == 52
    assert shown["position bias of llama-3-8b-chat"] == (
        "Elo points the judge adds to the answer shown first"
    )
    assert shown["strength of qwen1.5-110B-Chat"] == "Elo points above the mean player"
    captions = " ".join(caption.value for caption in at.caption)
    assert "Pairwise judging: every verdict fitted at once" in captions
    assert escaped("answer length (the answer text of 1000 verdicts is unknown)") in captions


def test_the_judges_page_shows_the_joint_model_and_what_it_could_not_give(
    peerrank_run: Path, monkeypatch: pytest.MonkeyPatch
):
    at = _app(monkeypatch, "--run-dir", str(peerrank_run))
    _set(at, at.radio(key="arena_page"), "Judges")
    tables = [table.value for table in at.dataframe]
    joint = next(table for table in tables if "effect_label" in table.columns)
    # the fixture's planted arms: beta-13b +2 on one of its two other players (+1), gamma-70b
    # -1 on both; 3 qualities + 3 leniencies + 6 arm effects, no style effect (every answer
    # of the fixture is one length within its question, none uses markdown)
    shown = dict(zip(joint["effect_label"], joint["joint_effect"], strict=True))
    assert len(shown) == 12
    assert shown["name bias of beta-13b"] == pytest.approx(1.0)
    assert shown["position bias of gamma-70b"] == pytest.approx(-1.0)
    captions = " ".join(caption.value for caption in at.caption)
    assert escaped("answer length (the same in every answer to a question") in captions
