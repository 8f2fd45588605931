"""The mapping of a round-level table (``pdbench import csv|jsonl``): which column holds what,
what the action labels mean, and the payoff table.

Given as a small YAML file (``--mapping``), keys overridden on the command line
(``--set KEY=VALUE``), e.g. Akata et al.'s PD (``configs/import/akata_pd.yaml``)::

    round: round            # 1-based round number
    agent_a: player1        # names of the two agents (or agent_a_name/agent_b_name: constants)
    agent_b: player2
    action_a: answer1       # what each played, in the labels below
    action_b: answer2
    payoff_a: points1       # optional: payoffs as recorded (else from `payoffs`); they must
    payoff_b: points2       # be paid by one table: `payoffs`, or the one they imply
    match: null             # optional: a match id column; without one, a match starts where
                            # `round` returns to 1
    condition: null         # optional: a condition column (default: <agent_a>_vs_<agent_b>)
    actions: {J: C, F: D}   # every label -> C (cooperate) or D (defect)
    payoffs: {CC: [8, 8], CD: [0, 10], DC: [10, 0], DD: [5, 5]}   # optional
    policies: [act_j, act_f, act_defect_once]   # agents that are fixed strategies, not LLMs

On the command line: ``--set round=rnd``, ``--set actions=J:C,F:D``, ``--set
policies=a,b``, ``--set payoffs=8,0,10,5`` (R, S, T, P of a symmetric table).
A mapping that leaves a required key unset is refused before any source is read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from pdbench.config.base import StrictModel
from pdbench.config.loader import read_yaml
from pdbench.errors import ConfigError
from pdbench.pd.config import PayoffsConfig

__all__ = ["COLUMN_KEYS", "TableMapping", "load_mapping"]

COLUMN_KEYS = (
    "match",
    "condition",
    "round",
    "agent_a",
    "agent_b",
    "action_a",
    "action_b",
    "payoff_a",
    "payoff_b",
)
"""The keys of the mapping that name a column of the source."""


class TableMapping(StrictModel):
    """How the columns of a round-level table become PD rounds."""

    round: str
    """Column of the 1-based round number."""
    action_a: str
    """Column of agent A's action (a label of ``actions``)."""
    action_b: str
    """Column of agent B's action."""
    actions: dict[str, Literal["C", "D"]] = Field(min_length=1)
    """Every action label of the source -> ``C`` (cooperate) or ``D`` (defect)."""
    agent_a: str | None = None
    """Column of agent A's name (or ``agent_a_name``)."""
    agent_b: str | None = None
    """Column of agent B's name (or ``agent_b_name``)."""
    agent_a_name: str | None = None
    """Agent A's name when no column holds it."""
    agent_b_name: str | None = None
    """Agent B's name when no column holds it."""
    match: str | None = None
    """Column of the match id; None: a match starts where ``round`` returns to 1."""
    condition: str | None = None
    """Column of the condition; None: ``<agent_a>_vs_<agent_b>``."""
    payoff_a: str | None = None
    """Column of agent A's payoff as recorded; None: from ``payoffs``."""
    payoff_b: str | None = None
    """Column of agent B's payoff as recorded."""
    payoffs: PayoffsConfig | None = None
    """The payoff table: the metrics' R, S, T, P, and the payoffs of a source that records
    none. None: read from the recorded payoffs when the source has them
    (:mod:`pdbench.imports.recorded_payoffs`), else the default 3/0/5/1."""
    policies: list[str] = Field(default_factory=list)
    """Agents that are fixed strategies (kind ``policy``); every other agent is an LLM."""

    @field_validator("actions")
    @classmethod
    def _both_actions(cls, actions: dict[str, str]) -> dict[str, str]:
        if set(actions.values()) != {"C", "D"}:
            raise ValueError("map at least one label to C and one to D, e.g. {J: C, F: D}")
        return actions

    @model_validator(mode="after")
    def _agents_named(self) -> TableMapping:
        for side in ("a", "b"):
            if (
                getattr(self, f"agent_{side}") is None
                and getattr(self, f"agent_{side}_name") is None
            ):
                raise ValueError(
                    f"agent_{side} is unmapped: give a column (agent_{side}) or a name "
                    f"(agent_{side}_name)"
                )
        if (self.payoff_a is None) != (self.payoff_b is None):
            raise ValueError("map both payoff_a and payoff_b, or neither")
        return self

    def columns(self) -> dict[str, str]:
        """Mapping key -> source column, for the keys that name one."""
        return {key: column for key in COLUMN_KEYS if (column := getattr(self, key)) is not None}


def load_mapping(path: Path | None, settings: dict[str, str]) -> TableMapping:
    """The mapping of ``path`` (YAML) with ``settings`` (``--set``) over it; a one-line error
    naming the file (or ``--set``) and the key otherwise."""
    where = str(path) if path is not None else "--set"
    data: dict[str, Any] = {}
    if path is not None:
        data = dict(read_yaml(path))
    data.update({key: _setting(key, value) for key, value in settings.items()})
    if not data:
        raise ConfigError("no mapping: give --mapping FILE or --set KEY=VALUE")
    try:
        return TableMapping.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or None
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "missing":
            message = "required, unmapped"
        raise ConfigError(message, path=where, field=field) from None


def _setting(key: str, value: str) -> Any:
    """A ``--set`` value as the YAML key would hold it."""
    if key == "actions":
        pairs = (item.partition(":") for item in value.split(",") if item.strip())
        return {label.strip(): action.strip() for label, _, action in pairs}
    if key == "policies":
        return [name.strip() for name in value.split(",") if name.strip()]
    if key == "payoffs":
        return _symmetric_payoffs(value)
    return value or None


def _symmetric_payoffs(value: str) -> Any:
    """``R,S,T,P`` as a payoff table; anything else is left to the model to refuse."""
    parts = value.split(",")
    try:
        r, s, t, p = (float(part) for part in parts)
    except ValueError:
        return value
    return {"CC": [r, r], "CD": [s, t], "DC": [t, s], "DD": [p, p]}
