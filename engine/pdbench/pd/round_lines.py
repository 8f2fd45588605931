"""The lines of one PD match: what they share, and the round lines of a policy-only match.

A round line holds the keys of :data:`ROUND_KEYS`, the fields of
:class:`~pdbench.pd.records.RoundRecord` in their order. Most never change within a
match (:class:`MatchFields`, and the valid/attempts/truncated of a policy).
:class:`RoundLineTemplate` serialises those once, with the same encoder as
:func:`pdbench.storage.jsonl.dumps_line`, and per round fills in only what changes: the
round index, the four actions with their two payoffs (one pre-serialised segment per
combination), the two running totals and the timestamp. The result is byte for byte the line
``dumps_line`` writes for the same record dict (the tests hold it to that): keys in the same
order, floats through ``float.__repr__`` as ``json`` does, strings escaped by the encoder.
Where the pieces are cut is worked out from :data:`ROUND_KEYS` when the module loads: a key
order the hot loop cannot fill fails there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import product
from typing import Any

from pdbench.pd.records import MatchRecord, RoundRecord
from pdbench.storage.jsonl import dumps_line
from pdbench.storage.schema import SCHEMA_VERSION, line_keys

__all__ = ["MATCH_KEYS", "OUTCOME_KEYS", "ROUND_KEYS", "MatchFields", "RoundLineTemplate"]

ROUND_KEYS: tuple[str, ...] = line_keys(RoundRecord)
"""The keys of a round line, in the order they are written (prompts and replies, stored on
request, follow them)."""
MATCH_KEYS: tuple[str, ...] = line_keys(MatchRecord)
"""The keys of a ``matches.jsonl`` line, in the order they are written."""
OUTCOME_KEYS = (
    "agent_a_intended_action",
    "agent_b_intended_action",
    "agent_a_action",
    "agent_b_action",
    "agent_a_payoff",
    "agent_b_payoff",
)
"""The keys a round's four actions decide; they follow each other in a round line."""
_ACTION_KEYS, _PAYOFF_KEYS = OUTCOME_KEYS[:4], OUTCOME_KEYS[4:]
_PER_ROUND = (
    "round_index",
    OUTCOME_KEYS,
    "agent_a_cum_payoff",
    "agent_b_cum_payoff",
    "timestamp_utc",
)
"""What a template fills in per round, in line order; the timestamp, last, ends the line."""


@dataclass(frozen=True, slots=True)
class MatchFields:
    """What every line of one match says alike: its round lines and its ``matches.jsonl``
    line."""

    run_id: str
    match_id: str
    condition: str
    replicate: int
    match_seed: int
    names: tuple[str, str]
    kinds: tuple[str, str]
    horizon_type: str
    fixed_n: int | None
    stop_prob: float | None

    def line_fields(self) -> dict[str, Any]:
        """These fields under the keys of the lines, the schema version with them."""
        return {
            "schema_version": SCHEMA_VERSION,
            "run_id": self.run_id,
            "match_id": self.match_id,
            "condition": self.condition,
            "replicate": self.replicate,
            "match_seed": self.match_seed,
            "agent_a_name": self.names[0],
            "agent_b_name": self.names[1],
            "agent_a_kind": self.kinds[0],
            "agent_b_kind": self.kinds[1],
            "horizon_type": self.horizon_type,
            "fixed_n": self.fixed_n,
            "stop_prob": self.stop_prob,
        }


def _fields(record: dict[str, Any]) -> str:
    """``"k":v,...`` of ``record`` exactly as the JSONL encoder writes them, no braces."""
    return dumps_line(record)[1:-2] if record else ""


def _layout(keys: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], str], ...]:
    """``keys`` cut at what a template fills in per round (:data:`_PER_ROUND`): for each,
    the keys fixed for the match before it, and the text that opens its value (none for the
    outcome segment, which brings its keys). Refuses keys in another order, or anything
    after the timestamp: the hot loop ends every line with it."""
    layout: list[tuple[tuple[str, ...], str]] = []
    fixed: list[str] = []
    slots = iter(_PER_ROUND)
    per_round = {"round_index", *OUTCOME_KEYS, *_PER_ROUND[2:]}
    position = 0
    while position < len(keys):
        key = keys[position]
        if key not in per_round:
            fixed.append(key)
            position += 1
            continue
        slot = next(slots, None)
        if slot is OUTCOME_KEYS and keys[position : position + len(OUTCOME_KEYS)] == slot:
            layout.append((tuple(fixed), ""))
            position += len(OUTCOME_KEYS)
        elif key == slot:
            quote = '"' if key == "timestamp_utc" else ""
            layout.append((tuple(fixed), f"{json.dumps(key)}:{quote}"))
            position += 1
        else:
            raise ValueError(f"a round line's {key!r} is not where the template fills it in")
        fixed = []
    if fixed or next(slots, None) is not None:
        raise ValueError("a round line does not end with its timestamp")
    return tuple(layout)


_LAYOUT = _layout(ROUND_KEYS)
_FIXED_KEYS = frozenset(key for keys, _ in _LAYOUT for key in keys)
"""The keys of a round line that hold the same value in every round of a match."""
_ACTION_SEGMENTS = {
    "".join(actions): _fields(dict(zip(_ACTION_KEYS, actions, strict=True))) + ","
    for actions in product("CD", repeat=4)
}
"""``intended_a + intended_b + action_a + action_b`` -> those four keys and values."""


def _pieces(fixed: dict[str, Any]) -> list[str]:
    """The text of a round line around what changes per round, from the values ``fixed``
    for the match: before the round index, the outcome segment, each running total and the
    timestamp (the line ends after it)."""
    pieces = []
    for opening, (keys, label) in zip(("{", ",", ",", ",", ","), _LAYOUT, strict=True):
        before = [_fields({key: fixed[key] for key in keys})] if keys else []
        pieces.append(opening + ",".join([*before, label]))
    return pieces


class RoundLineTemplate:
    """The round lines of one match, in pieces for the hot loop of
    :func:`pdbench.pd.policy_match.play_policy_rounds`."""

    __slots__ = ("_head", "_middle", "_outcomes", "_sep", "_tail")

    def __init__(
        self,
        match: MatchFields,
        *,
        payoffs: dict[tuple[str, str], tuple[float, float]],
        valid: tuple[bool, bool] = (True, True),
        attempts: tuple[int, int] = (0, 0),
    ) -> None:
        fixed = match.line_fields() | {
            "agent_a_valid": valid[0],
            "agent_b_valid": valid[1],
            "agent_a_attempts": attempts[0],
            "agent_b_attempts": attempts[1],
            "agent_a_truncated": False,
            "agent_b_truncated": False,
        }
        if unfilled := sorted(_FIXED_KEYS - fixed.keys()):
            raise ValueError(
                f"a round line's {', '.join(unfilled)} is not filled in by the template"
            )
        self._head, self._middle, after_outcome, self._sep, self._tail = _pieces(fixed)
        payoff_segments = {
            a + b: _fields(dict(zip(_PAYOFF_KEYS, payoff, strict=True)))
            for (a, b), payoff in payoffs.items()
        }
        self._outcomes = {
            key: segment + payoff_segments[key[2:]] + after_outcome
            for key, segment in _ACTION_SEGMENTS.items()
        }

    def parts(self) -> tuple[str, str, dict[str, str], str, str]:
        """``(head, middle, outcomes, sep, tail)`` for a loop that formats lines inline:
        ``f"{head}{round_index}{middle}{outcomes[key]}{total_a!r}{sep}{total_b!r}{tail}{ts}"``
        followed by ``'"}\\n'``."""
        return self._head, self._middle, self._outcomes, self._sep, self._tail
