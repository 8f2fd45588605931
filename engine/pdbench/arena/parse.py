"""Reading the arena's question lists: numbered, categorised lines.

A question line is ``<number>. [<category>] <question>`` (or ``<number>)``; a number written
twice, ``1. 1. [math] ...``, as small models do, counts once), the category one
of the configured ones (any case; stored in the config's spelling). Any other line (a preamble,
a blank line, a line without a known category) is skipped. Duplicates, compared on their
normalised text (case, punctuation and spacing ignored), are dropped, the first one kept.

A line that begins with ``Note:`` (any case, after an optional ``-`` or ``*`` bullet and
``**`` emphasis) right after a question line is that question's note: the author's private
note of a trick question's correct handling (:mod:`pdbench.arena.tricks`). A note written on
the question's own line, after the question (``... (Note: ...)``, as small models write it), is
that question's note too, and is cut from the question's text: answerers never see it. A
second note, or a note after anything but a question, is skipped; whether a question needed
one is the reader's business (:func:`read_questions`).

Scores are read by :func:`pdbench.arena.scores.extract_score`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from pdbench.arena.tasks import Reading

__all__ = [
    "ParsedQuestion",
    "QuestionList",
    "normalise_question",
    "parse_questions",
    "read_questions",
]

_LINE = re.compile(r"^\s*(?:\d+\s*[.)]\s*)+\[([^\[\]]+)\]\s*(.+?)\s*$")
_NOTE = re.compile(r"^\s*(?:[-*]\s*)?\**\s*note\s*\**\s*:\s*\**\s*(.*?)\s*$", re.IGNORECASE)
_INLINE_NOTE = re.compile(
    r"\s*[(\[]?\s*\**\bnote\s*\**\s*:\s*\**\s*(.*?)\s*[)\]]?\s*$", re.IGNORECASE
)
_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class ParsedQuestion:
    """One usable question line."""

    category: str
    text: str
    raw_line: str
    note: str | None = None
    """The ``Note:`` line right after it, without the ``Note:``; None when there was none."""


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
    noted: int | None = None
    """Index in ``questions`` of the question a note line would belong to."""
    for line in reply.splitlines():
        if not line.strip():
            continue
        note = _NOTE.match(line)
        if note is not None:
            if noted is None or not note.group(1):
                skipped.append(line)
            else:
                questions[noted] = replace(questions[noted], note=note.group(1))
            noted = None
            continue
        noted = None
        match = _LINE.match(line)
        category = known.get(match.group(1).strip().casefold()) if match else None
        if match is None or category is None:
            skipped.append(line)
            continue
        text, inline_note = _split_note(match.group(2))
        key = normalise_question(text)
        if not key:
            skipped.append(line)
            continue
        if key in seen:
            duplicates.append(line)
            continue
        seen.add(key)
        questions.append(
            ParsedQuestion(category=category, text=text, raw_line=line, note=inline_note)
        )
        noted = len(questions) - 1
    return QuestionList(
        questions=tuple(questions), skipped=tuple(skipped), duplicates=tuple(duplicates)
    )


def _split_note(text: str) -> tuple[str, str | None]:
    """A question line's text and the note written after the question on the same line
    (None when there is none, or when nothing precedes it)."""
    found = _INLINE_NOTE.search(text)
    if found is None or found.start() == 0 or not found.group(1):
        return text, None
    return text[: found.start()].rstrip(), found.group(1)


def read_questions(
    reply: str, *, n: int, categories: Sequence[str], tricks: Sequence[int] = ()
) -> Reading:
    """The reader of a generation reply: at least ``n`` usable questions, and a note after
    each question at a trick position (``tricks``, 1-based); ranked by usable questions less
    missing notes."""
    parsed = parse_questions(reply, categories=categories)
    found = len(parsed.questions)
    unnoted = [p for p in tricks if p <= found and parsed.questions[p - 1].note is None]
    rank = found - len(unnoted)
    if found >= n and not unnoted:
        return Reading(value=parsed, rank=rank, rule="numbered_list")
    listed = ", ".join(f"[{c}]" for c in categories)
    problems = []
    if found < n:
        problems.append(
            f"Your previous reply had {found} usable questions; {n} are needed, each on its "
            f"own numbered line that begins with its category in square brackets ({listed}), "
            "with no question repeated."
        )
    if unnoted:
        which = ", ".join(str(p) for p in unnoted)
        problems.append(
            f"Trick question {which} had no note: write one line that begins with "
            '"Note:" right after each trick question.'
        )
    return Reading(value=parsed, problem=" ".join(problems), rank=rank)
