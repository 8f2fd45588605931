"""The arena's pairwise settings: which pairs of answers judges are shown
(``judging: pairwise`` or ``both``, :class:`PairingConfig`) and how the verdicts are counted
and ranked (:class:`PairwiseConfig`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from pdbench.config.base import StrictModel

__all__ = ["JUDGING_MODES", "JudgingMode", "PairingConfig", "PairwiseConfig"]

JudgingMode = Literal["absolute", "pairwise", "both"]
JUDGING_MODES: tuple[JudgingMode, ...] = ("absolute", "pairwise", "both")
"""``absolute``: every answer scored 0..10 alone (the seed's judging); ``pairwise``: judges
give verdicts on two answers to one question instead; ``both``: both, on the same answers."""


class PairwiseConfig(StrictModel):
    """How pairwise verdicts count in the Bradley-Terry ranking (``bradley_terry.parquet``)."""

    strong_weight: int = Field(default=3, ge=1, le=10)
    """Verdicts a strong preference (A>>B, B>>A) counts as; 3 as in Arena-Hard-Auto, 1 to
    count it as a plain win. A tie counts as ``tie_model`` says."""
    baseline: str | None = None
    """The player anchored at 1000 on the Elo-style scale, against whom every win rate is
    given; null anchors the geometric mean of all strengths."""
    tie_model: Literal["half", "davidson"] = "half"
    """How a tie (A=B) counts: ``half`` a win to each side (the default, as Chatbot Arena and
    Arena-Hard-Auto count it), or ``davidson``: Davidson's (1970) model, P(i wins) = p_i / D,
    P(tie) = nu sqrt(p_i p_j) / D, D = p_i + p_j + nu sqrt(p_i p_j), with the tie parameter
    nu fitted with the strengths (``tie_parameter`` in ``bradley_terry.parquet``)."""


class PairingConfig(StrictModel):
    """Which pairs of answers a pairwise judge is shown, and how (:mod:`pdbench.arena.pairing`)."""

    scheme: Literal["all", "reference", "sample"] = "all"
    """``all``: every pair of answers to a question; ``reference``: every answer against the
    ``reference`` player's answer to the same question (as Arena-Hard-Auto and the Language
    Model Council); ``sample``: ``pairs_per_question`` pairs drawn from all of them per
    question (seeded)."""
    reference: str | None = None
    """``reference`` only: the player (one who answers) whose answer every other answer is
    compared with."""
    pairs_per_question: int | None = Field(default=None, ge=1)
    """``sample`` only: pairs drawn per question (all of them when there are fewer)."""
    position_swap: bool = False
    """Ask every pair a second time with the answers in the other order (``order_index`` 1):
    the flip rate of ``pairwise_position.parquet``."""
    self_judging: bool = False
    """The self arm: judges also judge pairs holding their own answer (recorded for
    ``pairwise_self_bias.parquet``, never scored). Off: no judge sees its own answer."""
    reveal_names: bool = False
    """The name arm: every pair is asked once more with each answer labelled with its
    author's name and model (``is_named``; ``pairwise_name_bias.parquet``, never scored)."""
    prompt: str = "prompts/arena/pairwise.md"
    """The pairwise judging template, relative to the config's folder: ``{question}``,
    ``{first_answer}``, ``{second_answer}``, ``{output_instruction}``."""
