"""Reading a PD move (``C`` or ``D``) out of a model's reply: every rule, in one place.

A reply is read under an *output format* (the agent's ``output_format``); the first rule of
the format that applies gives the move and its name (see :mod:`pdbench.replies`). A reply no
rule reads is invalid, and nothing is ever guessed into a move. Formats and their rules, in
order:

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

With neutral labels (:mod:`pdbench.pd.labels`, e.g. ``J``/``F``) the same rules read the
labels instead of ``C``/``D`` (any case): ``token``, ``json``, ``action_line``, and for
``lenient`` also ``decorated`` and ``labelled``; the rules that read the words cooperate and
defect do not apply, since the prompt never uses them.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from pdbench.pd.labels import DEFAULT_LABELS, ActionLabels
from pdbench.replies import INVALID, Extraction, fenced, labelled_values, strip_decoration

__all__ = ["ACTION_FORMATS", "ActionFormat", "extract_action"]

ActionFormat = Literal["token", "json", "lenient", "reasoning"]
ACTION_FORMATS: tuple[str, ...] = ("token", "json", "lenient", "reasoning")

_ACTION_LABEL = re.compile(
    r"(?:final\s+answer|answer|action|move|choice|decision)\W*\s*(?::|=|\bis\b)\s*(.*)$",
    re.IGNORECASE,
)
_ACTION_LINE = re.compile(r"^[\s*_>#-]*action[\s*_]*:[\s*_`\"']*([CDcd])[\s*_`\"'.!]*$", re.I)
_MOVE_TOKEN = re.compile(r"(?<![A-Za-z0-9])([CD])(?![A-Za-z0-9])")
_COOPERATE = re.compile(r"\bcooperat\w*", re.IGNORECASE)
_DEFECT = re.compile(r"\bdefect\w*", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never|no|without|instead|rather)\b|n't\b", re.IGNORECASE)


def extract_action(
    reply: str, *, output_format: ActionFormat = "token", labels: ActionLabels = DEFAULT_LABELS
) -> Extraction[str]:
    """The move (``"C"``/``"D"``) in ``reply`` under ``output_format`` (module docstring)."""
    if labels.neutral:
        return _labelled_action(reply, output_format=output_format, labels=labels)
    if output_format == "token":
        return _token(reply)
    if output_format == "json":
        return _json_action(reply)
    if output_format == "lenient":
        for rule in (_token, _json_action, _fenced_json, _decorated_action, _labelled, _words):
            found = rule(reply)
            if found.valid:
                return found
        return INVALID
    if output_format == "reasoning":
        return _action_line(reply)
    raise ValueError(f"unknown output format {output_format!r}")


def _move(token: str, rule: str) -> Extraction[str]:
    upper = token.strip().upper()
    return Extraction(upper, rule) if upper in ("C", "D") else INVALID


def _token(reply: str) -> Extraction[str]:
    return _move(reply, "token")


def _json_action_text(reply: str) -> str | None:
    """The action of a reply that is exactly ``{"action": "<text>"}``, unpadded; else None."""
    try:
        value = json.loads(reply.strip())
    except ValueError:
        return None
    if not isinstance(value, dict) or set(value) != {"action"}:
        return None
    action = value["action"]
    if not isinstance(action, str) or action != action.strip():
        return None
    return action


def _json_action(reply: str) -> Extraction[str]:
    action = _json_action_text(reply)
    return INVALID if action is None else _move(action, "json")


def _fenced_json(reply: str) -> Extraction[str]:
    body = fenced(reply)
    return _json_action(body) if body is not None else INVALID


def _decorated_action(reply: str) -> Extraction[str]:
    return _move(strip_decoration(reply), "decorated")


def _named_moves(text: str) -> set[str]:
    moves = set(_MOVE_TOKEN.findall(text))
    if _COOPERATE.search(text):
        moves.add("C")
    if _DEFECT.search(text):
        moves.add("D")
    return moves


def _labelled(reply: str) -> Extraction[str]:
    for value in labelled_values(reply, label=_ACTION_LABEL):
        found = _move(value, "labelled")
        if found.valid:
            return found
        moves = _named_moves(value)
        if len(moves) == 1 and not _NEGATION.search(value):
            return Extraction(moves.pop(), "labelled")
    return INVALID


def _words(reply: str) -> Extraction[str]:
    moves = _named_moves(reply)
    if len(moves) != 1 or _NEGATION.search(reply):
        return INVALID
    return Extraction(moves.pop(), "words")


def _action_line(reply: str) -> Extraction[str]:
    for line in reversed(reply.strip().splitlines()):
        if not line.strip():
            continue
        match = _ACTION_LINE.match(line)
        if match:
            return _move(match.group(1), "action_line")
    return INVALID


_LABEL_LINE = re.compile(r"^[\s*_>#-]*action[\s*_]*:[\s*_`\"']*(.*?)[\s*_`\"'.!]*$", re.I)


def _labelled_action(
    reply: str, *, output_format: ActionFormat, labels: ActionLabels
) -> Extraction[str]:
    """The rules of ``output_format`` over neutral ``labels`` (module docstring)."""

    def read(text: str, rule: str) -> Extraction[str]:
        action = labels.action(text)
        return Extraction(action, rule) if action is not None else INVALID

    def json_label(text: str) -> Extraction[str]:
        action = _json_action_text(text)
        return INVALID if action is None else read(action, "json")

    if output_format == "token":
        return read(reply, "token")
    if output_format == "json":
        return json_label(reply)
    if output_format == "reasoning":
        for line in reversed(reply.strip().splitlines()):
            if line.strip():
                match = _LABEL_LINE.match(line)
                return read(match.group(1), "action_line") if match else INVALID
        return INVALID
    body = fenced(reply)
    for found in (
        read(reply, "token"),
        json_label(reply),
        json_label(body) if body is not None else INVALID,
        read(strip_decoration(reply), "decorated"),
        *(read(value, "labelled") for value in labelled_values(reply, label=_ACTION_LABEL)),
    ):
        if found.valid:
            return found
    return INVALID
