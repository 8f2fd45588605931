"""Reading an arena score (an integer 0..10) out of a rating or a judgement: every rule.

A reply is read under the config's ``score_format``; the first rule of the format that
applies gives the score and its name (see :mod:`pdbench.replies`). A reply no rule reads is
invalid, and nothing is ever guessed into a score. Formats and their rules, in order:

``strict`` (the default)
    ``integer``: the whole reply, trimmed, is an integer 0..10.
``lenient``
    ``integer``, then ``decorated``: the reply is such an integer once emphasis, quotes and
    trailing punctuation are stripped (``7.``, ``**8**``); ``out_of_ten``: the reply is
    ``N/10`` or ``N out of 10`` (decorated or not); ``labelled``: the last line that labels a
    score (``score``, ``rating``, ``grade``, ``final answer``, ``answer``, then ``:``, ``=`` or
    ``is``) followed by an integer, optionally ``/10`` (``Score: 7``, ``Rating: 8/10``);
    ``single_number``: the reply holds exactly one number, an integer, and no ``/`` or
    ``out of`` (``I would rate this a 7.``).

A score outside 0..10 (``11``, ``12/10``) or not an integer (``7.5``) is invalid under every
rule.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Literal

from pdbench.replies import INVALID, Extraction, first_valid, labelled_values, strip_decoration

__all__ = ["SCORE_FORMATS", "ScoreFormat", "extract_score"]

ScoreFormat = Literal["strict", "lenient"]
SCORE_FORMATS: tuple[str, ...] = ("strict", "lenient")

_SCORE_LABEL = re.compile(
    r"(?:score|rating|grade|final\s+answer|answer)\W*\s*(?::|=|\bis\b)\s*(.*)$", re.IGNORECASE
)
_INTEGER = re.compile(r"^(\d{1,3})$")
_OUT_OF_TEN = re.compile(r"^(\d{1,3})\s*(?:/|out\s+of)\s*10$", re.IGNORECASE)
_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")


def extract_score(reply: str, *, score_format: ScoreFormat = "strict") -> Extraction[int]:
    """The score (an integer 0..10) in ``reply`` under ``score_format`` (module docstring)."""
    return first_valid(
        reply,
        score_format,
        strict=partial(_score, rule="integer"),
        lenient=(_integer_score, _decorated_score, _out_of_ten, _labelled_score, _single),
    )


def _score(text: str, *, rule: str) -> Extraction[int]:
    match = _INTEGER.match(text)
    if match is None:
        return INVALID
    score = int(match.group(1))
    return Extraction(score, rule) if 0 <= score <= 10 else INVALID


def _integer_score(reply: str) -> Extraction[int]:
    return _score(reply.strip(), rule="integer")


def _decorated_score(reply: str) -> Extraction[int]:
    return _score(strip_decoration(reply), rule="decorated")


def _ten(text: str, *, rule: str) -> Extraction[int]:
    match = _OUT_OF_TEN.match(strip_decoration(text))
    return _score(match.group(1), rule=rule) if match else INVALID


def _out_of_ten(reply: str) -> Extraction[int]:
    return _ten(reply, rule="out_of_ten")


def _labelled_score(reply: str) -> Extraction[int]:
    for value in labelled_values(reply, label=_SCORE_LABEL):
        found = _score(value, rule="labelled")
        if not found.valid:
            found = _ten(value, rule="labelled")
        if found.valid:
            return found
    return INVALID


def _single(reply: str) -> Extraction[int]:
    if "/" in reply or re.search(r"out\s+of", reply, re.IGNORECASE):
        return INVALID
    numbers = _NUMBER.findall(reply)
    if len(numbers) != 1:
        return INVALID
    return _score(numbers[0], rule="single_number")
