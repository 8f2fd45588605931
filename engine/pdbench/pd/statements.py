"""Stated strategies: an LLM agent's own account of how it plays, as a memory-one table.

An LLM agent with ``elicit_strategy: true`` is asked once per match, before its first move,
to state its strategy (the prompt file ``strategy_prompt``, default
``prompts/pd_strategy.md``): the probability that it cooperates in the first round, and after
each outcome of the round before, from its own view: ``cc`` (both cooperated), ``cd`` (it
cooperated, the other defected), ``dc`` (it defected, the other cooperated), ``dd`` (both
defected). A reply is read by one rule, ``json_table``: the reply (or the one Markdown code
fence that is the whole reply) is one JSON object with exactly those five keys, each a number
from 0 to 1. Anything else is invalid and re-asked like a move, up to ``max_retries`` times;
the statement and its reading go to ``statements.jsonl`` (:class:`StatementRecord`), and the
dbt model ``int_pd_stated_vs_played`` holds it against the play (docs/strategy.md).

The mock states a strategy too: its own policy's table (:func:`policy_table`), or
``mock.stated_strategy`` to plant a lie.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from pdbench.errors import unknown
from pdbench.pd.agents.policy import default_generous_prob
from pdbench.pd.payoff import PayoffView
from pdbench.replies import INVALID, Extraction, fenced

__all__ = [
    "STATED_POLICIES",
    "STATEMENT_KEYS_LINE",
    "STATEMENT_RULE",
    "STATES",
    "StatedStrategy",
    "is_statement_prompt",
    "parse_statement",
    "policy_table",
]

STATES = ("first", "cc", "cd", "dc", "dd")
"""The rows of a memory-one table: the first move, then the outcome of the round before
from the agent's own view (its action first)."""

STATED_POLICIES = ("ALLC", "ALLD", "TFT", "GRIM", "GTFT", "WSLS")
"""The policies whose table the mock can state (:func:`policy_table`)."""

STATEMENT_RULE = "json_table"
"""The one rule that reads a statement (``parse_rule`` in ``calls.jsonl``)."""

STATEMENT_KEYS_LINE = '{"first": p, "cc": p, "cd": p, "dc": p, "dd": p}'
"""The shape a statement is asked for; the mock recognises a statement prompt by it."""


@dataclass(frozen=True, slots=True)
class StatedStrategy:
    """A memory-one table: the probability of cooperating first, and after each outcome."""

    first: float
    cc: float
    cd: float
    dc: float
    dd: float

    def as_json(self) -> str:
        """The table as the JSON object a statement is asked for."""
        return json.dumps(asdict(self))

    def p_cooperate(self, state: str) -> float:
        """The probability of C in ``state`` (one of :data:`STATES`)."""
        return float(getattr(self, state))


def _probability(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0 <= value <= 1 else None


def parse_statement(reply: str) -> Extraction[StatedStrategy]:
    """The table a reply states, read by :data:`STATEMENT_RULE`, or invalid."""
    body = fenced(reply)
    try:
        found = json.loads(reply if body is None else body)
    except ValueError:
        return INVALID
    if not isinstance(found, dict) or set(found) != set(STATES):
        return INVALID
    values = {state: _probability(found[state]) for state in STATES}
    if any(value is None for value in values.values()):
        return INVALID
    return Extraction(StatedStrategy(**values), STATEMENT_RULE)  # type: ignore[arg-type]


def is_statement_prompt(prompt: str) -> bool:
    """Whether ``prompt`` asks for a stated strategy (it shows the table's shape)."""
    return STATEMENT_KEYS_LINE in prompt


def policy_table(policy: str, payoffs: PayoffView) -> StatedStrategy:
    """The memory-one table of a deterministic (or GTFT's generous) policy the mock plays:
    what it would state if it told the truth. GTFT forgives with the probability it plays
    with (:func:`pdbench.pd.agents.policy.default_generous_prob`)."""
    generous = default_generous_prob(payoffs)
    tables = {
        "ALLC": StatedStrategy(1, 1, 1, 1, 1),
        "ALLD": StatedStrategy(0, 0, 0, 0, 0),
        "TFT": StatedStrategy(1, 1, 0, 1, 0),
        "GRIM": StatedStrategy(1, 1, 0, 0, 0),
        "WSLS": StatedStrategy(1, 1, 0, 0, 1),
        "GTFT": StatedStrategy(1, 1, generous, 1, generous),
    }
    if policy not in tables:
        raise ValueError(unknown("stated strategy", policy, STATED_POLICIES))
    return tables[policy]
