"""The audience line ``pdbench aggregate`` prints under an arena's leaderboard says when the
audience-models agreement rests on few answers, and why there is none."""

from __future__ import annotations

from pathlib import Path

import duckdb
from pdbench.arena.marts import ArenaMart
from pdbench.arena.summary import leaderboard_table


def _marts(folder: Path, *, compared: int, pearson: str, few: bool, reason: str) -> dict:
    board = folder / ArenaMart.LEADERBOARD
    scores = folder / ArenaMart.AUDIENCE_SCORES
    with duckdb.connect() as con:
        con.execute(
            "copy (select 'ada' as player, 1 as rank, 6.0 as score, 5.5 as ci_low, "
            "6.5 as ci_high, 1 as rank_ci_low, 1 as rank_ci_high, 4 as n_answers, "
            "0 as n_answers_truncated, "
            "'shift' as normalization, 50 as bootstrap_n, true as has_enough_data, "
            f"12 as n_judgments, 3 as min_judgments, 'ranked' as status) to '{board}'"
        )
        con.execute(
            "copy (select player, n_votes, n_answers_voted, "
            f"{compared} as n_answers_compared, {pearson} as agreement_pearson, "
            f"{pearson} as agreement_spearman, {few} as agreement_is_few_data, "
            f"{reason} as agreement_null_reason "
            "from (values ('ada', 3, 2), ('bob', 2, 2)) as t (player, n_votes, n_answers_voted)) "
            f"to '{scores}'"
        )
    return {ArenaMart.LEADERBOARD: 1, ArenaMart.AUDIENCE_SCORES: 2}


def test_an_agreement_over_few_answers_is_printed_with_a_warning(tmp_path: Path):
    tables = _marts(tmp_path, compared=4, pearson="0.8", few=True, reason="null::varchar")
    line = leaderboard_table(tmp_path, tables)[-1]
    assert line == (
        "audience: 5 votes on 4 answers; agreement with the models over 4 answers: "
        "Pearson 0.800, Spearman 0.800 (few data) (audience_scores.parquet)"
    )


def test_an_agreement_over_enough_answers_has_no_warning(tmp_path: Path):
    tables = _marts(tmp_path, compared=12, pearson="0.5", few=False, reason="null::varchar")
    line = leaderboard_table(tmp_path, tables)[-1]
    assert line.endswith("over 12 answers: Pearson 0.500, Spearman 0.500 (audience_scores.parquet)")


def test_no_agreement_says_why(tmp_path: Path):
    reason = "'fewer than 3 answers compared'"
    tables = _marts(tmp_path, compared=2, pearson="null::double", few=True, reason=reason)
    line = leaderboard_table(tmp_path, tables)[-1]
    assert line == (
        "audience: 5 votes on 4 answers; no agreement with the models over 2 answers: "
        "fewer than 3 answers compared (audience_scores.parquet)"
    )
