"""The arena's pairwise record: one verdict of a judge on two answers to one question.

Written by the pairwise judging phase, or by ``pdbench import`` from another study's
verdicts (the Language Model Council's, PeerRank's). The answers are shown as A (``first``)
and B (``second``); the verdict is on a five-level scale.
"""

from __future__ import annotations

from typing import Literal

from pdbench.storage.records.arena import ArenaRecord
from pdbench.storage.records.fields import Count

__all__ = ["PairwiseJudgmentRecord", "Verdict"]

Verdict = Literal["A>>B", "A>B", "A=B", "B>A", "B>>A"]


class PairwiseJudgmentRecord(ArenaRecord):
    """One verdict of a judge on two answers to one question (``pairwise_judgments.jsonl``)."""

    pair_id: str
    """The unordered pair of answers: both orders of a swapped pair share it."""
    question_id: str
    """The question both answers answer."""
    judge: str
    """The player (or imported model) who judged."""
    first_player: str
    """The author of the answer shown first (A)."""
    second_player: str
    """The author of the answer shown second (B)."""
    first_answer_id: str | None
    """The answer shown first; null when the source did not record it."""
    second_answer_id: str | None
    """The answer shown second; null when the source did not record it."""
    order_index: Count
    """0 for the pair's first order, 1 for the same pair asked again with A and B swapped."""
    is_named: bool
    """Whether the judge was shown the authors' model names (the ``named`` arm)."""
    verdict: Verdict | None
    """A>>B, A>B, A=B (tie), B>A or B>>A; null when the reply stayed invalid after every
    retry."""
    is_valid: bool
    """Whether the recorded reply held a verdict."""
    raw_reply: str
    """The recorded reply."""
