"""What every game shares when it reads a value out of a model's reply.

A game reads a reply under one of its *formats*: the first rule of the format that applies
gives the value and the rule's name, which is recorded next to the raw reply (``parse_rule``
in ``calls.jsonl``) so that a metric can be re-derived under another format. A reply no rule
reads is invalid: its value is None, and nothing is ever guessed into a value.

The rules themselves belong to the games (the PD's moves in :mod:`pdbench.pd.moves`, the
arena's scores in :mod:`pdbench.arena.scores`); this module holds the pieces they share:
the :class:`Extraction` a rule returns, stripping the decoration models put around a lone
token, the body of a Markdown code fence and the values of labelled lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "INVALID",
    "Extraction",
    "fenced",
    "first_valid",
    "labelled_values",
    "strip_decoration",
]


@dataclass(frozen=True, slots=True)
class Extraction[T]:
    """What a reply held: the value and the rule that read it, or (None, None)."""

    value: T | None = None
    rule: str | None = None

    @property
    def valid(self) -> bool:
        return self.value is not None


INVALID: Extraction[Any] = Extraction()
"""What a rule returns for a reply it does not read."""

# decoration around a lone token: emphasis, code, quotes, brackets, trailing punctuation
_DECORATION = "*_`'\"“”‘’()[]{}<> \t\r\n"
_TRAILING = ".!;:,"
_FENCE = re.compile(r"^\s*```[A-Za-z]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def strip_decoration(text: str) -> str:
    """``text`` without the Markdown emphasis, code ticks, quotes, brackets and trailing
    punctuation around it (``**C**``, ``"d"``, ``(C)``, ``7.``), stripped until none is left."""
    previous = None
    while previous != text:
        previous = text
        text = text.strip(_DECORATION).rstrip(_TRAILING)
    return text


def fenced(reply: str) -> str | None:
    """The body of ``reply`` when the whole reply is one Markdown code fence, else None."""
    match = _FENCE.match(reply)
    return match.group(1) if match else None


def labelled_values(reply: str, *, label: re.Pattern[str]) -> Iterator[str]:
    """The values of the lines ``label`` finds in ``reply``, last line first, decoration
    stripped; ``label``'s first group is the value (e.g. what follows ``Score:``)."""
    for line in reversed(reply.splitlines()):
        found = label.search(line)
        if found is not None:
            yield strip_decoration(found.group(1))


def first_valid[T](
    reply: str,
    score_format: str,
    *,
    strict: Callable[[str], Extraction[T]],
    lenient: Sequence[Callable[[str], Extraction[T]]],
) -> Extraction[T]:
    """What ``reply`` holds under ``score_format``: ``strict`` reads the whole (stripped)
    reply by one rule; ``lenient`` tries ``lenient``'s rules in order and keeps the first
    valid extraction. INVALID when none holds."""
    if score_format == "strict":
        return strict(reply.strip())
    if score_format == "lenient":
        for rule in lenient:
            found = rule(reply)
            if found.valid:
                return found
        return INVALID
    raise ValueError(f"unknown score format {score_format!r}")
