"""The pairwise side of an arena run: the Bradley-Terry ranking under the leaderboard, beside
the absolute score when the run has both (:func:`bradley_terry_section`), and the
``Pairwise`` page (:func:`page_pairwise`): the ranking with its intervals and the three bias
arms (position, self, name), from ``bradley_terry.parquet``, ``score_agreement.parquet`` and
the ``pairwise_*.parquet`` marts."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import pandas as pd
import streamlit as st

from pdbench.arena.fragility_text import tie_model_text
from pdbench.arena.marts import ArenaMart
from pdbench.arena.pairwise_summary import ESTIMATE_NOTE_COLUMNS, estimate_notes
from pdbench.column_labels import format_cell
from pdbench.model_text import escaped
from pdbench.ui import run_reader
from pdbench.ui.chart_text import chart_alt, value_marks
from pdbench.ui.effect_chart import effect_intervals
from pdbench.ui.page_parts import nothing_to_show, show_table

__all__ = [
    "BRADLEY_TERRY_COLUMNS",
    "SCORE_ARM_COLUMNS",
    "STYLE_COLUMNS",
    "bradley_terry_section",
    "page_pairwise",
    "score_arms_section",
]

SCORE_ARM_COLUMNS = [
    "judge",
    "arm_label",
    "arm_score_difference",
    "arm_score_difference_ci_low",
    "arm_score_difference_ci_high",
    "n_scored_pairs",
]
"""The score arms table: columns of ``score_arms.parquet``."""

BRADLEY_TERRY_COLUMNS = [
    "rank",
    "player",
    "elo",
    "elo_ci_low",
    "elo_ci_high",
    "rank_ci_low",
    "rank_ci_high",
    "elo_style_controlled",
    "elo_style_controlled_ci_low",
    "elo_style_controlled_ci_high",
    "rank_style_controlled_ci_low",
    "rank_style_controlled_ci_high",
    "win_rate_vs_baseline",
    "win_rate_ci_low",
    "win_rate_ci_high",
    "n_verdicts",
]
"""The Bradley-Terry table: columns of ``bradley_terry.parquet``."""

STYLE_COLUMNS = [
    "feature_label",
    "coefficient",
    "ci_low",
    "ci_high",
    "feature_unit",
    "n_differing",
    "n_verdicts",
    "style_note",
]
"""The style table: columns of ``pairwise_style.parquet``."""


def _ties(board: pd.DataFrame) -> str:
    row = {
        name: (None if pd.isna(board[name].iloc[0]) else board[name].iloc[0])
        for name in ("tie_model", "tie_parameter", "tie_parameter_ci_low", "tie_parameter_ci_high")
    }
    return tie_model_text(*row.values())


def _anchor(board: pd.DataFrame) -> str:
    baseline = board["baseline"].dropna()
    if baseline.empty:
        return "the geometric mean of the strengths at 1000"
    return f"{escaped(baseline.iloc[0])} at 1000"


def _estimate_captions(board: pd.DataFrame) -> None:
    """A sentence per player without a finite Elo (won or lost every verdict), with its
    one-sided bound, and one when the fit had not converged."""
    rows = [
        {name: (None if pd.isna(value) else value) for name, value in row.items()}
        for row in board[list(ESTIMATE_NOTE_COLUMNS)].to_dict("records")
    ]
    separated, convergence = estimate_notes(rows)
    for text in [*separated, *convergence]:
        st.caption(escaped(text))


def bradley_terry_section(run_dir: Path) -> None:
    """The Bradley-Terry ranking, with the absolute score beside it and the two rankings'
    agreement when the run has both; nothing when the run has no pairwise verdicts."""
    board = run_reader.mart(run_dir, ArenaMart.BRADLEY_TERRY)
    if board.empty:
        return
    st.subheader("Bradley-Terry ranking from pairwise verdicts")
    st.caption(
        f"Strength on an Elo-style scale ({_anchor(board)}; 100 points more = preferred in "
        f"64% of verdicts); 95% intervals from {int(board['n_replicates'].max())} bootstrap "
        "replicates over questions."
    )
    scores = run_reader.mart(run_dir, ArenaMart.LEADERBOARD)
    table = board[["rank", "player", "elo", "elo_ci_low", "elo_ci_high", "n_verdicts"]]
    titles: dict[str, str] = {}
    if not scores.empty:
        absolute = scores[["player", "score", "ci_low", "ci_high"]]
        table = table.merge(absolute, on="player", how="left")
        titles = {
            "score": "absolute score (points, 0-10)",
            "ci_low": "absolute score, 95% low",
            "ci_high": "absolute score, 95% high",
        }
    show_table(table, titles=titles)
    _estimate_captions(board)
    agreement = run_reader.mart(run_dir, ArenaMart.SCORE_AGREEMENT)
    if not agreement.empty and int(agreement["n_players"].iloc[0]) >= 2:
        row = agreement.iloc[0]
        st.caption(
            f"Agreement of the absolute and Bradley-Terry rankings over {int(row['n_players'])} "
            f"players: Spearman's rho {format_cell('spearman', row['spearman'])}, Kendall's "
            f"tau-b {format_cell('kendall_tau', row['kendall_tau'])} (1 = the same order)."
        )


def page_pairwise(run_dir: Path) -> None:
    """The Bradley-Terry ranking with every interval, then the bias arms."""
    st.header("Pairwise verdicts")
    board = run_reader.mart(run_dir, ArenaMart.BRADLEY_TERRY)
    if nothing_to_show(board, "This run has no pairwise verdicts (judging: absolute)."):
        score_arms_section(run_dir)
        return
    st.caption(
        f"Players ranked by Bradley-Terry strength ({_anchor(board)}), fitted to the blind "
        "verdicts on pairs holding none of the judge's answers; a strong verdict counts "
        f"{int(board['strong_weight'].iloc[0])} wins, {escaped(_ties(board))}."
    )
    show_table(board[BRADLEY_TERRY_COLUMNS])
    _estimate_captions(board)
    _style(run_dir)
    _position(run_dir)
    _self_bias(run_dir)
    _name_bias(run_dir)


def _style(run_dir: Path) -> None:
    st.subheader("Style control")
    st.caption(
        "How much an answer's style sways the judges, the players' strengths held: the "
        "log-odds of preferring the first answer that one unit more of the feature (first "
        "answer minus second) adds, 0 = no effect, with its 95% bootstrap interval over "
        "questions. The style-controlled Elo above is the strength with these held."
    )
    rows = run_reader.mart(run_dir, ArenaMart.PAIRWISE_STYLE)
    if nothing_to_show(rows, "No scored verdict to fit the style of."):
        return
    show_table(rows[STYLE_COLUMNS])


def _position(run_dir: Path) -> None:
    st.subheader("Position bias")
    st.caption(
        "How often the answer shown first wins (a tie half; 50% = no position bias), and, "
        "over pairs asked in both orders, how often the preferred answer changed with the "
        "order. Wilson 95% intervals."
    )
    rows = run_reader.mart(run_dir, ArenaMart.PAIRWISE_POSITION)
    if nothing_to_show(rows, "No verdict on a pair without the judge's own answer."):
        return
    show_table(rows.drop(columns=["is_all_judges"]))


def _self_bias(run_dir: Path) -> None:
    st.subheader("Self bias")
    st.caption(
        "The share of verdicts a judge's own answer won, minus the share the other judges' "
        "blind verdicts gave the same author against the same opponents, in percentage "
        "points (0 = no self bias; Agresti-Caffo 95% interval). Only with the self arm "
        "(pairing.self_judging)."
    )
    _bias_table(
        run_dir,
        ArenaMart.PAIRWISE_SELF_BIAS,
        empty="No judge judged a pair holding its own answer.",
    )


def _name_bias(run_dir: Path) -> None:
    st.subheader("Name bias")
    st.caption(
        "The share of verdicts an author won when the judge saw the authors' names, minus "
        "the share it won from the same judge blind, in percentage points (0 = no name "
        "bias; Agresti-Caffo 95% interval). Only with the name arm (pairing.reveal_names)."
    )
    _bias_table(
        run_dir,
        ArenaMart.PAIRWISE_NAME_BIAS,
        empty="No verdict was given with the authors' names shown.",
        titles={"player": "author"},
    )


def _bias_table(
    run_dir: Path, mart: ArenaMart, *, empty: str, titles: dict[str, str] | None = None
) -> None:
    """The table of a bias arm, each column as the label catalogue writes it (the bias and its
    95% interval in percentage points); ``empty`` says why there is none."""
    rows = run_reader.mart(run_dir, mart)
    if nothing_to_show(rows, empty):
        return
    show_table(rows.drop(columns=["is_all_judges"]), titles=titles)


def score_arms_section(run_dir: Path) -> None:
    """The name and position arms of absolute scores (``score_arms.parquet``): per judge and
    arm, the mean of the arm's score minus the plain score of the same answer, with its 95%
    interval; nothing when the run scored no answer in an arm."""
    arms = run_reader.mart(run_dir, ArenaMart.SCORE_ARMS)
    if arms.empty:
        return
    st.subheader("Name and position arms of the scores")
    st.caption(
        "Each judge scored the same answers plainly (anonymous, shuffled) and in an arm: with "
        "the authors' model names shown (name bias) or in one fixed order (position bias). "
        "The point is the mean of arm minus plain score over those answers (points of 0-10), "
        "the bar its 95% t interval; an interval clear of 0 is a bias."
    )
    drawn = arms.assign(row=arms["judge"].astype(str) + " · " + arms["arm_label"].astype(str))
    st.altair_chart(
        effect_intervals(
            drawn,
            label="row",
            effect=("arm_score_difference", "arm minus plain"),
            interval=("arm_score_difference_ci_low", "arm_score_difference_ci_high"),
            axis_title="arm minus plain score of the same answer (points), 95% interval",
            extra_tooltip=[alt.Tooltip("n_scored_pairs:Q", title="answers in both")],
            drawn_with="arm_score_difference",
        ),
        width="stretch",
        alt=chart_alt(
            "Arm minus plain score per judge and arm, points, with 95% intervals",
            value_marks(drawn, drawn["row"], "arm_score_difference"),
        ),
    )
    show_table(arms, SCORE_ARM_COLUMNS, pinned=("judge", "arm_label"))
