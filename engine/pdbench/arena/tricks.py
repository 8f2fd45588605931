"""Trick questions (``tricks``): which question slots of a player are tricks, what the
generation prompt asks of them, and the rubric raters and judges are shown.

A configurable ``share`` of each player's ``questions_per_player`` slots are tricks: a false
premise, an unanswerable question, a subtly ambiguous one or a misleading framing. How many
is ``round(share * questions_per_player)``, the same for every player; which positions and
which kind each gets are drawn from the run seed and the player's name
(``derive_seed(seed, "tricks", player)``), so a resumed run derives the same slots.

The generation prompt names the trick positions and their kinds, and asks for one line
beginning ``Note:`` right after each trick: the author's private note of the correct
handling. Answerers are not told: their prompt is an ordinary question's. Raters and
judges see the kind and the note as a rubric (:func:`rate_rubric`, :func:`judge_rubric`).
"""

from __future__ import annotations

from random import Random
from typing import Literal, get_args

from pydantic import Field, field_validator

from pdbench.config.base import StrictModel
from pdbench.rng import derive_seed

__all__ = [
    "TRICK_KINDS",
    "TrickKind",
    "TricksConfig",
    "judge_rubric",
    "rate_rubric",
    "trick_instruction",
    "trick_slots",
]

TrickKind = Literal["false_premise", "unanswerable", "ambiguous", "misleading"]

TRICK_KINDS: dict[str, str] = {
    "false_premise": "rest on a false premise that a good answer points out",
    "unanswerable": "be unanswerable, so that a good answer says it cannot be answered and why",
    "ambiguous": "be subtly ambiguous, so that a good answer notices the readings and handles them",
    "misleading": "be framed to suggest a wrong answer that a good answer resists",
}
"""What the generation prompt asks a trick of each kind to be."""

_KIND_NAMES = {
    "false_premise": "a false premise",
    "unanswerable": "unanswerable",
    "ambiguous": "subtly ambiguous",
    "misleading": "a misleading framing",
}


class TricksConfig(StrictModel):
    """Adversarial rounds: a share of every player's questions are trick questions."""

    share: float = Field(default=0.0, ge=0, le=1)
    """The share of each player's questions that are tricks (``round(share *
    questions_per_player)`` of them); 0 turns tricks off."""
    kinds: list[TrickKind] = Field(
        default_factory=lambda: list(get_args(TrickKind)),
        min_length=1,
    )
    """The kinds a trick slot is drawn from."""
    fell_below: float = Field(default=3.0, ge=0, le=10)
    """An answerer *fell* for a trick when its answer's normalised score is below this (well
    below a judge's average, 5 after normalisation)."""

    @field_validator("kinds")
    @classmethod
    def _distinct(cls, kinds: list[str]) -> list[str]:
        if len(set(kinds)) != len(kinds):
            raise ValueError("a kind is listed twice")
        return kinds


def trick_slots(*, seed: int, player: str, n: int, tricks: TricksConfig) -> dict[int, str]:
    """Position (1-based) -> kind of ``player``'s trick slots among its ``n`` questions."""
    count = round(tricks.share * n)
    if count == 0:
        return {}
    rng = Random(derive_seed(seed, "tricks", player))
    positions = sorted(rng.sample(range(1, n + 1), count))
    return {position: rng.choice(tricks.kinds) for position in positions}


def trick_instruction(slots: dict[int, str]) -> str:
    """What the generation prompt adds for ``slots`` (empty without tricks)."""
    if not slots:
        return ""
    positions = list(slots)
    named = " and ".join(
        [", ".join(str(p) for p in positions[:-1]), str(positions[-1])]
        if len(positions) > 1
        else [str(positions[0])]
    )
    noun = "Questions" if len(positions) > 1 else "Question"
    verb = "are trick questions" if len(positions) > 1 else "is a trick question"
    asks = "; ".join(f"question {p} must {TRICK_KINDS[kind]}" for p, kind in slots.items())
    return (
        f"{noun} {named} {verb}, which those who answer will not be told: {asks}. "
        'Right after each trick question, write one line that begins with "Note:" and says '
        "briefly how a good answer handles the trick; write no note after the other questions."
    )


def _sentence(note: str) -> str:
    note = note.strip()
    return note if note.endswith((".", "!", "?")) else f"{note}."


def _kind_text(kind: str) -> str:
    return _KIND_NAMES.get(kind, kind.replace("_", " "))


def rate_rubric(kind: str, note: str | None) -> str:
    """What a rater of a trick question is shown before the rating instruction."""
    handling = (
        f" Its author's note on how a good answer handles it: {_sentence(note)}" if note else ""
    )
    return (
        f"This question is a deliberate trick ({_kind_text(kind)}); those who answer it are "
        f"not told.{handling} Rate it as a trick question: how fairly and well it tests this."
    )


def judge_rubric(kind: str, note: str | None) -> str:
    """What a judge of an answer to a trick question is shown before the judging
    instruction."""
    handling = (
        f" Its author's note on the correct handling, to judge the answer by: {_sentence(note)}"
        if note
        else " Judge whether the answer handles the trick."
    )
    return (
        f"This question is a deliberate trick ({_kind_text(kind)}); the answerer was not "
        f"told.{handling}"
    )
