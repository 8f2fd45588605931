"""Writing imported absolute scores as an arena run directory, line for line like a played
run's.

An importer turns its source into :class:`ImportedQuestion`, :class:`ImportedAnswer` and
:class:`ImportedScore` objects and hands them to :func:`write_score_run`, which writes
``questions.jsonl``, ``answers.jsonl`` and ``judgments.jsonl`` through the record contracts
(:mod:`pdbench.arena.records`), with the ids a played run gives
(:mod:`pdbench.arena.ids`), and, when the source also holds pairwise verdicts,
``pairwise_judgments.jsonl`` (:func:`pdbench.imports.arena_run.write_verdicts`). What the
source never recorded (prompts, attempts beyond the one reply) is ``not recorded`` or 1.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pdbench.arena import ids
from pdbench.arena.pairwise_config import PairwiseConfig
from pdbench.arena.records import (
    AnswerRecord,
    ArenaFiles,
    JudgmentArm,
    JudgmentRecord,
    QuestionRecord,
)
from pdbench.clock import utc_timestamp
from pdbench.imports.arena_run import (
    ImportedVerdict,
    finish_imported_run,
    write_records,
    write_verdicts,
)
from pdbench.imports.manifest import IMPORT_SEED
from pdbench.storage.schema import ImportRecord

__all__ = ["ImportedAnswer", "ImportedQuestion", "ImportedRun", "ImportedScore", "write_score_run"]

_NOT_RECORDED = "not recorded"


@dataclass(frozen=True, slots=True)
class ImportedQuestion:
    """One question read from a source; ``key`` is how the source names it."""

    key: str
    author: str
    category: str
    text: str
    position: int
    """1-based position in the author's list."""


@dataclass(frozen=True, slots=True)
class ImportedAnswer:
    """One answer read from a source, to the question of source key ``question``."""

    question: str
    answerer: str
    text: str


@dataclass(frozen=True, slots=True)
class ImportedScore:
    """One absolute judgement (0..10) of ``answerer``'s answer to ``question``."""

    question: str
    answerer: str
    judge: str
    score: int | None
    """None: the source holds no usable score (recorded as invalid)."""
    raw_reply: str
    presentation_index: int = 0
    arm: JudgmentArm = "plain"


@dataclass(frozen=True, slots=True)
class ImportedRun:
    """What a source holds of an arena run."""

    questions: Sequence[ImportedQuestion]
    answers: Sequence[ImportedAnswer]
    scores: Sequence[ImportedScore]
    verdicts: Sequence[ImportedVerdict] = ()


def write_score_run(
    run_dir: Path,
    run: ImportedRun,
    *,
    run_id: str,
    record: ImportRecord,
    pairwise: PairwiseConfig | None = None,
) -> dict[str, int]:
    """Write ``run`` into the (empty) ``run_dir`` as a completed arena run; the counts."""
    started_at = utc_timestamp()
    question_ids = {
        q.key: ids.question_id(seed=IMPORT_SEED, author=q.author, position=q.position)
        for q in run.questions
    }
    counts = {
        "questions": write_records(
            run_dir / ArenaFiles.QUESTIONS, _question_records(run.questions, question_ids, run_id)
        ),
        "answers": write_records(
            run_dir / ArenaFiles.ANSWERS, _answer_records(run.answers, question_ids, run_id)
        ),
        "judgments": write_records(
            run_dir / ArenaFiles.JUDGMENTS, _judgment_records(run.scores, question_ids, run_id)
        ),
    }
    if run.verdicts:
        counts["pairwise_judgments"] = write_verdicts(
            run_dir / ArenaFiles.PAIRWISE_JUDGMENTS, run.verdicts, run_id=run_id
        )
    return finish_imported_run(
        run_dir,
        counts,
        run_id=run_id,
        record=record,
        started_at=started_at,
        pairwise=pairwise or PairwiseConfig(),
    )


def _answer_id(question_ids: dict[str, str], question: str, answerer: str) -> str:
    return ids.answer_id(seed=IMPORT_SEED, question_id=question_ids[question], answerer=answerer)


def _question_records(
    questions: Sequence[ImportedQuestion], question_ids: dict[str, str], run_id: str
) -> Iterator[QuestionRecord]:
    for question in questions:
        yield QuestionRecord(
            **_unrecorded(run_id),
            **_shown_as_written(question.text),
            question_id=question_ids[question.key],
            author=question.author,
            category=question.category,
            text=question.text,
            position=question.position,
            raw_line=question.text,
        )


def _answer_records(
    answers: Sequence[ImportedAnswer], question_ids: dict[str, str], run_id: str
) -> Iterator[AnswerRecord]:
    for answer in answers:
        yield AnswerRecord(
            **_unrecorded(run_id),
            **_shown_as_written(answer.text),
            answer_id=_answer_id(question_ids, answer.question, answer.answerer),
            question_id=question_ids[answer.question],
            answerer=answer.answerer,
            text=answer.text,
            is_valid=bool(answer.text.strip()),
            raw_reply=answer.text,
        )


def _judgment_records(
    scores: Sequence[ImportedScore], question_ids: dict[str, str], run_id: str
) -> Iterator[JudgmentRecord]:
    for score in scores:
        yield JudgmentRecord(
            **_unrecorded(run_id),
            answer_id=_answer_id(question_ids, score.question, score.answerer),
            question_id=question_ids[score.question],
            judge=score.judge,
            score=score.score,
            is_valid=score.score is not None,
            presentation_index=score.presentation_index,
            raw_reply=score.raw_reply,
            rationale_asked=False,
            rationale=None,
            arm=score.arm,
        )


def _shown_as_written(text: str) -> dict[str, Any]:
    """The identity-leak fields of an imported text: shown as the source wrote it, no leak
    looked for, never void."""
    return {"leaked_identities": [], "shown_text": text, "is_void": False}


def _unrecorded(run_id: str) -> dict[str, Any]:
    """The fields of a record the source never recorded: one attempt, no prompt."""
    return {"run_id": run_id, "attempts": 1, "prompt_sha256": _NOT_RECORDED}
