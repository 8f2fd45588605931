"""The Diversity page of an arena run: how diverse each player's questions are and which
questions are near duplicates (``diversity.parquet``, ``near_duplicates.parquet``; played
with a ``diversity`` section)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pdbench.arena.marts import ArenaMart
from pdbench.ui import run_reader
from pdbench.ui.page_parts import nothing_to_show, show_table

__all__ = ["DIVERSITY_COLUMNS", "NEAR_DUPLICATE_COLUMNS", "page_diversity"]

DIVERSITY_COLUMNS = [
    "player",
    "diversity_score",
    "question_diversity",
    "novelty",
    "answer_originality",
    "n_questions",
    "n_near_duplicate_pairs",
    "n_cross_near_duplicates",
    "rank",
    "score",
    "score_with_bonus",
    "diversity_z",
    "weight",
]
"""The diversity table: columns of ``diversity.parquet``, least diverse first."""
NEAR_DUPLICATE_COLUMNS = [
    "similarity",
    "player_a",
    "player_b",
    "is_same_player",
    "question_text_a",
    "question_text_b",
    "question_id_a",
    "question_id_b",
]
"""The near-duplicate pairs: columns of ``near_duplicates.parquet``, most similar first."""


def page_diversity(run_dir: Path) -> None:
    """The per-player diversity table and the near-duplicate pairs."""
    rows = run_reader.mart(run_dir, ArenaMart.DIVERSITY)
    st.header("Diversity")
    if nothing_to_show(rows, "No embeddings: this run was played without a `diversity` section."):
        return
    near = rows["near_duplicate"].iloc[0]
    st.caption(
        "Every question embedded by one model. Question diversity: 1 − the mean cosine "
        "similarity of a player's own questions (the diversity score). Novelty: 1 − the "
        "highest similarity to another player's question, averaged. Answer originality: 1 − "
        "the mean similarity of its answers to the others' answers to the same question. "
        "score_with_bonus = "
        "score + weight × the standardised diversity score, shown next to the plain score "
        f"and rank, which it never replaces. Near duplicates: cosine ≥ {near:g}."
    )
    show_table(rows[DIVERSITY_COLUMNS])
    pairs = run_reader.mart(run_dir, ArenaMart.NEAR_DUPLICATES)
    st.subheader("Near-duplicate questions")
    if nothing_to_show(pairs, f"No pair of questions at cosine similarity ≥ {near:g}."):
        return
    show_table(pairs[NEAR_DUPLICATE_COLUMNS])
