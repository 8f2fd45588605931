"""What a person is shown: an arena answer and its question, blinded, chosen to spread the
votes evenly.

An answer is shown as the judges saw it: the question's and the answer's ``shown_text``
(scrubbed under ``identity_leaks: scrub``), with no player's name. Only the answers the
judges judged are offered (valid, not void).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pdbench.arena.audience.votes import Tally
from pdbench.arena.records import ArenaFiles
from pdbench.errors import RunDirError
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.manifest import read_manifest

__all__ = ["AudienceAnswer", "AudienceRun", "next_answer", "open_audience_run"]


@dataclass(frozen=True)
class AudienceAnswer:
    """One answer as a person is shown it."""

    answer_id: str
    question: str
    answer: str


@dataclass(frozen=True)
class AudienceRun:
    """An arena run whose answers the audience scores."""

    run_dir: Path
    run_id: str
    answers: tuple[AudienceAnswer, ...]

    @property
    def votes_path(self) -> Path:
        return self.run_dir / ArenaFiles.AUDIENCE_VOTES


def open_audience_run(run_dir: Path) -> AudienceRun:
    """The answers of the arena run ``run_dir``; a one-line :class:`RunDirError` when it is
    not an arena run or has no answer to score yet."""
    manifest = read_manifest(run_dir)
    if manifest.game != "arena":
        raise RunDirError(
            f"{run_dir}: a {manifest.game} run; the audience scores the answers of an arena run"
        )
    answers = _blinded_answers(run_dir)
    if not answers:
        raise RunDirError(
            f"{run_dir}: no answer to score yet ({ArenaFiles.ANSWERS} holds no judged answer)"
        )
    return AudienceRun(run_dir=run_dir, run_id=manifest.run_id, answers=answers)


def _blinded_answers(run_dir: Path) -> tuple[AudienceAnswer, ...]:
    questions_path = run_dir / ArenaFiles.QUESTIONS
    answers_path = run_dir / ArenaFiles.ANSWERS
    if not (questions_path.is_file() and answers_path.is_file()):
        return ()
    questions = {q["question_id"]: q["shown_text"] for q in read_jsonl(questions_path)}
    shown = [
        AudienceAnswer(
            answer_id=a["answer_id"],
            question=questions[a["question_id"]],
            answer=a["shown_text"],
        )
        for a in read_jsonl(answers_path)
        if a["is_valid"] and not a["is_void"] and a["question_id"] in questions
    ]
    return tuple(sorted(shown, key=lambda item: item.answer_id))


def _tie_break(voter: str, answer_id: str) -> int:
    """A draw fixed by the voter and the answer: voters with the same counts in front of them
    still go different ways."""
    digest = hashlib.sha256(f"{voter}\x00{answer_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def next_answer(
    answers: tuple[AudienceAnswer, ...], *, tally: Tally, voter: str
) -> AudienceAnswer | None:
    """The answer ``voter`` scores next: one they have not scored, with the fewest votes so
    far, ties broken by :func:`_tie_break`; None when they have scored every answer."""
    done = tally.scored_by(voter)
    open_answers = [item for item in answers if item.answer_id not in done]
    if not open_answers:
        return None
    return min(
        open_answers,
        key=lambda item: (tally.votes[item.answer_id], _tie_break(voter, item.answer_id)),
    )
