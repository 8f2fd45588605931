"""Reading the arena's question lists: numbered, categorised lines.

A question line is ``<number>. [<category>] <question>`` (or ``<number>)``), the category one
of the configured ones (any case; stored in the config's spelling). Any other line (a preamble,
a blank line, a line without a known category) is skipped. Duplicates, compared on their
normalised text (case, punctuation and spacing ignored), are dropped, the first one kept.

Scores are read by :func:`pdbench.arena.scores.extract_score`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["ParsedQuestion", "QuestionList", "normalise_question", "parse_questions"]

_LINE = re.compile(r"^\s*\d+\s*[.)]\s*\[([^\[\]]+)\]\s*(.+?)\s*$")
_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class ParsedQuestion:
    """One usable question line."""

    category: str
    text: str
    raw_line: str


@dataclass(frozen=True, slots=True)
class QuestionList:
    """What a generation reply held."""

    questions: tuple[ParsedQuestion, ...]
    """Usable, de-duplicated, in reply order."""
    skipped: tuple[str, ...] = field(default=())
    """Non-blank lines that were not usable questions (unnumbered, unknown category)."""
    duplicates: tuple[str, ...] = field(default=())
    """Lines dropped as duplicates of an earlier question."""


def normalise_question(text: str) -> str:
    """The text duplicates are compared on: case-folded words, punctuation and spacing gone."""
    return " ".join(_NON_WORD.sub(" ", text.casefold()).split())


def parse_questions(reply: str, *, categories: Sequence[str]) -> QuestionList:
    """The questions of a generation reply (see the module docstring)."""
    known = {c.casefold(): c for c in categories}
    questions: list[ParsedQuestion] = []
    skipped: list[str] = []
    duplicates: list[str] = []
    seen: set[str] = set()
    for line in reply.splitlines():
        if not line.strip():
            continue
        match = _LINE.match(line)
        category = known.get(match.group(1).strip().casefold()) if match else None
        if match is None or category is None:
            skipped.append(line)
            continue
        text = match.group(2)
        key = normalise_question(text)
        if not key:
            skipped.append(line)
            continue
        if key in seen:
            duplicates.append(line)
            continue
        seen.add(key)
        questions.append(ParsedQuestion(category=category, text=text, raw_line=line))
    return QuestionList(
        questions=tuple(questions), skipped=tuple(skipped), duplicates=tuple(duplicates)
    )
