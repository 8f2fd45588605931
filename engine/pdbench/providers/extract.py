"""Reading a move or a score out of a model's reply: every rule, in one place.

A reply is read under a *format*; the first rule of the format that applies gives the value and
its name, which is recorded next to the raw reply (``parse_rule`` in ``calls.jsonl``) so that a
metric can be re-derived under another format. A reply no rule reads is invalid: its value is
None, and nothing is ever guessed into a move or a score.

Moves (the PD), formats and their rules in order:

``token`` (strict, the default)
    ``token``: the whole reply, trimmed, is ``C`` or ``D`` (either case).
``json`` (strict)
    ``json``: the whole reply, trimmed, is a JSON object with exactly one key ``"action"``,
    whose value is ``"C"`` or ``"D"`` (either case).
``lenient``
    ``token``, then ``json`` (also inside a Markdown code fence), then
    ``decorated``: the reply is C or D once Markdown emphasis, quotes, brackets and trailing
    punctuation are stripped (``**C**``, ``C.``, ``"d"``, ``(C)``);
    ``labelled``: the last line that labels a move (``final answer``, ``answer``, ``action``,
    ``move``, ``choice``, ``decision``, then ``:``, ``=`` or ``is``) followed by ``C``/``D`` or
    a form of cooperate/defect (``Final answer: C``, ``**Action:** D``, ``My move is defect``);
    ``words``: the reply names exactly one move, counting standalone capital ``C``/``D`` and
    every form of *cooperate* / *defect* (``I will cooperate.``, ``I defect``, ``The answer is
    "C to cooperate"``), and holds no negation (``not``, ``n't``, ``never``, ``no``,
    ``without``, ``instead``, ``rather``). A reply naming both moves ("You can choose to
    cooperate or defect.") or negating one ("I will not cooperate") is invalid.
``reasoning``
    The prompt invites reasoning and asks for a final line ``ACTION: C`` or ``ACTION: D``.
    ``action_line``: the last line of the reply that is ``ACTION: C|D`` (label in any case,
    Markdown emphasis allowed). The reasoning above it names both moves, so no other rule
    applies.

Scores (the arena), integers 0..10, formats and rules in order:

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

import json
import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ACTION_FORMATS",
    "SCORE_FORMATS",
    "ActionFormat",
    "Extraction",
    "ScoreFormat",
    "extract_action",
    "extract_score",
]

ActionFormat = Literal["token", "json", "lenient", "reasoning"]
ScoreFormat = Literal["strict", "lenient"]
ACTION_FORMATS: tuple[str, ...] = ("token", "json", "lenient", "reasoning")
SCORE_FORMATS: tuple[str, ...] = ("strict", "lenient")


@dataclass(frozen=True, slots=True)
class Extraction[T]:
    """What a reply held: the value and the rule that read it, or (None, None)."""

    value: T | None = None
    rule: str | None = None

    @property
    def valid(self) -> bool:
        return self.value is not None


_INVALID: Extraction = Extraction()

# decoration around a lone token: emphasis, code, quotes, brackets, trailing punctuation
_DECORATION = "*_`'\"“”‘’()[]{}<> \t\r\n"
_TRAILING = ".!;:,"
_FENCE = re.compile(r"^\s*```[A-Za-z]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)
_ACTION_LABEL = re.compile(
    r"(?:final\s+answer|answer|action|move|choice|decision)\W*\s*(?::|=|\bis\b)\s*(.*)$",
    re.IGNORECASE,
)
_ACTION_LINE = re.compile(r"^[\s*_>#-]*action[\s*_]*:[\s*_`\"']*([CDcd])[\s*_`\"'.!]*$", re.I)
_MOVE_TOKEN = re.compile(r"(?<![A-Za-z0-9])([CD])(?![A-Za-z0-9])")
_COOPERATE = re.compile(r"\bcooperat\w*", re.IGNORECASE)
_DEFECT = re.compile(r"\bdefect\w*", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never|no|without|instead|rather)\b|n't\b", re.IGNORECASE)

_SCORE_LABEL = re.compile(
    r"(?:score|rating|grade|final\s+answer|answer)\W*\s*(?::|=|\bis\b)\s*(.*)$", re.IGNORECASE
)
_INTEGER = re.compile(r"^(\d{1,3})$")
_OUT_OF_TEN = re.compile(r"^(\d{1,3})\s*(?:/|out\s+of)\s*10$", re.IGNORECASE)
_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")


def extract_action(reply: str, *, output_format: ActionFormat = "token") -> Extraction[str]:
    """The move (``"C"``/``"D"``) in ``reply`` under ``output_format`` (module docstring)."""
    if output_format == "token":
        return _token(reply)
    if output_format == "json":
        return _json_action(reply)
    if output_format == "lenient":
        for rule in (_token, _json_action, _fenced_json, _decorated_action, _labelled, _words):
            found = rule(reply)
            if found.valid:
                return found
        return _INVALID
    if output_format == "reasoning":
        return _action_line(reply)
    raise ValueError(f"unknown output format {output_format!r}")


def extract_score(reply: str, *, score_format: ScoreFormat = "strict") -> Extraction[int]:
    """The score (an integer 0..10) in ``reply`` under ``score_format`` (module docstring)."""
    if score_format == "strict":
        return _score(reply.strip(), rule="integer")
    if score_format == "lenient":
        for rule in (_integer_score, _decorated_score, _out_of_ten, _labelled_score, _single):
            found = rule(reply)
            if found.valid:
                return found
        return _INVALID
    raise ValueError(f"unknown score format {score_format!r}")


# --- moves -------------------------------------------------------------------------------


def _move(token: str, rule: str) -> Extraction[str]:
    upper = token.strip().upper()
    return Extraction(upper, rule) if upper in ("C", "D") else _INVALID


def _token(reply: str) -> Extraction[str]:
    return _move(reply, "token")


def _json_action(reply: str, *, rule: str = "json") -> Extraction[str]:
    try:
        value = json.loads(reply.strip())
    except ValueError:
        return _INVALID
    if not isinstance(value, dict) or set(value) != {"action"}:
        return _INVALID
    action = value["action"]
    if not isinstance(action, str) or action != action.strip():
        return _INVALID
    return _move(action, rule)


def _fenced_json(reply: str) -> Extraction[str]:
    fenced = _FENCE.match(reply)
    return _json_action(fenced.group(1), rule="json") if fenced else _INVALID


def _strip_decoration(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        text = text.strip(_DECORATION).rstrip(_TRAILING)
    return text


def _decorated_action(reply: str) -> Extraction[str]:
    return _move(_strip_decoration(reply), "decorated")


def _named_moves(text: str) -> set[str]:
    moves = set(_MOVE_TOKEN.findall(text))
    if _COOPERATE.search(text):
        moves.add("C")
    if _DEFECT.search(text):
        moves.add("D")
    return moves


def _labelled(reply: str) -> Extraction[str]:
    for line in reversed(reply.splitlines()):
        label = _ACTION_LABEL.search(line)
        if label is None:
            continue
        value = _strip_decoration(label.group(1))
        found = _move(value, "labelled")
        if found.valid:
            return found
        moves = _named_moves(value)
        if len(moves) == 1 and not _NEGATION.search(value):
            return Extraction(moves.pop(), "labelled")
    return _INVALID


def _words(reply: str) -> Extraction[str]:
    moves = _named_moves(reply)
    if len(moves) != 1 or _NEGATION.search(reply):
        return _INVALID
    return Extraction(moves.pop(), "words")


def _action_line(reply: str) -> Extraction[str]:
    for line in reversed(reply.strip().splitlines()):
        if not line.strip():
            continue
        match = _ACTION_LINE.match(line)
        if match:
            return _move(match.group(1), "action_line")
    return _INVALID


# --- scores ------------------------------------------------------------------------------


def _score(text: str, *, rule: str) -> Extraction[int]:
    match = _INTEGER.match(text)
    if match is None:
        return _INVALID
    score = int(match.group(1))
    return Extraction(score, rule) if 0 <= score <= 10 else _INVALID


def _integer_score(reply: str) -> Extraction[int]:
    return _score(reply.strip(), rule="integer")


def _decorated_score(reply: str) -> Extraction[int]:
    return _score(_strip_decoration(reply), rule="decorated")


def _ten(text: str, *, rule: str) -> Extraction[int]:
    match = _OUT_OF_TEN.match(_strip_decoration(text))
    return _score(match.group(1), rule=rule) if match else _INVALID


def _out_of_ten(reply: str) -> Extraction[int]:
    return _ten(reply, rule="out_of_ten")


def _labelled_score(reply: str) -> Extraction[int]:
    for line in reversed(reply.splitlines()):
        label = _SCORE_LABEL.search(line)
        if label is None:
            continue
        value = _strip_decoration(label.group(1))
        found = _score(value, rule="labelled")
        if not found.valid:
            found = _ten(value, rule="labelled")
        if found.valid:
            return found
    return _INVALID


def _single(reply: str) -> Extraction[int]:
    if "/" in reply or re.search(r"out\s+of", reply, re.IGNORECASE):
        return _INVALID
    numbers = _NUMBER.findall(reply)
    if len(numbers) != 1:
        return _INVALID
    return _score(numbers[0], rule="single_number")
