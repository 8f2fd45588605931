"""The arena's five prompts: template files rendered with ``str.format``.

Each phase has one template (``configs/prompts/arena/<phase>.md``) and a fixed set of
placeholders, all of which it must use:

===========  ====================================================  ==========================
phase        placeholders                                          reply the parser expects
===========  ====================================================  ==========================
generate     ``{n}``, ``{categories}``, ``{output_instruction}``   numbered list ``1. [math] ...``
rate         ``{question}``, ``{output_instruction}``              one integer 0..10
answer       ``{question}``, ``{output_instruction}``              any non-empty text
judge        ``{question}``, ``{answer}``, ``{output_instruction}``  one integer 0..10
self_assess  ``{question}``, ``{answer}``, ``{output_instruction}``  one integer 0..10
===========  ====================================================  ==========================

``{output_instruction}`` is rendered by the engine, next to the parser that reads the reply,
so that a reworded template can never drift from what is parsed; for a category with a
meaning of its own (``meta``, :data:`CATEGORY_GUIDANCE`) it also says what the category
asks for. Nothing in a phase 2-5 prompt names a player: the only values put into them are
question and answer texts, and for a trick question (``tricks``) its kind and its author's
note, shown to raters and judges (never to answerers) as a rubric before the instruction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pdbench.arena.tricks import judge_rubric, rate_rubric, trick_instruction
from pdbench.templates import template_problem

__all__ = [
    "CATEGORY_GUIDANCE",
    "PHASES",
    "PLACEHOLDERS",
    "ArenaTemplates",
    "Phase",
    "Trick",
    "correction_prompt",
    "generate_instruction",
    "phase_of_prompt",
    "phase_template_problem",
    "render_answer",
    "render_generate",
    "render_judge",
    "render_pairwise",
    "render_rate",
    "render_rationale",
    "render_self_assess",
]

Phase = Literal["generate", "rate", "answer", "judge", "self_assess"]
PHASES: tuple[Phase, ...] = ("generate", "rate", "answer", "judge", "self_assess")

PLACEHOLDERS: dict[Phase, frozenset[str]] = {
    "generate": frozenset({"n", "categories", "output_instruction"}),
    "rate": frozenset({"question", "output_instruction"}),
    "answer": frozenset({"question", "output_instruction"}),
    "judge": frozenset({"question", "answer", "output_instruction"}),
    "self_assess": frozenset({"question", "answer", "output_instruction"}),
}
"""Every placeholder a phase's template must use (and the only ones it may use)."""

_GENERATE_LEAD = "Write exactly {n} questions as a numbered list, one question per line."
_GENERATE_FORMAT = (
    "Begin every question with its category in square brackets, one of: {categories}. "
    "For example: 1. [{first}] ..."
)
RATE_INSTRUCTION = (
    "Reply with a single integer from 0 (poor) to 10 (excellent) for the question, "
    "and nothing else."
)
ANSWER_INSTRUCTION = "Reply with your answer only."
JUDGE_INSTRUCTION = (
    "Reply with a single integer from 0 (very poor) to 10 (excellent) for the answer, "
    "and nothing else."
)

SELF_ASSESS_INSTRUCTION = (
    "Reply with a single integer from 0 (very poor) to 10 (excellent): the score you expect "
    "the judges to give your answer, and nothing else."
)

CATEGORY_GUIDANCE: dict[str, str] = {
    "meta": (
        "A [meta] question is about this tournament itself, about the strategy of playing "
        "it, or about the model that answers it (what it knows, how it reasons, where it "
        "fails); its answer can still be judged for correctness, completeness and clarity."
    ),
}
"""What a category with a meaning of its own asks for, said in the generation prompt when
the config lists it (matched without regard to case)."""

PAIRWISE_INSTRUCTION = (
    "Reply with one verdict and nothing else: A>>B (A is much better), A>B (A is better), "
    "A=B (a tie), B>A (B is better) or B>>A (B is much better)."
)
_ANSWER_START = "[The Start of Assistant {label}'s Answer{author}]"
_ANSWER_END = "[The End of Assistant {label}'s Answer]"

RATIONALE_INSTRUCTION = (
    "In one or two sentences, say why you gave this score. Reply with the sentences only."
)

_GENERATE_MARK = re.compile(r"Write exactly (\d+) questions as a numbered list")
_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def generate_instruction(
    *, n: int, categories: tuple[str, ...], tricks: dict[int, str] | None = None
) -> str:
    """The output instruction of the generation prompt; with trick slots (position -> kind,
    :mod:`pdbench.arena.tricks`), what is asked of them."""
    bracketed = ", ".join(f"[{c}]" for c in categories)
    guidance = [
        CATEGORY_GUIDANCE[c.casefold()] for c in categories if c.casefold() in CATEGORY_GUIDANCE
    ]
    return " ".join(
        [
            _GENERATE_LEAD.format(n=n),
            _GENERATE_FORMAT.format(categories=bracketed, first=categories[0]),
            *guidance,
            *([trick_instruction(tricks)] if tricks else []),
        ]
    )


def phase_of_prompt(prompt: str) -> Phase | Literal["rationale", "pairwise"] | None:
    """Which phase rendered ``prompt`` (from its output instruction), or None."""
    if RATIONALE_INSTRUCTION in prompt:
        return "rationale"
    if PAIRWISE_INSTRUCTION in prompt:
        return "pairwise"
    if SELF_ASSESS_INSTRUCTION in prompt:
        return "self_assess"
    if JUDGE_INSTRUCTION in prompt:
        return "judge"
    if RATE_INSTRUCTION in prompt:
        return "rate"
    if _GENERATE_MARK.search(prompt):
        return "generate"
    if ANSWER_INSTRUCTION in prompt:
        return "answer"
    return None


def phase_template_problem(text: str, *, phase: Phase) -> str | None:
    """Why ``text`` is not a usable ``phase`` template (every placeholder of the phase is
    required), or None."""
    return template_problem(text, PLACEHOLDERS[phase], required=PLACEHOLDERS[phase])


@dataclass(frozen=True, slots=True)
class ArenaTemplates:
    """The texts of the five template files."""

    generate: str
    rate: str
    answer: str
    judge: str
    self_assess: str

    @classmethod
    def from_files(cls, *, root: Path, paths: dict[Phase, str]) -> ArenaTemplates:
        """Read the five files (``paths`` relative to ``root``)."""
        texts: dict[str, str] = {
            phase: (root / paths[phase]).read_text(encoding="utf-8") for phase in PHASES
        }
        return cls(**texts)


def _tidy(text: str) -> str:
    return _BLANK_RUNS.sub("\n\n", text).strip()


def render_generate(
    templates: ArenaTemplates,
    *,
    n: int,
    categories: tuple[str, ...],
    tricks: dict[int, str] | None = None,
) -> str:
    """The generation prompt: ``n`` questions across ``categories``, the positions of
    ``tricks`` (position -> kind) trick questions with a note."""
    return _tidy(
        templates.generate.format(
            n=n,
            categories=", ".join(categories),
            output_instruction=generate_instruction(n=n, categories=categories, tricks=tricks),
        )
    )


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick question's kind and its author's note (None when the author wrote none), as
    raters and judges are shown them."""

    kind: str
    note: str | None


def render_rate(templates: ArenaTemplates, *, question: str, trick: Trick | None = None) -> str:
    """The rating prompt of one question (no author, no id); a trick's kind and note come
    before the instruction as a rubric."""
    instruction = RATE_INSTRUCTION
    if trick is not None:
        instruction = f"{rate_rubric(trick.kind, trick.note)}\n\n{RATE_INSTRUCTION}"
    return _tidy(templates.rate.format(question=question, output_instruction=instruction))


def render_answer(templates: ArenaTemplates, *, question: str) -> str:
    """The answering prompt of one question (no author, no id)."""
    return _tidy(templates.answer.format(question=question, output_instruction=ANSWER_INSTRUCTION))


def render_judge(
    templates: ArenaTemplates, *, question: str, answer: str, trick: Trick | None = None
) -> str:
    """The judging prompt: the question and one answer (no author, no answerer, no id); for a
    trick question, its kind and note before the instruction as a rubric."""
    shown = answer.strip() or "(no answer)"
    instruction = JUDGE_INSTRUCTION
    if trick is not None:
        instruction = f"{judge_rubric(trick.kind, trick.note)}\n\n{JUDGE_INSTRUCTION}"
    return _tidy(
        templates.judge.format(question=question, answer=shown, output_instruction=instruction)
    )


def render_self_assess(templates: ArenaTemplates, *, question: str, answer: str) -> str:
    """The self-assessment prompt: the question and the player's own answer (no id)."""
    return _tidy(
        templates.self_assess.format(
            question=question, answer=answer.strip(), output_instruction=SELF_ASSESS_INSTRUCTION
        )
    )


def answer_block(label: str, answer: str, *, author: str | None = None) -> str:
    """An answer as a pairwise judge is shown it, between MT-Bench's and Arena-Hard-Auto's
    markers (``[The Start of Assistant A's Answer]``); with ``author`` (the name arm), the
    start marker names it."""
    shown = answer.strip() or "(no answer)"
    by = f", written by {author}" if author else ""
    return "\n".join(
        [_ANSWER_START.format(label=label, author=by), shown, _ANSWER_END.format(label=label)]
    )


def render_pairwise(
    template: str,
    *,
    question: str,
    first: str,
    second: str,
    authors: tuple[str, str] | None = None,
) -> str:
    """The pairwise judging prompt: the question and two answers as A (``first``) and B
    (``second``), blind, or with ``authors`` (the name arm) labelled with their authors."""
    first_author, second_author = authors if authors is not None else (None, None)
    return _tidy(
        template.format(
            question=question,
            first_answer=answer_block("A", first, author=first_author),
            second_answer=answer_block("B", second, author=second_author),
            output_instruction=PAIRWISE_INSTRUCTION,
        )
    )


def render_rationale(judge_prompt: str, *, score: int) -> str:
    """The follow-up after an extreme judgement: the judging prompt, the score the judge
    gave, and the request for one or two sentences of rationale."""
    return f"{judge_prompt}\n\nYou gave this answer a score of {score}. {RATIONALE_INSTRUCTION}"


def correction_prompt(prompt: str, *, problem: str) -> str:
    """The re-prompt after an unusable reply: what was wrong, then the same prompt."""
    return f"{problem}\n\n{prompt}"
