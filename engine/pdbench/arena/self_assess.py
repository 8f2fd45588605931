"""The self-assessment phase (``self_assessment: true``): every player predicts the score
of each of its own answers.

One task per valid answer that is not void (the answers the judges score), asked of its
answerer, in answer-id order: the question as the player was shown it and its own answer
as the judges were shown it (``shown_text``: under ``identity_leaks: scrub`` a name it
wrote is redacted here too, so no prompt after generation names a player), and the request
for the 0..10 score it expects from the judges. The reply is read like a judgement
(:func:`pdbench.arena.phases.read_score`, under ``score_format``) and re-asked like one. One
``self_assessments.jsonl`` line per task. The phase is played after judging: it reads only
the answers, a player never sees a judgement, and a run without it is a prefix of a run
with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pdbench.arena.context import PhaseContext
from pdbench.arena.phases import record_base
from pdbench.arena.prompts import render_self_assess
from pdbench.arena.tasks import CallOutcome, CallTask

__all__ = ["self_assess_tasks", "self_assessment_records"]


def self_assess_tasks(
    answers: Sequence[dict[str, Any]], *, questions: Sequence[dict[str, Any]], context: PhaseContext
) -> list[CallTask]:
    """One task per valid, not void answer, asked of its answerer."""
    config = context.config
    question_text = {q["question_id"]: q["shown_text"] for q in questions}
    scored = sorted(
        (a for a in answers if a["is_valid"] and not a["is_void"]), key=lambda a: a["answer_id"]
    )
    return [
        CallTask(
            phase="self_assess",
            player=answer["answerer"],
            prompt=render_self_assess(
                context.templates,
                question=question_text[answer["question_id"]],
                answer=answer["shown_text"],
            ),
            max_tokens=config.max_tokens.self_assess,
            item_id=answer["answer_id"],
            question_id=answer["question_id"],
        )
        for answer in scored
    ]


def self_assessment_records(
    outcomes: Sequence[CallOutcome], *, context: PhaseContext
) -> list[dict[str, Any]]:
    """One ``self_assessments.jsonl`` line per task (``predicted_score`` null when invalid)."""
    config = context.config
    records = []
    for outcome in outcomes:
        task = outcome.task
        record = record_base(outcome, run_id=config.run_id, store_prompts=config.store_prompts)
        record.update(
            answer_id=task.item_id,
            question_id=task.question_id,
            answerer=task.player,
            predicted_score=outcome.value if outcome.is_valid else None,
            is_valid=outcome.is_valid,
            raw_reply=outcome.recorded.reply,
        )
        records.append(record)
    return records
