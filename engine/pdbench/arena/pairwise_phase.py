"""The pairwise judging phase (``judging: pairwise`` or ``both``): one task per showing of a
pair of answers to a judge (:mod:`pdbench.arena.pairing`), one ``pairwise_judgments.jsonl``
line per task, written through its contract
(:class:`~pdbench.arena.records.PairwiseJudgmentRecord`), with the fields an import writes.

Only valid answers that are not void are paired. The prompt holds the question and the two
answers (``shown_text``), as A and B, with the authors' names and models only in the name arm;
the reply is read like a score (:mod:`pdbench.arena.verdicts`, under ``score_format``) and
re-asked when unusable. A trick question's rubric is not shown in this phase.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pdbench.arena.context import PhaseContext
from pdbench.arena.pairing import PairShowing, pair_id, showings
from pdbench.arena.phases import record_base
from pdbench.arena.prompts import render_pairwise
from pdbench.arena.records import PairwiseJudgmentRecord
from pdbench.arena.tasks import CallOutcome, CallTask

__all__ = ["PlannedVerdict", "pairwise_records", "pairwise_tasks"]


@dataclass(frozen=True, slots=True)
class PlannedVerdict:
    """A pairwise task and what it shows."""

    task: CallTask
    showing: PairShowing
    first_answer_id: str
    second_answer_id: str


def pairwise_tasks(
    answers: Sequence[dict[str, Any]], *, questions: Sequence[dict[str, Any]], context: PhaseContext
) -> list[PlannedVerdict]:
    """Every showing of every pair of valid answers, question by question (in id order)."""
    config = context.config
    by_question = {q["question_id"]: q for q in questions}
    usable = {
        (a["question_id"], a["answerer"]): a for a in answers if a["is_valid"] and not a["is_void"]
    }
    models = {p.name: p.model for p in config.players}
    planned = []
    for question_id in sorted(by_question):
        authors = [name for name in context.answerers if (question_id, name) in usable]
        for showing in showings(
            question_id,
            authors,
            judges=context.evaluators,
            pairing=config.pairing,
            seed=config.seed,
        ):
            first = usable[(question_id, showing.first)]
            second = usable[(question_id, showing.second)]
            labels = (
                (f"{showing.first} ({models[showing.first]})",
                 f"{showing.second} ({models[showing.second]})")
                if showing.is_named else None
            )  # fmt: skip
            prompt = render_pairwise(
                context.pairwise_template,
                question=by_question[question_id]["shown_text"],
                first=first["shown_text"],
                second=second["shown_text"],
                authors=labels,
            )
            item = f"{first['answer_id']}>{second['answer_id']}" + (
                "/named" if showing.is_named else ""
            )
            task = CallTask(
                phase="pairwise",
                player=showing.judge,
                prompt=prompt,
                max_tokens=config.tokens(showing.judge, "pairwise"),
                item_id=item,
                question_id=question_id,
            )
            planned.append(
                PlannedVerdict(
                    task=task,
                    showing=showing,
                    first_answer_id=first["answer_id"],
                    second_answer_id=second["answer_id"],
                )
            )
    return planned


def pairwise_records(
    outcomes: Sequence[CallOutcome], *, planned: Sequence[PlannedVerdict], context: PhaseContext
) -> list[dict[str, Any]]:
    """One ``pairwise_judgments.jsonl`` line per task, in task order."""
    config = context.config
    records = []
    for outcome, verdict in zip(outcomes, planned, strict=True):
        showing = verdict.showing
        record = record_base(outcome, run_id=config.run_id, store_prompts=config.store_prompts)
        record.update(
            pair_id=pair_id(showing.question_id, showing.first, showing.second),
            question_id=showing.question_id,
            judge=showing.judge,
            first_player=showing.first,
            second_player=showing.second,
            first_answer_id=verdict.first_answer_id,
            second_answer_id=verdict.second_answer_id,
            order_index=showing.order_index,
            is_named=showing.is_named,
            verdict=outcome.value if outcome.is_valid else None,
            is_valid=outcome.is_valid,
            raw_reply=outcome.recorded.reply,
        )
        line = PairwiseJudgmentRecord.model_validate(record)
        records.append(line.model_dump(mode="json", exclude_unset=True))
    return records
