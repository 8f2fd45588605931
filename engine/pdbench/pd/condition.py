"""One condition of a PD experiment: agent A against agent B, with its noise."""

from __future__ import annotations

from pydantic import Field

from pdbench.config.base import NAME_PATTERN, StrictModel
from pdbench.pd.agent_config import AgentConfig

__all__ = ["ConditionConfig"]


class ConditionConfig(StrictModel):
    """One matchup: agent A against agent B."""

    name: str = Field(pattern=NAME_PATTERN)
    """Unique name (letters, digits, ``_ . -``); part of every match id."""
    agent_a: AgentConfig
    """The first player (a ref, or an inline agent)."""
    agent_b: AgentConfig
    """The second player."""
    noise: float | None = Field(default=None, ge=0, le=1)
    """Probability of flipping each intended action (None: the experiment's ``noise``)."""
