"""The Language Model Council's rubric ratings and completions (machine-theory/lm-council,
MIT), read as absolute scores: the rubric half of ``pdbench import lm-council``.

A rubric rating is one JSON line with ``judge_model``, ``model_being_judged``,
``user_prompt`` and one number per criterion of the Council's rubric on its 5-point Likert
scale (1..5), e.g. ``analysis/sample_council/rubric/judge_ratings.jsonl``::

    {"user_prompt": "Say hello.", "judge_model": "x-ai/grok-3-mini",
     "model_being_judged": "deepseek/deepseek-r1-0528", "Coherence": 4, "Relevance": 5,
     "Overall": 4.5, "temperature": 0.0, "completion_tokens": 10, ...}

Every numeric field but the Council's own (``Overall``, ``temperature``, the token counts)
is a criterion. The arena's score is the mean of the criteria put on 0..10,
``10 * (mean - 1) / 4``, rounded to the nearest whole point (a half up): (4 + 5) / 2 = 4.5
becomes 8.75, scored 9; the exact value stays in the raw reply. A completion line
(``completions.jsonl``: ``user_prompt``, ``model``, ``completion_text``) gives an answer its
text; an answer rated without one is ``not recorded``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pdbench.imports.arena_scores import ImportedAnswer, ImportedQuestion, ImportedScore
from pdbench.imports.base import ImportInputError, SourceProblem

__all__ = ["LIKERT", "PROMPT_AUTHOR", "RubricRatings", "rescaled", "rubric_rating"]

LIKERT = (1, 5)
"""The Council's prebuilt Likert scale: its lowest and highest point."""
_COUNCIL_FIELDS = frozenset(
    {"Overall", "temperature", "completion_tokens", "prompt_tokens", "total_tokens", "reps"}
)
_NOT_RECORDED = "not recorded"
PROMPT_AUTHOR = "(prompt set)"
"""The author of the Council's prompts, none of the models: a player with no answers."""


def rescaled(points: list[float]) -> float:
    """The mean of Likert ``points`` on 0..10."""
    low, high = LIKERT
    return 10 * (sum(points) / len(points) - low) / (high - low)


def rubric_rating(line: dict[str, Any], path: Path, number: int) -> ImportedScore:
    """A rubric line as an absolute score (the question is named by its prompt)."""
    for key in ("judge_model", "model_being_judged", "user_prompt"):
        if not isinstance(line.get(key), str) or not line[key].strip():
            raise ImportInputError("missing or not a text", at=SourceProblem(path, number, key))
    criteria = {
        key: value
        for key, value in line.items()
        if key not in _COUNCIL_FIELDS and isinstance(value, (int, float))
        if not isinstance(value, bool)
    }
    if not criteria:
        raise ImportInputError(
            "no criterion score (a number besides Overall, temperature and tokens)",
            at=SourceProblem(path, number, "model_being_judged"),
        )
    for key, value in criteria.items():
        if not LIKERT[0] <= value <= LIKERT[1]:
            raise ImportInputError(
                f"{value} is outside the Likert scale {LIKERT[0]}..{LIKERT[1]}",
                at=SourceProblem(path, number, key),
            )
    exact = rescaled(list(criteria.values()))
    reply = {"criteria": criteria, "score_0_10": exact}
    return ImportedScore(
        question=line["user_prompt"],
        answerer=line["model_being_judged"],
        judge=line["judge_model"],
        score=math.floor(exact + 0.5),
        raw_reply=json.dumps(reply),
    )


@dataclass
class RubricRatings:
    """The rubric ratings and completions of the sources, in the order read."""

    scores: list[ImportedScore]
    completions: dict[tuple[str, str], str]
    """(prompt, model) -> the completion's text."""

    def questions(self) -> list[ImportedQuestion]:
        """One question per prompt rated or answered, in the order first met; the Council's
        prompts have no author among the models."""
        prompts = dict.fromkeys(
            [s.question for s in self.scores] + [p for p, _ in self.completions]
        )
        return [
            ImportedQuestion(
                key=prompt, author=PROMPT_AUTHOR, category="", text=prompt, position=position
            )
            for position, prompt in enumerate(prompts, start=1)
        ]

    def answers(self) -> list[ImportedAnswer]:
        """One answer per (prompt, model) rated or completed."""
        keys = dict.fromkeys(
            [(s.question, s.answerer) for s in self.scores] + list(self.completions)
        )
        return [
            ImportedAnswer(
                question=prompt,
                answerer=model,
                text=self.completions.get((prompt, model), _NOT_RECORDED),
            )
            for prompt, model in keys
        ]
