"""The four phases of play as call tasks planned up front, and the records their outcomes
become (the optional fifth, ``self_assess``, is :mod:`pdbench.arena.self_assess`).

=========  =====================================  ======================  =====================
phase      one task per                           item_id                 record file
=========  =====================================  ======================  =====================
generate   writer                                 (none)                  ``questions.jsonl``
rate       question x evaluator who did not write  question id            ``question_ratings``
           it
answer     kept question x answerer               answer id               ``answers.jsonl``
judge      valid answer x evaluator who did not   answer id               ``judgments.jsonl``
           write it
=========  =====================================  ======================  =====================

Who takes part follows each participant's ``role``: writers are the ``player`` role,
evaluators (raters and judges) ``player`` and ``judge``, answerers ``player`` and
``answerer``. No one rates its own question or judges its own answer, whatever its role.

A judging task whose score is extreme (``rationales``) asks the same judge a follow-up in the
same task (phase ``rationale`` in ``calls.jsonl``); its reply is recorded with the judgement.

Players are taken in config order and items in each player's own shuffled order, so the plan
depends on the seed and the previous phase's records only. Prompts of rate, answer and judge
are rendered from question and answer texts alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pdbench.arena.context import PhaseContext
from pdbench.arena.ids import answer_id, presentation_order, question_id
from pdbench.arena.parse import QuestionList, read_questions
from pdbench.arena.prompts import (
    render_answer,
    render_generate,
    render_judge,
    render_rate,
    render_rationale,
)
from pdbench.arena.scores import ScoreFormat, extract_score
from pdbench.arena.tasks import CallOutcome, CallTask, Reading
from pdbench.arena.verdicts import extract_verdict
from pdbench.storage.schema import SCHEMA_VERSION

__all__ = [
    "SCORE_PROBLEM",
    "answer_records",
    "answer_tasks",
    "generate_tasks",
    "judge_tasks",
    "judgment_records",
    "question_records",
    "rate_tasks",
    "rating_records",
    "rationale_task",
    "read_answer",
    "read_score",
    "read_verdict",
    "reader_for",
    "record_base",
]

SCORE_PROBLEM = "Your previous reply was not a single integer from 0 to 10."
VERDICT_PROBLEM = "Your previous reply was not one of A>>B, A>B, A=B, B>A, B>>A."
EMPTY_ANSWER_PROBLEM = "Your previous reply was empty."


# ---------------------------------------------------------------------------------------------
# readers


def read_score(reply: str, *, score_format: ScoreFormat = "strict") -> Reading:
    """A rating or judgement: an integer 0..10 (read under ``score_format``), or a re-ask."""
    found = extract_score(reply, score_format=score_format)
    if found.value is None:
        return Reading(value=None, problem=SCORE_PROBLEM)
    return Reading(value=found.value, rule=found.rule)


def read_verdict(reply: str, *, score_format: ScoreFormat = "strict") -> Reading:
    """A pairwise verdict (read under ``score_format``), or a re-ask."""
    found = extract_verdict(reply, score_format=score_format)
    if found.value is None:
        return Reading(value=None, problem=VERDICT_PROBLEM)
    return Reading(value=found.value, rule=found.rule)


def read_answer(reply: str) -> Reading:
    """An answer: any non-empty text."""
    text = reply.strip()
    if not text:
        return Reading(value=text, problem=EMPTY_ANSWER_PROBLEM)
    return Reading(value=text, rule="text")


def reader_for(task: CallTask, *, context: PhaseContext) -> Any:
    """The reader of ``task``'s replies."""
    if task.phase == "generate":
        config = context.config
        tricks = tuple(context.trick_slots(task.player))
        return lambda reply: read_questions(
            reply, n=config.questions_per_player, categories=config.categories, tricks=tricks
        )
    if task.phase == "answer":
        return read_answer
    score_format = context.config.score_format
    if task.phase == "pairwise":
        return lambda reply: read_verdict(reply, score_format=score_format)
    return lambda reply: read_score(reply, score_format=score_format)


def record_base(outcome: CallOutcome, *, run_id: str, store_prompts: bool) -> dict[str, Any]:
    """The fields every arena record takes from its task's outcome (``ArenaRecord`` in
    :mod:`pdbench.arena.records`)."""
    recorded = outcome.recorded
    record: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "run_id": run_id,
        "attempts": len(outcome.attempts),
        "prompt_sha256": recorded.prompt_sha256,
    }
    if store_prompts:
        record["prompt"] = recorded.prompt
    return record


# ---------------------------------------------------------------------------------------------
# 1. generate


def generate_tasks(context: PhaseContext) -> list[CallTask]:
    """One task per writer: write ``questions_per_player`` questions, its trick slots
    (``tricks``) each with a note."""
    config = context.config
    return [
        CallTask(
            phase="generate",
            player=name,
            prompt=render_generate(
                context.templates,
                n=config.questions_per_player,
                categories=tuple(config.categories),
                tricks=context.trick_slots(name),
            ),
            max_tokens=config.tokens(name, "generate"),
        )
        for name in context.writers
    ]


def question_records(
    outcomes: Sequence[CallOutcome], *, context: PhaseContext
) -> list[dict[str, Any]]:
    """The questions of every player (at most ``questions_per_player`` each), with ids; a
    question at a trick position has its ``trick_kind`` and ``trick_note`` (null when the
    author wrote none), an ordinary one null for both (a note after it is ignored)."""
    config = context.config
    records = []
    for outcome in outcomes:
        parsed: QuestionList = outcome.value
        author = outcome.task.player
        slots = context.trick_slots(author)
        for position, question in enumerate(
            parsed.questions[: config.questions_per_player], start=1
        ):
            kind = slots.get(position)
            note = question.note if kind is not None else None
            record = record_base(outcome, run_id=config.run_id, store_prompts=config.store_prompts)
            record.update(
                question_id=question_id(seed=config.seed, author=author, position=position),
                author=author,
                category=question.category,
                text=question.text,
                position=position,
                raw_line=question.raw_line,
                **context.leak_fields(question.text, note=note),
                trick_kind=kind,
                trick_note=note,
            )
            records.append(record)
    _check_unique([r["question_id"] for r in records], kind="question")
    return records


# ---------------------------------------------------------------------------------------------
# 2. rate


def rate_tasks(questions: Sequence[dict[str, Any]], *, context: PhaseContext) -> list[CallTask]:
    """Every question not void, rated by every evaluator but its author, in each rater's own
    order, as ``shown_text``."""
    config = context.config
    by_id = {q["question_id"]: q for q in questions if not q["is_void"]}
    tasks = []
    for rater in context.evaluators:
        others = [item for item, q in by_id.items() if q["author"] != rater]
        order = presentation_order(others, seed=config.seed, phase="rate", player=rater)
        for index, item in enumerate(order):
            tasks.append(
                CallTask(
                    phase="rate",
                    player=rater,
                    prompt=render_rate(
                        context.templates,
                        question=by_id[item]["shown_text"],
                        trick=context.shown_trick(by_id[item]),
                    ),
                    max_tokens=config.tokens(rater, "rate"),
                    item_id=item,
                    question_id=item,
                    presentation_index=index,
                )
            )
    return tasks


def rating_records(
    outcomes: Sequence[CallOutcome], *, context: PhaseContext
) -> list[dict[str, Any]]:
    """One ``question_ratings.jsonl`` line per rating task."""
    return [_score_record(o, context=context, who="rater") for o in outcomes]


def _score_record(outcome: CallOutcome, *, context: PhaseContext, who: str) -> dict[str, Any]:
    config = context.config
    task = outcome.task
    record = record_base(outcome, run_id=config.run_id, store_prompts=config.store_prompts)
    if task.phase == "judge":
        record["answer_id"] = task.item_id
    record.update(
        {
            "question_id": task.question_id,
            who: task.player,
            "score": outcome.value if outcome.is_valid else None,
            "is_valid": outcome.is_valid,
            "presentation_index": task.presentation_index,
            "raw_reply": outcome.recorded.reply,
        }
    )
    return record


# ---------------------------------------------------------------------------------------------
# 3. answer


def answer_tasks(questions: Sequence[dict[str, Any]], *, context: PhaseContext) -> list[CallTask]:
    """Every kept question (``questions``) not void, answered by every answerer, authors
    included, as ``shown_text``."""
    config = context.config
    ordered = sorted((q for q in questions if not q["is_void"]), key=lambda q: q["question_id"])
    return [
        CallTask(
            phase="answer",
            player=answerer,
            prompt=render_answer(context.templates, question=q["shown_text"]),
            max_tokens=config.tokens(answerer, "answer"),
            item_id=answer_id(seed=config.seed, question_id=q["question_id"], answerer=answerer),
            question_id=q["question_id"],
        )
        for answerer in context.answerers
        for q in ordered
    ]


def answer_records(
    outcomes: Sequence[CallOutcome], *, context: PhaseContext
) -> list[dict[str, Any]]:
    """One ``answers.jsonl`` line per answer task (invalid ones have empty text; one cut at
    the token limit is kept, flagged ``truncated``)."""
    config = context.config
    records = []
    for outcome in outcomes:
        task = outcome.task
        record = record_base(outcome, run_id=config.run_id, store_prompts=config.store_prompts)
        text = outcome.value if outcome.is_valid else ""
        record.update(
            answer_id=task.item_id,
            question_id=task.question_id,
            answerer=task.player,
            text=text,
            is_valid=outcome.is_valid,
            truncated=outcome.recorded.truncated,
            raw_reply=outcome.recorded.reply,
            **context.leak_fields(text),
        )
        records.append(record)
    _check_unique([r["answer_id"] for r in records], kind="answer")
    return records


# ---------------------------------------------------------------------------------------------
# 4. judge


def judge_tasks(
    answers: Sequence[dict[str, Any]], *, questions: Sequence[dict[str, Any]], context: PhaseContext
) -> list[CallTask]:
    """Every valid answer not void, judged by every evaluator but its author, in each judge's
    own order; question and answer as ``shown_text``.

    Invalid answers (empty after every retry) are not judged: scoring never counts them.
    """
    config = context.config
    by_question = {q["question_id"]: q for q in questions}
    by_id = {a["answer_id"]: a for a in answers if a["is_valid"] and not a["is_void"]}
    tasks = []
    for judge in context.evaluators:
        others = [item for item, a in by_id.items() if a["answerer"] != judge]
        order = presentation_order(others, seed=config.seed, phase="judge", player=judge)
        for index, item in enumerate(order):
            answer = by_id[item]
            tasks.append(
                CallTask(
                    phase="judge",
                    player=judge,
                    prompt=render_judge(
                        context.templates,
                        question=by_question[answer["question_id"]]["shown_text"],
                        answer=answer["shown_text"],
                        trick=context.shown_trick(by_question[answer["question_id"]]),
                    ),
                    max_tokens=config.tokens(judge, "judge"),
                    item_id=item,
                    question_id=answer["question_id"],
                    presentation_index=index,
                )
            )
    return tasks


def judgment_records(
    outcomes: Sequence[CallOutcome], *, context: PhaseContext
) -> list[dict[str, Any]]:
    """One ``judgments.jsonl`` line per judging task, with the rationale asked after an
    extreme score (``rationale_asked``; ``rationale`` null when not asked or never usable)."""
    records = []
    for outcome in outcomes:
        record = _score_record(outcome, context=context, who="judge")
        follow_up = outcome.follow_up
        record["rationale_asked"] = follow_up is not None
        record["rationale"] = (
            follow_up.value if follow_up is not None and follow_up.is_valid else None
        )
        record["arm"] = "plain"  # a tournament shows every answer anonymous, shuffled
        records.append(record)
    return records


def rationale_task(outcome: CallOutcome, *, context: PhaseContext) -> CallTask | None:
    """The follow-up of a judging task whose valid score is extreme under ``rationales``
    (phase ``rationale``, the same judge and answer), or None."""
    rationales = context.config.rationales
    if rationales is None or not outcome.is_valid or not rationales.is_extreme(outcome.value):
        return None
    task = outcome.task
    return CallTask(
        phase="rationale",
        player=task.player,
        prompt=render_rationale(task.prompt, score=outcome.value),
        max_tokens=context.config.tokens(task.player, "rationale"),
        item_id=task.item_id,
        question_id=task.question_id,
        presentation_index=task.presentation_index,
    )


def _check_unique(ids: list[str], *, kind: str) -> None:
    if len(set(ids)) != len(ids):
        raise RuntimeError(f"two {kind}s got the same id; the id space is too small")
