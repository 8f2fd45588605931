"""``rounds.jsonl`` lines of one policy-only match, formatted from a template.

Most fields of a round line never change within a match (run, match, names, kinds, horizon,
valid/attempts of a policy). :class:`RoundLineTemplate` serialises them once, with the same
encoder as :func:`pdbench.storage.jsonl.dumps_line`, and per round fills in only what changes:
the round index, the four actions with their two payoffs (one pre-serialised segment per
combination), the two running totals and the timestamp. The result is byte for byte the line
``dumps_line`` writes for the same record dict (the tests hold it to that): keys in the same
order, floats through ``float.__repr__`` as ``json`` does, strings escaped by the encoder.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from pdbench.storage.jsonl import dumps_line
from pdbench.storage.schema import SCHEMA_VERSION

__all__ = ["ROUND_KEYS", "RoundLineTemplate", "round_record"]

ROUND_KEYS: tuple[str, ...] = (
    "schema_version",
    "run_id",
    "match_id",
    "condition",
    "replicate",
    "round_index",
    "match_seed",
    "agent_a_name",
    "agent_b_name",
    "agent_a_kind",
    "agent_b_kind",
    "agent_a_intended_action",
    "agent_b_intended_action",
    "agent_a_action",
    "agent_b_action",
    "agent_a_payoff",
    "agent_b_payoff",
    "agent_a_cum_payoff",
    "agent_b_cum_payoff",
    "agent_a_valid",
    "agent_b_valid",
    "agent_a_attempts",
    "agent_b_attempts",
    "horizon_type",
    "fixed_n",
    "stop_prob",
    "timestamp_utc",
)
"""The keys of a round line, in the order they are written."""


def round_record(**fields: Any) -> dict[str, Any]:
    """A round line's dict with its keys in :data:`ROUND_KEYS` order (all are required)."""
    return {key: fields[key] for key in ROUND_KEYS}


def _fields(record: dict[str, Any]) -> str:
    """``"k":v,...`` of ``record`` exactly as the JSONL encoder writes them, no braces."""
    return dumps_line(record)[1:-2] if record else ""


class RoundLineTemplate:
    """The round lines of one match; ``line(...)`` is the hot-loop call."""

    __slots__ = ("_head", "_middle", "_outcomes", "_sep", "_tail")

    def __init__(
        self,
        *,
        run_id: str,
        match_id: str,
        condition: str,
        replicate: int,
        match_seed: int,
        names: tuple[str, str],
        kinds: tuple[str, str],
        payoffs: dict[tuple[str, str], tuple[float, float]],
        valid: tuple[bool, bool] = (True, True),
        attempts: tuple[int, int] = (0, 0),
        horizon_type: str,
        fixed_n: int | None,
        stop_prob: float | None,
    ) -> None:
        head = _fields(
            {
                "schema_version": SCHEMA_VERSION,
                "run_id": run_id,
                "match_id": match_id,
                "condition": condition,
                "replicate": replicate,
            }
        )
        self._head = "{" + head + ',"round_index":'
        middle = _fields(
            {
                "match_seed": match_seed,
                "agent_a_name": names[0],
                "agent_b_name": names[1],
                "agent_a_kind": kinds[0],
                "agent_b_kind": kinds[1],
            }
        )
        self._middle = "," + middle + ","
        self._outcomes: dict[str, str] = {}
        for intended_a, intended_b, action_a, action_b in product("CD", repeat=4):
            payoff_a, payoff_b = payoffs[action_a, action_b]
            segment = _fields(
                {
                    "agent_a_intended_action": intended_a,
                    "agent_b_intended_action": intended_b,
                    "agent_a_action": action_a,
                    "agent_b_action": action_b,
                    "agent_a_payoff": payoff_a,
                    "agent_b_payoff": payoff_b,
                }
            )
            key = intended_a + intended_b + action_a + action_b
            self._outcomes[key] = segment + ',"agent_a_cum_payoff":'
        self._sep = ',"agent_b_cum_payoff":'
        tail = _fields(
            {
                "agent_a_valid": valid[0],
                "agent_b_valid": valid[1],
                "agent_a_attempts": attempts[0],
                "agent_b_attempts": attempts[1],
                "horizon_type": horizon_type,
                "fixed_n": fixed_n,
                "stop_prob": stop_prob,
            }
        )
        self._tail = "," + tail + ',"timestamp_utc":"'

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
