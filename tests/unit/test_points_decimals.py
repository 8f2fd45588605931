"""Points read with the decimals the metric catalogue gives them (3), in the terminal, the
viewer's tiles, tables and charts, and the compare table: one format, from one place."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from pdbench.arena.marts import ArenaMart
from pdbench.arena.summary import leaderboard_table
from pdbench.column_labels import number_spec
from pdbench.pd.compare import difference_text, mean_text
from pdbench.ui.formats import format_value
from pdbench.ui.page_parts import points_column


def test_the_catalogue_gives_points_three_decimals():
    assert number_spec("score") == ".3f"
    assert number_spec("payoff_per_round_a") == ".3f"
    assert number_spec("mean_score_per_round", signed=True) == "+.3f"
    # its own decision for a series' adjusted score: 2
    assert number_spec("adjusted_score") == ".2f"
    with pytest.raises(KeyError):
        number_spec("cooperation_rate")  # a share, not a number


def test_the_viewer_writes_points_as_the_catalogue_says():
    assert format_value(2.5, "points") == "2.500"
    assert format_value(1 / 3, "points") == "0.333"
    assert points_column("score")["type_config"]["format"] == "%.3f"


def test_compare_writes_points_and_their_differences_with_three_decimals():
    assert mean_text(0.625, "payoff_per_round_a") == "0.625"
    assert difference_text(0.25, 0.1, 0.4, "payoff_per_round_a") == "+0.250 [+0.100, +0.400]"
    # a rate stays in percent and percentage points
    assert mean_text(0.375, "cooperation_rate") == "37.5%"
    assert difference_text(0.625, 0.5, 0.75, "cooperation_rate") == "+62.5 pp [+50.0, +75.0]"


def test_the_arena_leaderboard_prints_scores_with_three_decimals(tmp_path: Path):
    board = tmp_path / ArenaMart.LEADERBOARD
    with duckdb.connect() as con:
        con.execute(
            "copy (select 'ada' as player, 1 as rank, 6.25 as score, 5.125 as ci_low, "
            "7.0 as ci_high, 1 as rank_ci_low, 1 as rank_ci_high, 4 as n_answers, "
            "0 as n_answers_truncated, 'shift' as normalization, 50 as bootstrap_n, "
            "true as has_enough_data, 12 as n_judgments, 3 as min_judgments, "
            f"'ranked' as status) to '{board}'"
        )
    lines = leaderboard_table(tmp_path, {ArenaMart.LEADERBOARD: 1})
    assert lines[2].split() == ["1", "ada", "6.250", "5.125", "..", "7.000", "1", "4", "12"]
