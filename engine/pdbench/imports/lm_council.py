"""The Language Model Council's pairwise verdicts (machine-theory/lm-council, MIT):
``pdbench import lm-council <jsonl>...``.

A source is a JSON-lines file of verdicts, one object a line, e.g. the Council's
``tests/testdata/lmc_ei.jsonl`` (1,000 verdicts of 20 LLM judges on answers of 20 LLMs to
EmoBench's emotional-intelligence prompts)::

    {"emobench_id": 194, "judge_model": "gpt-4-0613", "first_completion_by": "qwen1.5-32B-Chat",
     "second_completion_by": "llama-3-8b-chat", "pairwise_choice": "A>B", ...}

``pairwise_choice`` is one of ``A>>B``, ``A>B``, ``B>A``, ``B>>A`` (the Council's scale has
no tie; ``A=B`` is read too). The question is ``emobench_id`` (or ``question_id``); the
judging reply, when the line has it (``judging_response_string``), is kept as the raw reply.
The Council judged every answer against one reference model's; that model, the author found
in every verdict, becomes the Bradley-Terry baseline (1000 on the Elo-style scale).
Verdicts are blind: no judge was shown the authors' names.

The same command reads the Council's rubric mode (:mod:`pdbench.imports.lm_council_rubric`):
a line with ``model_being_judged`` is one judge's rubric rating of one answer, imported as
an absolute score (the mean of the criteria on 0..10), and a line with ``completion_text``
an answer's text. A judge's rating of its own answer is left out, as the arena's judgements
are by other players. Files of both modes make one run holding pairwise verdicts and
absolute scores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pdbench.arena.pairwise_config import PairwiseConfig
from pdbench.imports.arena_run import ImportedVerdict, reference_player, write_pairwise_run
from pdbench.imports.arena_scores import ImportedRun, write_score_run
from pdbench.imports.base import (
    ImportInputError,
    ImportOptions,
    ImportSummary,
    SourceProblem,
    json_value,
    open_source,
)
from pdbench.imports.lm_council_rubric import RubricRatings, rubric_rating
from pdbench.imports.staging import source_files, staged_run_dir
from pdbench.number_text import plural
from pdbench.storage.schema import ImportRecord

__all__ = ["run"]

_CHOICES = ("A>>B", "A>B", "A=B", "B>A", "B>>A")
_REQUIRED = ("judge_model", "first_completion_by", "second_completion_by", "pairwise_choice")


def run(sources: list[Path], output_dir: Path, options: ImportOptions) -> ImportSummary:
    """Import every verdict, rubric rating and completion of every JSON-lines file in
    ``sources`` into ``output_dir``."""
    files = source_files(sources)
    verdicts: list[ImportedVerdict] = []
    rubric = RubricRatings(scores=[], completions={})
    for path in sources:
        _read(path, verdicts, rubric)
    n_own = sum(s.judge == s.answerer for s in rubric.scores)
    rubric.scores = [s for s in rubric.scores if s.judge != s.answerer]
    if not verdicts and not rubric.scores:
        raise ImportInputError("no verdicts and no rubric ratings", at=SourceProblem(sources[0]))
    baseline = reference_player(verdicts)
    record = ImportRecord(format="lm-council", sources=files)
    pairwise = PairwiseConfig(baseline=baseline)
    run_id = options.run_id or output_dir.name
    with staged_run_dir(output_dir, overwrite=options.overwrite) as staging:
        if rubric.scores:
            imported = ImportedRun(
                questions=rubric.questions(),
                answers=rubric.answers(),
                scores=rubric.scores,
                verdicts=verdicts,
            )
            counts = write_score_run(
                staging, imported, run_id=run_id, record=record, pairwise=pairwise
            )
        else:
            counts = write_pairwise_run(
                staging, verdicts, run_id=run_id, record=record, pairwise=pairwise
            )
    return ImportSummary(
        run_dir=output_dir,
        game="arena",
        counts=counts,
        lines=_summary(verdicts, rubric, n_own, n_files=len(sources), output_dir=output_dir),
    )


def _summary(
    verdicts: list[ImportedVerdict],
    rubric: RubricRatings,
    n_own: int,
    *,
    n_files: int,
    output_dir: Path,
) -> list[str]:
    parts = []
    if verdicts:
        judges = {v.judge for v in verdicts}
        authors = {v.first for v in verdicts} | {v.second for v in verdicts}
        baseline = reference_player(verdicts)
        parts.append(
            f"{len(verdicts)} pairwise verdicts of {len(judges)} judges on answers of "
            f"{len(authors)} models" + (f" (baseline: {baseline})" if baseline else "")
        )
    if rubric.scores:
        judges = {s.judge for s in rubric.scores}
        authors = {s.answerer for s in rubric.scores}
        parts.append(
            f"{len(rubric.scores)} rubric scores of {len(judges)} judges on answers of "
            f"{len(authors)} models ({n_own} of a judge's own answer left out)"
        )
    return [f"imported {' and '.join(parts)} from {plural(n_files, 'file')} -> {output_dir}"]


def _read(path: Path, verdicts: list[ImportedVerdict], rubric: RubricRatings) -> None:
    """Every line of ``path``, each into the list of its kind."""
    with open_source(path) as lines:
        for number, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            line = _line(path, number, text)
            if "model_being_judged" in line:
                rubric.scores.append(rubric_rating(line, path, number))
            elif "completion_text" in line:
                _completion(line, path, number, rubric)
            else:
                verdicts.append(_verdict(path, number, line))


def _line(path: Path, number: int, text: str) -> dict[str, Any]:
    line = json_value(text, path, number)
    if not isinstance(line, dict):
        raise ImportInputError("not a JSON object", at=SourceProblem(path, number))
    return line


def _completion(line: dict[str, Any], path: Path, number: int, rubric: RubricRatings) -> None:
    for key in ("user_prompt", "model", "completion_text"):
        if not isinstance(line.get(key), str):
            raise ImportInputError("missing or not a text", at=SourceProblem(path, number, key))
    rubric.completions[line["user_prompt"], line["model"]] = line["completion_text"]


def _verdict(path: Path, number: int, line: dict[str, Any]) -> ImportedVerdict:
    for key in _REQUIRED:
        if not isinstance(line.get(key), str) or not line[key].strip():
            raise ImportInputError("missing or not a text", at=SourceProblem(path, number, key))
    question = line.get("emobench_id", line.get("question_id"))
    if question is None or isinstance(question, (dict, list, bool)):
        raise ImportInputError(
            "missing or not an id", at=SourceProblem(path, number, "emobench_id")
        )
    choice = line["pairwise_choice"].strip()
    if choice not in _CHOICES:
        raise ImportInputError(
            f"{choice!r} is not one of {', '.join(_CHOICES)}",
            at=SourceProblem(path, number, "pairwise_choice"),
        )
    if line["first_completion_by"] == line["second_completion_by"]:
        raise ImportInputError(
            "an answer compared with its own author's",
            at=SourceProblem(path, number, "second_completion_by"),
        )
    return ImportedVerdict(
        question_id=f"emobench-{question}" if "emobench_id" in line else str(question),
        judge=line["judge_model"],
        first=line["first_completion_by"],
        second=line["second_completion_by"],
        verdict=choice,
        raw_reply=str(line.get("judging_response_string") or choice),
    )
