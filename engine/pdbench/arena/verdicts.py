"""Reading a pairwise verdict out of a judge's reply: every rule.

A verdict is one of ``A>>B``, ``A>B``, ``A=B``, ``B>A``, ``B>>A`` (A the answer shown
first). A reply is read under the config's ``score_format``, like a score
(:mod:`pdbench.arena.scores`): the first rule of the format that applies gives the verdict
and its name, recorded as ``parse_rule`` in ``calls.jsonl`` (counted by
``parse_rules.parquet``). A reply no rule reads is invalid and re-asked; nothing is guessed.

``strict`` (the default)
    ``verdict``: the whole reply, trimmed, is a verdict.
``lenient``
    ``verdict``, then ``decorated``: the reply is a verdict once emphasis, quotes, brackets
    (Arena-Hard-Auto's ``[[A>B]]``), trailing punctuation and the spaces inside it are
    stripped (``**A > B**``); ``labelled``: the last line that labels a verdict
    (``verdict``, ``final verdict``, ``answer``, then ``:``, ``=`` or ``is``) followed by
    one (``My final verdict is: [[B>A]]``); ``single_verdict``: the reply names exactly one
    distinct verdict (``I think A>B here.``).
"""

from __future__ import annotations

import re
from functools import partial
from typing import get_args

from pdbench.arena.records import Verdict
from pdbench.arena.scores import ScoreFormat
from pdbench.replies import INVALID, Extraction, first_valid, labelled_values, strip_decoration

__all__ = ["VERDICTS", "extract_verdict"]

VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
"""The five levels, A's strongest preference first."""

_LABEL = re.compile(r"(?:final\s+verdict|verdict|answer)\W*\s*(?::|=|\bis\b\s*:?)\s*(.*)$", re.I)
_TOKEN = re.compile(r"(?<![\w<>=])([AB])\s*(>>|>|=)\s*([AB])(?![\w<>=])")


def extract_verdict(reply: str, *, score_format: ScoreFormat = "strict") -> Extraction[Verdict]:
    """The verdict in ``reply`` under ``score_format`` (see the module docstring)."""
    return first_valid(
        reply,
        score_format,
        strict=partial(_exact, rule="verdict"),
        lenient=(_whole, _decorated, _labelled, _single),
    )


def _exact(text: str, *, rule: str) -> Extraction[Verdict]:
    return Extraction(text, rule) if text in VERDICTS else INVALID  # type: ignore[arg-type]


def _whole(reply: str) -> Extraction[Verdict]:
    return _exact(reply.strip(), rule="verdict")


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", strip_decoration(text))


def _decorated(reply: str) -> Extraction[Verdict]:
    return _exact(_compact(reply), rule="decorated")


def _labelled(reply: str) -> Extraction[Verdict]:
    for value in labelled_values(reply, label=_LABEL):
        found = _exact(_compact(value), rule="labelled")
        if found.valid:
            return found
    return INVALID


def _single(reply: str) -> Extraction[Verdict]:
    found = {"".join(match) for match in _TOKEN.findall(reply)}
    if len(found) != 1:
        return INVALID
    return _exact(found.pop(), rule="single_verdict")
