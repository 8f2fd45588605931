"""The pages of a Humanity's Last Arena run: leaderboard, judges, questions, provider calls.

Raters and judges saw only opaque ids (``q_...``, ``a_...``); this viewer is the one place
where an answer is shown next to the player who wrote it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import streamlit as st

from pdbench.ui import charts, run_reader
from pdbench.ui.formats import format_value
from pdbench.ui.run_check import ViewableRun

__all__ = ["LEADERBOARD_COLUMNS", "PAGES", "render"]

PAGES = ["Leaderboard", "Judges", "Questions", "Provider calls"]
LEADERBOARD_COLUMNS = [
    "rank",
    "player",
    "score",
    "ci_low",
    "ci_high",
    "rank_ci_low",
    "rank_ci_high",
    "n_answers",
    "n_answers_invalid",
    "n_answers_unjudged",
    "score_others_questions",
    "weighted_score",
    "raw_score",
]
"""The leaderboard table: columns of ``leaderboard.parquet``, as they are."""


def _score(title: str) -> st.column_config.NumberColumn:
    return st.column_config.NumberColumn(title, format="%.2f")


def _page_leaderboard(run_dir: Path, manifest: dict) -> None:
    board = run_reader.leaderboard(run_dir)
    st.header("Leaderboard")
    if board.empty:
        st.info("No player has a scored answer yet.")
        return
    first = board.iloc[0]
    st.caption(
        f"Players ranked by the mean normalised score of their answers "
        f"(normalisation `{first['normalization']}`); 95% intervals from a bootstrap over "
        f"questions ({int(first['bootstrap_n'])} draws, seed {int(first['bootstrap_seed'])})."
    )
    leader, runner_up = st.columns(2)
    leader.metric(
        f"Rank 1 · {first['player']}",
        format_value(first["score"], "points"),
        help="Score and 95% interval.",
        border=True,
    )
    leader.caption(
        f"95% interval {format_value(first['ci_low'], 'points')} – "
        f"{format_value(first['ci_high'], 'points')}"
    )
    if len(board) > 1:
        second = board.iloc[1]
        runner_up.metric(
            f"Rank 2 · {second['player']}",
            format_value(second["score"], "points"),
            border=True,
        )
        runner_up.caption(
            f"95% interval {format_value(second['ci_low'], 'points')} – "
            f"{format_value(second['ci_high'], 'points')}"
        )
    st.altair_chart(charts.leaderboard_intervals(board), width="stretch")
    st.dataframe(
        board[LEADERBOARD_COLUMNS],
        hide_index=True,
        width="stretch",
        column_config={
            "score": _score("score"),
            "ci_low": _score("95% low"),
            "ci_high": _score("95% high"),
            "rank_ci_low": st.column_config.NumberColumn("best rank (95%)"),
            "rank_ci_high": st.column_config.NumberColumn("worst rank (95%)"),
            "n_answers": st.column_config.NumberColumn("answers"),
            "n_answers_invalid": st.column_config.NumberColumn("invalid answers"),
            "n_answers_unjudged": st.column_config.NumberColumn("unjudged answers"),
            "score_others_questions": _score("score on others' questions"),
            "weighted_score": _score("quality-weighted score"),
            "raw_score": _score("raw score (not normalised)"),
        },
    )


def _page_judges(run_dir: Path) -> None:
    st.header("Judges")
    bias = run_reader.judge_player_bias(run_dir)
    st.subheader("Judge × player bias")
    if bias.empty:
        st.info("No judge scored any player's answers.")
    else:
        st.caption(
            "How far a judge's scores of a player's answers sit from the other judges' on the "
            "same answers, minus the judge's own overall deviation (points). Red: the judge "
            "inflates the player; blue: deflates. ⚑ and a black border: flagged by the "
            "permutation test (Benjamini-Hochberg q ≤ the run's FDR)."
        )
        st.altair_chart(charts.bias_heatmap(bias), width="stretch")
        flagged = bias[bias["is_flagged"].fillna(False)]
        if not flagged.empty:
            st.markdown("**Flagged pairs**, most anomalous first")
            st.dataframe(
                flagged[
                    [
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
                ],
                hide_index=True,
                width="stretch",
            )
    st.subheader("Judge statistics")
    stats = run_reader.judge_stats(run_dir)
    st.caption(
        "Leniency: the judge's mean raw score; spread: its standard deviation; consensus "
        "correlation: agreement with the mean of the other judges on the same answers."
    )
    st.dataframe(
        stats,
        hide_index=True,
        width="stretch",
        column_config={
            "invalid_rate": st.column_config.NumberColumn("invalid_rate", format="percent"),
            "retry_rate": st.column_config.NumberColumn("retry_rate", format="percent"),
        },
    )
    alpha = stats[["krippendorff_alpha_raw", "krippendorff_alpha_normalized"]].dropna()
    if not alpha.empty:
        raw, normalized = st.columns(2)
        raw.metric(
            "Krippendorff's alpha (raw)",
            f"{alpha.iloc[0]['krippendorff_alpha_raw']:.3f}",
            border=True,
            help="Agreement of all judges on the raw scores (1 = perfect, 0 = chance).",
        )
        normalized.metric(
            "Krippendorff's alpha (normalised)",
            f"{alpha.iloc[0]['krippendorff_alpha_normalized']:.3f}",
            border=True,
        )


def _question_label(row: pd.Series) -> str:
    kept = "kept" if row["is_kept"] else "dropped"
    return f"{row['question_id']} · {row['category']} · by {row['author']} · {kept}"


def _page_questions(run_dir: Path) -> None:
    st.header("Questions")
    listing = run_reader.question_list(run_dir)
    if listing.empty:
        st.info("The run has no questions.")
        return
    labels = {row["question_id"]: _question_label(row) for _, row in listing.iterrows()}
    question_id = st.selectbox(
        "Question (kept first, best quality first)",
        list(labels),
        format_func=labels.__getitem__,
        key="question",
    )
    stats = listing[listing["question_id"] == question_id].iloc[0]
    record = run_reader.question(run_dir, question_id)
    st.markdown(f"> {record.get('text', '(text not found in questions.jsonl)')}")
    st.caption(
        f"category {stats['category']} · author {stats['author']} · "
        + ("kept" if stats["is_kept"] else "dropped by the question filter")
    )
    columns = st.columns(4)
    for column, (label, name) in zip(
        columns,
        [
            ("Quality (normalised)", "quality"),
            ("Mean answer score", "mean_answer_score"),
            ("Discrimination", "discrimination"),
            ("Controversy", "controversy"),
        ],
        strict=True,
    ):
        column.metric(label, format_value(stats[name], "points"), border=True)
    ratings, answers = st.columns([1, 2])
    with ratings:
        st.subheader("Ratings")
        st.dataframe(
            run_reader.question_ratings(run_dir, question_id), hide_index=True, width="stretch"
        )
    with answers:
        st.subheader("Answers")
        found = run_reader.question_answers(run_dir, question_id)
        judgments = run_reader.answer_judgments(run_dir, question_id)
        if found.empty:
            st.info("Nobody answered this question (dropped questions are not answered).")
        for _, answer in found.iterrows():
            score = format_value(answer["score"], "points")
            with st.expander(
                f"{answer['answerer']} · score {score} · {answer['answer_id']}",
                expanded=False,
            ):
                st.write(answer["text"])
                st.caption(
                    f"{'valid' if answer['is_valid'] else 'invalid'} answer after "
                    f"{int(answer['attempts'])} attempt(s); judged by "
                    f"{format_value(answer['n_judges'], 'count')}, score sd "
                    f"{format_value(answer['score_stddev'], 'points')}, raw score "
                    f"{format_value(answer['raw_score'], 'points')}"
                )
                st.dataframe(
                    judgments[judgments["answer_id"] == answer["answer_id"]].drop(
                        columns=["answer_id"]
                    ),
                    hide_index=True,
                    width="stretch",
                )


def _page_calls(run_dir: Path) -> None:
    st.header("Provider calls")
    calls = run_reader.arena_calls_summary(run_dir)
    if calls.empty:
        st.info("No provider calls were recorded.")
        return
    st.altair_chart(charts.calls_by_phase(calls), width="stretch")
    st.dataframe(
        calls,
        hide_index=True,
        width="stretch",
        column_config={
            "invalid_rate": st.column_config.NumberColumn("invalid_rate", format="percent"),
            "error_rate": st.column_config.NumberColumn("error_rate", format="percent"),
            "cost_usd": st.column_config.NumberColumn("cost_usd", format="$%.4f"),
        },
    )


def render(run: ViewableRun) -> None:
    """Draw the page chosen in the sidebar for the arena run ``run``."""
    page = st.sidebar.radio("Page", PAGES, key="arena_page")
    handlers: dict[str, Callable[[], None]] = {
        "Leaderboard": lambda: _page_leaderboard(run.run_dir, run.manifest),
        "Judges": lambda: _page_judges(run.run_dir),
        "Questions": lambda: _page_questions(run.run_dir),
        "Provider calls": lambda: _page_calls(run.run_dir),
    }
    handlers[page]()
