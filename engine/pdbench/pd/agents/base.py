"""The ``Agent`` protocol and what an agent reports about its last move."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from pdbench.pd.actions import Action, Observation

__all__ = ["POLICY_DECISION", "Agent", "Decision", "MatchAborted"]


@dataclass(frozen=True, slots=True)
class Decision:
    """How the last action came about (what ``rounds.jsonl`` records beside it)."""

    valid: bool = True
    """False when the reply stayed invalid and a configured fallback was played."""
    attempts: int = 0
    """Provider calls made (0 for a policy)."""
    truncated: bool = False
    """Whether any of the replies was cut at the token limit (each was read as invalid)."""
    system_prompt: str | None = None
    """The system prompt of the first attempt (LLM agents)."""
    round_prompt: str | None = None
    """The round prompt of the first attempt (LLM agents)."""
    raw_responses: tuple[str, ...] = ()
    """Every attempt's raw reply, in order (LLM agents)."""


POLICY_DECISION = Decision()


class MatchAborted(Exception):
    """Raised by an agent that cannot produce a valid action and is configured to abort."""


@runtime_checkable
class Agent(Protocol):
    """Anything that can play: ``reset`` before a match, ``act`` once per round."""

    @property
    def name(self) -> str:
        """The agent's name in the run's files."""
        ...

    @property
    def kind(self) -> Literal["policy", "llm"]:
        """``policy`` or ``llm`` (a class attribute of every agent)."""
        ...

    @property
    def history_needed(self) -> int | None:
        """How many past rounds ``act`` reads (None: all of them)."""
        ...

    last_decision: Decision

    def reset(self, seed: int | None = None) -> None:
        """Forget the previous match; seed any randomness."""
        ...

    def act(self, obs: Observation) -> Action:
        """The action for ``obs.round_index``: exactly ``C`` or ``D``."""
        ...
