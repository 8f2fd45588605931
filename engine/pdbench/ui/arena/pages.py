"""The pages of a Humanity's Last Arena run: leaderboard, judges, questions, calibration
(:mod:`pdbench.ui.arena.calibration`), tricks (:mod:`pdbench.ui.arena.tricks`), diversity
(:mod:`pdbench.ui.arena.diversity`), pairwise verdicts (:mod:`pdbench.ui.arena.pairwise`),
provider calls.

Raters and judges saw only opaque ids (``q_...``, ``a_...``); this viewer is the one place
where an answer is shown next to the player who wrote it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from pdbench.arena.marts import ArenaMart
from pdbench.column_labels import format_cell
from pdbench.model_text import escaped, show_model_text
from pdbench.number_text import plural
from pdbench.ui import overview_page, run_reader
from pdbench.ui.arena import budgets, charts, overview_chart, reader
from pdbench.ui.arena.audience import audience_section
from pdbench.ui.arena.calibration import page_calibration
from pdbench.ui.arena.diversity import page_diversity
from pdbench.ui.arena.joint_model import joint_model_section
from pdbench.ui.arena.pairwise import bradley_terry_section, page_pairwise, score_arms_section
from pdbench.ui.arena.tricks import page_tricks, trick_note
from pdbench.ui.chart_text import chart_alt, value_marks
from pdbench.ui.formats import format_value
from pdbench.ui.page_parts import nothing_to_show, show_table
from pdbench.ui.run_check import ViewableRun

__all__ = [
    "FLAGGED_COLUMNS",
    "JUDGMENT_COLUMNS",
    "LEADERBOARD_COLUMNS",
    "PAGES",
    "QUESTION_TILES",
    "RATING_COLUMNS",
    "render",
]

PAGES = [
    "Overview",
    "Leaderboard",
    "Pairwise",
    "Judges",
    "Questions",
    "Calibration",
    "Tricks",
    "Diversity",
    "Budgets",
    "Provider calls",
]
LEADERBOARD_COLUMNS = [
    "rank",
    "player",
    "role",
    "status",
    "score",
    "ci_low",
    "ci_high",
    "rank_ci_low",
    "rank_ci_high",
    "score_style_controlled",
    "score_style_controlled_ci_low",
    "score_style_controlled_ci_high",
    "n_answers",
    "n_judgments",
    "min_judgments",
    "n_answers_invalid",
    "n_answers_unjudged",
    "score_others_questions",
    "weighted_score",
    "raw_score",
]
"""The leaderboard table: columns of ``leaderboard.parquet``, as they are."""
FLAGGED_COLUMNS = [
    "anomaly_rank",
    "judge",
    "player",
    "flag_kind",
    "relative_deviation",
    "mean_deviation",
    "p_value",
    "q_value",
    "n_answers",
]
"""The table of flagged pairs: columns of ``judge_player_bias.parquet``."""
QUESTION_TILES = [
    ("Quality (normalised)", "quality"),
    ("Mean answer score", "mean_answer_score"),
    ("Discrimination", "discrimination"),
    ("Controversy", "controversy"),
]
"""The tiles of a question: label and ``question_stats.parquet`` column."""
RATING_COLUMNS = ["rater", "score", "normalized_score", "is_valid", "n_attempts", "raw_reply"]
"""The ratings of a question: columns of ``rating_detail.parquet``."""
JUDGMENT_COLUMNS = [
    "judge",
    "score",
    "normalized_score",
    "is_valid",
    "n_attempts",
    "raw_reply",
    "rationale",
]
"""The judgements of an answer: columns of ``judgment_detail.parquet``."""


def _podium(
    column: DeltaGenerator, place: int, player: pd.Series, *, help_text: str | None = None
) -> None:
    """The player in ``place`` on the leaderboard: its score with its 95% interval."""
    column.metric(
        f"Rank {place} · {escaped(player['player'])}",
        format_cell("score", player["score"]),
        help=help_text,
        border=True,
    )
    column.caption(
        f"95% interval {format_cell('ci_low', player['ci_low'])} – "
        f"{format_cell('ci_high', player['ci_high'])}"
    )


def _insufficient_data_note(unranked: pd.DataFrame) -> None:
    """Which players are listed without a rank: referees (judge only), and players with too
    few valid judgements behind the score."""
    referees = unranked[unranked["role"] == "judge"]
    if not referees.empty:
        st.caption(
            f"Judge only (rate questions and judge answers, never answer): "
            f"{', '.join(escaped(name) for name in referees['player'])}; not ranked."
        )
    unranked = unranked[unranked["role"] != "judge"]
    if unranked.empty:
        return
    listed = ", ".join(
        f"{escaped(row['player'])} ({int(row['n_judgments'])} of {int(row['min_judgments'])} "
        "judgements)"
        for _, row in unranked.iterrows()
    )
    st.warning(f"Insufficient data, not ranked and no interval: {listed}.")


def _page_leaderboard(run_dir: Path) -> None:
    board = run_reader.mart(run_dir, ArenaMart.LEADERBOARD)
    st.header("Leaderboard")
    if nothing_to_show(board, "No player has a scored answer yet."):
        bradley_terry_section(run_dir)  # a run judged in pairs only
        return
    if "role" not in board.columns:  # a run recorded before roles: every one a player
        board = board.assign(role="player")
    first = board.iloc[0]
    st.caption(
        f"Players ranked by the mean normalised score of their answers "
        f"(normalisation {escaped(first['normalization'])}); 95% intervals from a bootstrap over "
        f"questions ({int(first['bootstrap_n'])} draws, seed {int(first['bootstrap_seed'])})."
    )
    ranked = board[board["has_enough_data"].fillna(False).astype(bool)]
    leader, runner_up = st.columns(2)
    if len(ranked) > 0:
        _podium(leader, 1, ranked.iloc[0], help_text="Score and 95% interval.")
    if len(ranked) > 1:
        _podium(runner_up, 2, ranked.iloc[1])
    _insufficient_data_note(board[~board.index.isin(ranked.index)])
    scored = board.dropna(subset=["score"])
    st.altair_chart(
        charts.leaderboard_intervals(board),
        width="stretch",
        alt=chart_alt(
            "Leaderboard, each player's score with its 95% bootstrap interval, best on top",
            value_marks(scored, scored["player"], "score"),
        ),
    )
    show_table(board, LEADERBOARD_COLUMNS, pinned=("rank", "player"))
    bradley_terry_section(run_dir)
    audience_section(run_dir)


def _bias(run_dir: Path) -> None:
    """The judge x player bias heat map and the flagged pairs."""
    bias = run_reader.mart(run_dir, ArenaMart.JUDGE_PLAYER_BIAS)
    st.subheader("Judge × player bias")
    if nothing_to_show(bias, "No judge scored any player's answers."):
        return
    st.caption(
        "How far a judge's scores of a player's answers sit from the other judges' on the "
        "same answers, minus the judge's own overall deviation (points). Red: the judge "
        "inflates the player; blue: deflates. ⚑ and a black border: flagged by the "
        "permutation test (Benjamini-Hochberg q ≤ the run's FDR)."
    )
    st.altair_chart(
        charts.bias_heatmap(bias),
        width="stretch",
        alt=chart_alt(
            "Judge by player heat map of the relative deviation, points (flagged pairs marked)",
            value_marks(
                bias,
                [
                    f"{judge} on {player}{' (flagged)' if flagged else ''}"
                    for judge, player, flagged in zip(
                        bias["judge"], bias["player"], bias["is_flagged"].fillna(False), strict=True
                    )
                ],
                "relative_deviation",
            ),
        ),
    )
    flagged = bias[bias["is_flagged"].fillna(False)]
    if not flagged.empty:
        st.markdown("**Flagged pairs**, most anomalous first")
        show_table(flagged, FLAGGED_COLUMNS, pinned=("judge", "player"))


def _page_judges(run_dir: Path) -> None:
    st.header("Judges")
    _bias(run_dir)
    score_arms_section(run_dir)
    joint_model_section(run_dir)
    st.subheader("Judge statistics")
    stats = run_reader.mart(run_dir, ArenaMart.JUDGE_STATS)
    st.caption(
        "Leniency: the judge's mean raw score; spread: its standard deviation; consensus "
        "correlation: agreement with the mean of the other judges on the same answers."
    )
    show_table(stats, pinned=("judge",))
    alpha = stats[["krippendorff_alpha_raw", "krippendorff_alpha_normalized"]].dropna()
    if "krippendorff_alpha_note" in stats and stats["krippendorff_alpha_note"].notna().any():
        note = stats["krippendorff_alpha_note"].dropna().iloc[0]
        st.caption(f"Krippendorff's alpha: not computed where shown empty ({escaped(note)}).")
    if not alpha.empty:
        raw, normalized = st.columns(2)
        raw.metric(
            "Krippendorff's alpha (raw)",
            format_cell("krippendorff_alpha_raw", alpha.iloc[0]["krippendorff_alpha_raw"]),
            border=True,
            help="Agreement of all judges on the raw scores (1 = perfect, 0 = chance).",
        )
        normalized.metric(
            "Krippendorff's alpha (normalised)",
            format_cell(
                "krippendorff_alpha_normalized", alpha.iloc[0]["krippendorff_alpha_normalized"]
            ),
            border=True,
        )
    _extremes_and_leaks(run_dir)


def _extremes_and_leaks(run_dir: Path) -> None:
    """Per judge, extreme scores and their rationales; per player, identity leaks."""
    st.subheader("Extreme scores and rationales")
    st.caption("Scores at or beyond the rationale thresholds, and the judges' rationales.")
    show_table(run_reader.mart(run_dir, ArenaMart.JUDGE_RATIONALES), pinned=("judge",))
    st.subheader("Identity leaks")
    st.caption(
        "Questions and answers that named a player, a model or a maker, and what the run did "
        "with them (flag, scrub or void)."
    )
    show_table(run_reader.mart(run_dir, ArenaMart.IDENTITY_LEAKS), pinned=("player",))


def _question_label(row: pd.Series) -> str:
    kept = "kept" if row["is_kept"] else "dropped"
    return f"{row['question_id']} · {row['category']} · by {row['author']} · {kept}"


def _select_question(listing: pd.DataFrame) -> pd.Series:
    """The question chosen on the page (kept first, best quality first)."""
    labels = {row["question_id"]: _question_label(row) for _, row in listing.iterrows()}
    question_id = st.selectbox(
        "Question (kept first, best quality first)",
        list(labels),
        format_func=labels.__getitem__,
        key="question",
    )
    return listing[listing["question_id"] == question_id].iloc[0]


def _answers(run_dir: Path, question_id: str) -> None:
    """Every answer to the question, best first, each with its judgements."""
    st.subheader("Answers")
    trick_note(run_dir, question_id)
    answers = reader.of_question(run_dir, ArenaMart.ANSWER_DETAIL, question_id)
    judgments = reader.of_question(run_dir, ArenaMart.JUDGMENT_DETAIL, question_id)
    nothing_to_show(answers, "Nobody answered this question (dropped questions are not answered).")
    for _, answer in answers.iterrows():
        score = format_cell("score", answer["score"])
        title = f"{escaped(answer['answerer'])} · score {score} · {escaped(answer['answer_id'])}"
        with st.expander(title):
            show_model_text(answer["answer_text"])
            st.caption(
                f"{'valid' if answer['is_valid'] else 'invalid'} answer after "
                f"{plural(int(answer['n_attempts']), 'attempt')}; judged by "
                f"{format_value(answer['n_judges'], 'count')}, score sd "
                f"{format_cell('score_stddev', answer['score_stddev'])}, raw score "
                f"{format_cell('raw_score', answer['raw_score'])}"
            )
            its_judgments = judgments[judgments["answer_id"] == answer["answer_id"]]
            show_table(its_judgments, JUDGMENT_COLUMNS, pinned=("judge",))


def _page_questions(run_dir: Path) -> None:
    st.header("Questions")
    listing = run_reader.mart(run_dir, ArenaMart.QUESTION_STATS)
    if nothing_to_show(listing, "The run has no questions."):
        return
    question = _select_question(listing)
    question_id = str(question["question_id"])
    show_model_text(question["question_text"])
    st.caption(
        f"category {escaped(question['category'])} · author {escaped(question['author'])} · "
        + ("kept" if question["is_kept"] else "dropped by the question filter")
    )
    for column, (label, name) in zip(st.columns(len(QUESTION_TILES)), QUESTION_TILES, strict=True):
        column.metric(label, format_cell(name, question[name]), border=True)
    ratings, answers = st.columns([1, 2])
    with ratings:
        st.subheader("Ratings")
        show_table(
            reader.of_question(run_dir, ArenaMart.RATING_DETAIL, question_id), RATING_COLUMNS
        )
    with answers:
        _answers(run_dir, question_id)


def _page_calls(run_dir: Path) -> None:
    st.header("Provider calls")
    calls = run_reader.mart(run_dir, ArenaMart.CALLS_SUMMARY)
    if nothing_to_show(calls, "No provider calls were recorded."):
        return
    st.altair_chart(
        charts.calls_by_phase(calls),
        width="stretch",
        alt=chart_alt(
            "Provider calls by phase and player",
            value_marks(
                calls, calls["player"].astype(str) + " " + calls["phase"].astype(str), "n_calls"
            ),
        ),
    )
    show_table(calls, pinned=("player", "phase"))


def render(run: ViewableRun) -> None:
    """Draw the page chosen in the sidebar for the arena run ``run``."""
    page = st.sidebar.radio("Page", PAGES, key="arena_page")
    handlers: dict[str, Callable[[], None]] = {
        "Overview": lambda: overview_page.page(
            run.run_dir,
            page_key="arena_page",
            chart=lambda: overview_chart.overview_chart(run.run_dir),
        ),
        "Leaderboard": lambda: _page_leaderboard(run.run_dir),
        "Pairwise": lambda: page_pairwise(run.run_dir),
        "Judges": lambda: _page_judges(run.run_dir),
        "Questions": lambda: _page_questions(run.run_dir),
        "Calibration": lambda: page_calibration(run.run_dir),
        "Tricks": lambda: page_tricks(run.run_dir),
        "Diversity": lambda: page_diversity(run.run_dir),
        "Budgets": lambda: budgets.page(run.run_dir),
        "Provider calls": lambda: _page_calls(run.run_dir),
    }
    handlers[page]()
