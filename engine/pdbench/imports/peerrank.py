"""PeerRank's phase files (caura-ai/caura-PeerRank): ``pdbench import peerrank <folder>``.

A PeerRank run leaves one file per phase in its data folder, named by the run's revision
(``z``, ``V3``, ...):

- ``phase1_questions_<rev>.json``: ``questions_by_model`` -> author -> a list of
  ``{category, question}``;
- ``phase2_answers_<rev>.json``: ``questions``, a list of ``{source, category, text,
  answers}`` with ``answers`` -> answerer -> ``{text, ...}``;
- ``phase3_rankings_<rev>.json``: ``evaluations_by_mode`` -> mode -> judge -> question text
  -> answerer -> ``{score, reason, ...}``, every judge scoring every answer (its own too)
  from 1 to 10, once in each of three modes.

The folder must hold one ``phase3_rankings_*.json``; its revision names the other two. The
modes become the judgement's ``arm``: ``shuffle_blind`` (names hidden, order shuffled) is
``plain``, the scored judgement; ``shuffle_only`` (names shown) is ``named``; ``blind_only``
(one fixed order) is ``fixed_order``. A judge's score of its own answer is left out (the
arena's judgements are by other players; PeerRank's self bias is not imported). The order
of the answers under a question in the file is taken as the order the judge saw them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pdbench.arena.records import JudgmentArm
from pdbench.imports.arena_scores import (
    ImportedAnswer,
    ImportedQuestion,
    ImportedRun,
    ImportedScore,
    write_score_run,
)
from pdbench.imports.base import (
    ImportInputError,
    ImportOptions,
    ImportSummary,
    SourceProblem,
    json_value,
    read_source,
)
from pdbench.imports.staging import source_files, staged_run_dir
from pdbench.storage.schema import ImportRecord

__all__ = ["ARMS", "run"]

ARMS: dict[str, JudgmentArm] = {
    "shuffle_blind": "plain",
    "shuffle_only": "named",
    "blind_only": "fixed_order",
}
"""PeerRank's evaluation mode -> the judgement's arm, the scored mode first."""


def run(sources: list[Path], output_dir: Path, options: ImportOptions) -> ImportSummary:
    """Import the PeerRank run of the folder ``sources[0]`` into ``output_dir``."""
    phase1, phase2, phase3 = _phase_files(sources)
    files = source_files([phase1, phase2, phase3])
    questions = _questions(phase1)
    answers = _answers(phase2, {q.key for q in questions})
    scores, n_self = _scores(phase3, {(a.question, a.answerer) for a in answers})
    record = ImportRecord(format="peerrank", sources=files)
    with staged_run_dir(output_dir, overwrite=options.overwrite) as staging:
        counts = write_score_run(
            staging,
            ImportedRun(questions=questions, answers=answers, scores=scores),
            run_id=options.run_id or output_dir.name,
            record=record,
        )
    per_arm = {arm: sum(s.arm == arm for s in scores) for arm in ARMS.values()}
    judges = {s.judge for s in scores}
    return ImportSummary(
        run_dir=output_dir,
        game="arena",
        counts=counts,
        lines=[
            f"imported {len(questions)} questions, {len(answers)} answers and {len(scores)} "
            f"scores of {len(judges)} judges ({per_arm['plain']} plain, {per_arm['named']} "
            f"named, {per_arm['fixed_order']} in a fixed order) from {sources[0]} -> "
            f"{output_dir}; {n_self} scores of a judge's own answer left out"
        ],
    )


def _phase_files(sources: list[Path]) -> tuple[Path, Path, Path]:
    """The three phase files of the one folder given, named by its phase 3 file's revision."""
    if len(sources) != 1 or not sources[0].is_dir():
        raise ImportInputError(
            "give one PeerRank data folder (holding phase3_rankings_<rev>.json)",
            at=SourceProblem(sources[0]),
        )
    folder = sources[0]
    rankings = sorted(folder.glob("phase3_rankings_*.json"))
    if len(rankings) != 1:
        found = ", ".join(p.name for p in rankings) or "none"
        raise ImportInputError(
            f"needs exactly one phase3_rankings_*.json (found: {found})", at=SourceProblem(folder)
        )
    revision = rankings[0].name.removeprefix("phase3_rankings_").removesuffix(".json")
    return (
        folder / f"phase1_questions_{revision}.json",
        folder / f"phase2_answers_{revision}.json",
        rankings[0],
    )


def _load(path: Path, key: str) -> Any:
    """``path``'s JSON object's ``key``."""
    document = json_value(read_source(path), path)
    if not isinstance(document, dict) or key not in document:
        raise ImportInputError("missing", at=SourceProblem(path, column=key))
    return document[key]


def _object(value: Any, path: Path, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ImportInputError("not a JSON object", at=SourceProblem(path, column=field))
    return value


def _text(value: Any, path: Path, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ImportInputError("missing or not a text", at=SourceProblem(path, column=field))
    return value


def _questions(path: Path) -> list[ImportedQuestion]:
    by_author = _object(_load(path, "questions_by_model"), path, "questions_by_model")
    questions: dict[str, ImportedQuestion] = {}
    for author, listed in by_author.items():
        field = f"questions_by_model.{author}"
        if not isinstance(listed, list):
            raise ImportInputError("not a list", at=SourceProblem(path, column=field))
        for position, item in enumerate(listed, start=1):
            at = f"{field}[{position - 1}]"
            item = _object(item, path, at)
            text = _text(item.get("question"), path, f"{at}.question")
            if text in questions:
                raise ImportInputError("asked twice", at=SourceProblem(path, column=at))
            category = item.get("category")
            questions[text] = ImportedQuestion(
                key=text,
                author=author,
                category=category if isinstance(category, str) else "",
                text=text,
                position=position,
            )
    return list(questions.values())


def _answers(path: Path, questions: set[str]) -> list[ImportedAnswer]:
    listed = _load(path, "questions")
    if not isinstance(listed, list):
        raise ImportInputError("not a list", at=SourceProblem(path, column="questions"))
    answers = []
    for index, item in enumerate(listed):
        at = f"questions[{index}]"
        item = _object(item, path, at)
        question = _text(item.get("text"), path, f"{at}.text")
        if question not in questions:
            raise ImportInputError(
                "not a question of phase 1", at=SourceProblem(path, column=f"{at}.text")
            )
        by_answerer = _object(item.get("answers"), path, f"{at}.answers")
        for answerer, answer in by_answerer.items():
            text = _object(answer, path, f"{at}.answers.{answerer}").get("text")
            if not isinstance(text, str):
                raise ImportInputError(
                    "missing or not a text",
                    at=SourceProblem(path, column=f"{at}.answers.{answerer}.text"),
                )
            answers.append(ImportedAnswer(question=question, answerer=answerer, text=text))
    return answers


def _scores(path: Path, answers: set[tuple[str, str]]) -> tuple[list[ImportedScore], int]:
    """Every judge's score of another's answer, the plain mode first; the number of scores of
    a judge's own answer (left out)."""
    by_mode = _object(_load(path, "evaluations_by_mode"), path, "evaluations_by_mode")
    for mode in by_mode:
        if mode not in ARMS:
            raise ImportInputError(
                f"mode {mode!r} is not one of {', '.join(ARMS)}",
                at=SourceProblem(path, column=f"evaluations_by_mode.{mode}"),
            )
    if "shuffle_blind" not in by_mode:
        raise ImportInputError(
            "missing (the scored mode)",
            at=SourceProblem(path, column="evaluations_by_mode.shuffle_blind"),
        )
    scores: list[ImportedScore] = []
    n_self = 0
    for mode, arm in ARMS.items():
        by_judge = _object(by_mode.get(mode, {}), path, f"evaluations_by_mode.{mode}")
        for judge, by_question in by_judge.items():
            field = f"evaluations_by_mode.{mode}.{judge}"
            for question, by_answerer in _object(by_question, path, field).items():
                at = f"{field}.{_short(question)}"
                for index, (answerer, entry) in enumerate(_object(by_answerer, path, at).items()):
                    if (question, answerer) not in answers:
                        raise ImportInputError(
                            "no such answer in phase 2",
                            at=SourceProblem(path, column=f"{at}.{answerer}"),
                        )
                    if answerer == judge:
                        n_self += 1
                        continue
                    score = _score(entry, path, f"{at}.{answerer}")
                    scores.append(
                        ImportedScore(
                            question=question,
                            answerer=answerer,
                            judge=judge,
                            score=score,
                            raw_reply=json.dumps(entry, ensure_ascii=False),
                            presentation_index=index,
                            arm=arm,
                        )
                    )
    return scores, n_self


def _score(entry: Any, path: Path, field: str) -> int | None:
    """The entry's score, 0..10; None when the judge gave none (recorded as invalid)."""
    score = _object(entry, path, field).get("score")
    if score is None:
        return None
    if (
        isinstance(score, bool)
        or not isinstance(score, (int, float))
        or not float(score).is_integer()
    ):
        raise ImportInputError(
            "not a whole number", at=SourceProblem(path, column=f"{field}.score")
        )
    if not 0 <= score <= 10:
        raise ImportInputError(
            f"{score} is outside 0..10", at=SourceProblem(path, column=f"{field}.score")
        )
    return int(score)


def _short(question: str) -> str:
    """A question, as an error names it: its first 40 characters."""
    return question if len(question) <= 40 else question[:37].rstrip() + "..."
