"""The lines of one PD match: what they share, and the round lines of a policy-only match.

A round line holds the keys of :data:`ROUND_KEYS`, the fields of
:class:`~pdbench.storage.schema.RoundRecord` in their order. Most never change within a
match (:class:`MatchFields`, and the valid/attempts of a policy). :class:`RoundLineTemplate`
serialises those once, with the same encoder as :func:`pdbench.storage.jsonl.dumps_line`, and
per round fills in only what changes: the round index, the four actions with their two
payoffs (one pre-serialised segment per combination), the two running totals and the
timestamp. The result is byte for byte the line ``dumps_line`` writes for the same record
dict (the tests hold it to that): keys in the same order, floats through ``float.__repr__``
as ``json`` does, strings escaped by the encoder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import product
from typing import Any

from pdbench.storage.jsonl import dumps_line
from pdbench.storage.schema import SCHEMA_VERSION, MatchRecord, RoundRecord, line_keys

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
_PER_ROUND = ("round_index", OUTCOME_KEYS, "agent_a_cum_payoff", "agent_b_cum_payoff")
"""What a template fills in per round, in line order; the timestamp, last, closes the line."""


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


def _pieces(fixed: dict[str, Any]) -> list[str]:
    """The text of a round line around what changes per round: before the round index,
    before the outcome segment, before each running total, before the timestamp, and after
    it. ``fixed`` holds every other key of :data:`ROUND_KEYS`."""
    pieces: list[str] = []
    text = ""
    expected: list[object] = [*_PER_ROUND, "timestamp_utc"]
    for index, key in enumerate(ROUND_KEYS):
        if key in OUTCOME_KEYS[1:]:
            continue
        text += "," if index else "{"
        if key in fixed:
            text += _fields({key: fixed[key]})
            continue
        slot = OUTCOME_KEYS if key == OUTCOME_KEYS[0] else key
        in_order = ROUND_KEYS[index : index + len(OUTCOME_KEYS)] == OUTCOME_KEYS
        if not expected or expected.pop(0) != slot or (slot is OUTCOME_KEYS and not in_order):
            raise ValueError(f"a round line's {key!r} is not where the template fills it in")
        quote = '"' if key == "timestamp_utc" else ""
        pieces.append(text if slot is OUTCOME_KEYS else f"{text}{json.dumps(key)}:{quote}")
        text = quote
    pieces.append(text + "}\n")
    if expected or pieces[-1] != '"}\n':
        raise ValueError("a round line does not end with its timestamp")
    return pieces


class RoundLineTemplate:
    """The round lines of one match; ``line(...)`` is the hot-loop call."""

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
        }
        self._head, self._middle, after_outcome, self._sep, self._tail, _ = _pieces(fixed)
        self._outcomes: dict[str, str] = {}
        for intended_a, intended_b, action_a, action_b in product("CD", repeat=4):
            values = (intended_a, intended_b, action_a, action_b, *payoffs[action_a, action_b])
            segment = _fields(dict(zip(OUTCOME_KEYS, values, strict=True)))
            key = intended_a + intended_b + action_a + action_b
            self._outcomes[key] = segment + after_outcome

    @property
    def outcomes(self) -> dict[str, str]:
        """``intended_a + intended_b + action_a + action_b`` -> the pre-serialised segment."""
        return self._outcomes

    def parts(self) -> tuple[str, str, dict[str, str], str, str]:
        """``(head, middle, outcomes, sep, tail)`` for a loop that formats lines inline:
        ``f"{head}{round_index}{middle}{outcomes[key]}{total_a!r}{sep}{total_b!r}{tail}{ts}"``
        followed by ``'"}\\n'``."""
        return self._head, self._middle, self._outcomes, self._sep, self._tail

    def line(
        self,
        *,
        round_index: int,
        intended: tuple[str, str],
        actions: tuple[str, str],
        totals: tuple[float, float],
        timestamp: str,
    ) -> str:
        """One complete line, newline included (the readable twin of the inline loop)."""
        key = intended[0] + intended[1] + actions[0] + actions[1]
        return (
            f"{self._head}{round_index}{self._middle}{self._outcomes[key]}"
            f"{float(totals[0])!r}{self._sep}{float(totals[1])!r}{self._tail}{timestamp}"
            '"}\n'
        )
